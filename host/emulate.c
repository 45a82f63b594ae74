/*
 * Privileged instructions of a guest kernel that runs at CPL3.
 *
 * A Xen PV kernel avoids most privileged instructions, but a few remain
 * (xen-pv-boot.md §7): the forced-emulation CPUID, rdmsr/wrmsr of a few
 * MSRs, in/out, CR0/CR4 reads, CR4 writes, wbinvd. They fault at CPL3; the
 * Host decodes the one instruction at rip, does what Xen would, and moves
 * rip past it. As in Xen, a #UD is only emulated for the forced-emulation
 * CPUID and a #GP only when its error code is 0; whatever is not emulated
 * goes back to the guest as the exception it raised.
 */
#include "emulate.h"
#include "host.h"
#include "vcpu.h"

#define VECTOR_UD 6
#define MAX_INSN_BYTES 15

#define RFLAGS_RF (1ull << 16)

#define CR0_TS (1ull << 3)

#define CR4_DE         (1ull << 3)
#define CR4_PAE        (1ull << 5)
#define CR4_MCE        (1ull << 6)
#define CR4_OSFXSR     (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
/* As in Xen, the guest sees these real CR4 bits, read-only... */
#define CR4_VISIBLE (CR4_PAE | CR4_MCE | CR4_OSFXSR | CR4_OSXMMEXCPT)
/* ...and controls these. Xen also lets it control TSD, FSGSBASE and
 * OSXSAVE; perch applies no CR4 bit to the hardware and hides FSGSBASE and
 * XSAVE, so only DE (which changes nothing perch emulates) is kept.
 * Everything else a write sets, PGE, PSE and PCE among them, is dropped. */
#define CR4_GUEST      CR4_DE

#define MSR_APIC_BASE      0x0000001bu
#define MSR_PAT            0x00000277u
#define MSR_EFER           0xc0000080u
#define MSR_FS_BASE        0xc0000100u
#define MSR_GS_BASE        0xc0000101u
#define MSR_KERNEL_GS_BASE 0xc0000102u
/* Xen's fixed PAT for PV guests: WB, WT, UC-, UC, WC, WP, UC, UC. */
#define XEN_PV_PAT         0x0000050100070406ull

uint64_t emulate_fault_addr;
bool vcpu_segments_dirty;
bool guest_cr0_ts;
uint64_t guest_cr4 = PERCH_VCPU_CR4 & CR4_VISIBLE;

void emulate_reset(void)
{
    emulate_fault_addr = 0;
    vcpu_segments_dirty = false;
    guest_cr0_ts = false;
    guest_cr4 = PERCH_VCPU_CR4 & CR4_VISIBLE;
}

/* ---- Fetching and decoding ---------------------------------------------- */

/* The instruction at rip, its prefixes, and how far decoding has got. */
struct insn {
    uint64_t rip;
    uint8_t bytes[MAX_INSN_BYTES];
    unsigned avail;         /* bytes readable from rip */
    unsigned pos;           /* next byte to decode */
    bool opsize;            /* 0x66 */
    bool lock;              /* 0xf0 */
    uint8_t rex;            /* the REX prefix right before the opcode, or 0 */
};

/*
 * Read up to 15 bytes at rip, page by page: an instruction that ends
 * before an unmapped page is still readable. Only what decoding then needs
 * must be there.
 */
static void fetch(struct insn *in, uint64_t rip)
{
    size_t first = 4096 - (rip & 0xfff);

    __builtin_memset(in, 0, sizeof(*in));
    in->rip = rip;
    if (first > MAX_INSN_BYTES)
        first = MAX_INSN_BYTES;
    if (copy_from_guest(in->bytes, rip, first))
        return;
    in->avail = first;
    if (first < MAX_INSN_BYTES &&
        !copy_from_guest(in->bytes + first, rip + first, MAX_INSN_BYTES - first))
        in->avail = MAX_INSN_BYTES;
}

/* Whether the next n bytes were readable; if not, where the fault is. */
static bool have(const struct insn *in, unsigned n)
{
    if (in->pos + n <= in->avail)
        return true;
    emulate_fault_addr = in->rip + in->avail;
    return false;
}

static uint8_t next_byte(struct insn *in)
{
    return in->bytes[in->pos++];
}

/* Skip the prefixes; a REX counts only right before the opcode. */
static enum emul_result skip_prefixes(struct insn *in)
{
    for (;;) {
        uint8_t b;

        if (in->pos == MAX_INSN_BYTES)
            return EMUL_INJECT_GP;      /* too long: the CPU's #GP */
        if (!have(in, 1))
            return EMUL_INJECT_PF;
        b = in->bytes[in->pos];
        if ((b & 0xf0) == 0x40) {
            in->rex = b;
        } else if (b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
                   b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
                   b == 0x64 || b == 0x65) {
            in->opsize |= b == 0x66;
            in->lock |= b == 0xf0;
            in->rex = 0;
        } else {
            return EMUL_DONE;
        }
        in->pos++;
    }
}

/* Resume after the instruction; RF is cleared as after any instruction. */
static enum emul_result done(struct cpu_regs *regs, const struct insn *in)
{
    regs->rip = in->rip + in->pos;
    regs->rflags &= ~RFLAGS_RF;
    return EMUL_DONE;
}

/* The general register with hardware number n (REX-extended). */
static uint64_t *gpr(struct cpu_regs *r, unsigned n)
{
    uint64_t *const regs[16] = {
        &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi,
        &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15,
    };

    return regs[n & 15];
}

/* ---- CPUID ---------------------------------------------------------------- */

static void emulate_cpuid(struct cpu_regs *regs)
{
    uint32_t r[4];

    guest_cpuid((uint32_t)regs->rax, (uint32_t)regs->rcx, r);
    regs->rax = r[0];
    regs->rbx = r[1];
    regs->rcx = r[2];
    regs->rdx = r[3];
}

/*
 * #UD: Xen's forced-emulation prefix, ud2 then "xen", before a cpuid. Like
 * Xen, an unreadable signature is a #PF, anything else a #UD.
 */
static enum emul_result emulate_forced(struct cpu_regs *regs, struct insn *in)
{
    static const uint8_t sig[5] = { 0x0f, 0x0b, 'x', 'e', 'n' };

    if (!have(in, sizeof(sig)))
        return EMUL_INJECT_PF;
    for (unsigned i = 0; i < sizeof(sig); i++)
        if (next_byte(in) != sig[i])
            return EMUL_INJECT_UD;
    if (!have(in, 2))
        return EMUL_INJECT_PF;
    if (next_byte(in) != 0x0f || next_byte(in) != 0xa2)
        return EMUL_INJECT_UD;
    emulate_cpuid(regs);
    return done(regs, in);
}

/* ---- MSRs ------------------------------------------------------------------ */

/*
 * The MSRs a PV Linux reads. In guest-kernel mode the live GS base is the
 * kernel's; KERNEL_GS_BASE, the one swapgs would bring in, is the user's.
 */
static bool msr_read(uint32_t msr, uint64_t *val)
{
    switch (msr) {
    case MSR_FS_BASE:        *val = vcpu0.fs_base; return true;
    case MSR_GS_BASE:        *val = vcpu0.gs_base_kernel; return true;
    case MSR_KERNEL_GS_BASE: *val = vcpu0.gs_base_user; return true;
    case MSR_APIC_BASE:      *val = PERCH_APIC_BASE_MSR; return true;
    case MSR_PAT:            *val = XEN_PV_PAT; return true;
    case MSR_EFER:           *val = PERCH_VCPU_EFER; return true;
    }
    /*
     * Xen reads an unknown MSR as 0 rather than raise a #GP the guest has
     * no handler for yet (outside its own 0x4000xxxx range; Xen also asks
     * the hardware whether the MSR exists, which the Host cannot).
     */
    if (!vcpu0.traps[13].address && (msr >> 16) != 0x4000) {
        *val = 0;
        return true;
    }
    return false;
}

static bool msr_write(uint32_t msr, uint64_t val)
{
    uint64_t *base;

    switch (msr) {
    case MSR_FS_BASE:        base = &vcpu0.fs_base; break;
    case MSR_GS_BASE:        base = &vcpu0.gs_base_kernel; break;
    case MSR_KERNEL_GS_BASE: base = &vcpu0.gs_base_user; break;
    case MSR_EFER:
        /* Linux writes EFER back unchanged; Xen allows only that. */
        return val == PERCH_VCPU_EFER;
    default:
        return false;
    }
    if (!va_canonical(val))
        return false;
    *base = val;
    vcpu_segments_dirty = true;
    return true;
}

static enum emul_result emulate_rdmsr(struct cpu_regs *regs, const struct insn *in)
{
    uint64_t val;

    if (!msr_read((uint32_t)regs->rcx, &val))
        return EMUL_INJECT_GP;
    regs->rax = (uint32_t)val;
    regs->rdx = val >> 32;
    return done(regs, in);
}

static enum emul_result emulate_wrmsr(struct cpu_regs *regs, const struct insn *in)
{
    uint64_t val = ((uint64_t)(uint32_t)regs->rdx << 32) | (uint32_t)regs->rax;

    if (!msr_write((uint32_t)regs->rcx, val))
        return EMUL_INJECT_GP;
    return done(regs, in);
}

/* ---- I/O ports --------------------------------------------------------------- */

/*
 * Xen's virtual IOPL: the guest kernel counts as ring 1 (ring 0 with
 * VMASST architectural_iopl) and may do I/O if the IOPL set with
 * PHYSDEVOP_set_iopl is at least that.
 */
static bool iopl_ok(void)
{
    unsigned cpl = (vm_assist_enabled & (1ull << VMASST_TYPE_architectural_iopl)) ? 0 : 1;

    return cpl <= physdev_iopl;
}

/* Or the guest's I/O bitmap (PHYSDEVOP_set_iobitmap) allows the ports:
 * their bits are clear. Like Xen, read the two bytes that can hold them;
 * one that cannot be read counts as all set. */
static bool io_permitted(uint16_t port, unsigned size)
{
    uint8_t bits[2] = { 0xff, 0xff };
    uint64_t at = physdev_iobitmap + port / 8;

    if (iopl_ok())
        return true;
    if (port + size > physdev_iobitmap_ports || copy_from_guest(&bits[0], at, 1))
        return false;
    if (copy_from_guest(&bits[1], at + 1, 1))
        bits[1] = 0xff;
    return ((bits[0] | (bits[1] << 8)) & (((1u << size) - 1) << (port & 7))) == 0;
}

/*
 * A domU owns no port: reads give all ones (in the operand's width, the
 * rest of rax as the instruction leaves it), writes go nowhere.
 *
 * One exception, for speed: PIT channel 2 (port 0x42) reads as 0. Linux's
 * quick PIT calibration polls it until its top byte changes, which an
 * all-ones port never does: 100,000 emulated reads (~1.3 s here, where
 * each costs a ring-0 visit) before it gives up. Reading 0 makes it give up
 * at once; the guest takes its TSC rate from pvclock either way.
 */
#define PIT_CHANNEL2 0x42

static void port_read(struct cpu_regs *regs, uint16_t port, unsigned size)
{
    uint64_t value = port == PIT_CHANNEL2 ? 0 : ~0ull;

    if (size == 4)
        regs->rax = (uint32_t)value;
    else if (size == 2)
        regs->rax = (regs->rax & ~0xffffull) | (value & 0xffff);
    else
        regs->rax = (regs->rax & ~0xffull) | (value & 0xff);
}

/* in/out: e4-e7 with an 8-bit port, ec-ef with the port in dx; odd opcodes
 * move 32 bits (16 with 0x66, unless REX.W overrides it: there is no
 * 64-bit form), even ones 8; bit 1 is the direction. */
static enum emul_result emulate_io(struct cpu_regs *regs, struct insn *in, uint8_t op)
{
    bool size16 = in->opsize && !(in->rex & 8);
    unsigned size = (op & 1) ? (size16 ? 2 : 4) : 1;
    bool out = op & 2;
    uint16_t port;

    if (op & 8) {
        port = (uint16_t)regs->rdx;
    } else {
        if (!have(in, 1))
            return EMUL_INJECT_PF;
        port = next_byte(in);
    }
    if (!io_permitted(port, size))
        return EMUL_INJECT_GP;
    if (!out)
        port_read(regs, port, size);
    return done(regs, in);
}

/* ---- Control registers -------------------------------------------------------- */

static uint64_t read_cr0(void)
{
    return (PERCH_VCPU_CR0 & ~CR0_TS) | (guest_cr0_ts ? CR0_TS : 0);
}

/* mov crN, reg / mov reg, crN: the modrm's reg field is N, r/m the GPR
 * (its mod bits are ignored). CR2 and CR3 Linux keeps itself under PV. */
static enum emul_result emulate_mov_cr(struct cpu_regs *regs, struct insn *in, bool to_cr)
{
    uint8_t modrm;
    unsigned cr;
    uint64_t *reg;

    if (!have(in, 1))
        return EMUL_INJECT_PF;
    modrm = next_byte(in);
    cr = ((modrm >> 3) & 7) | ((in->rex & 4) ? 8 : 0);
    reg = gpr(regs, (modrm & 7) | ((in->rex & 1) ? 8 : 0));
    if (!to_cr && cr == 0)
        *reg = read_cr0();
    else if (!to_cr && cr == 4)
        *reg = guest_cr4;
    else if (to_cr && cr == 0 && !((*reg ^ PERCH_VCPU_CR0) & ~CR0_TS))
        guest_cr0_ts = *reg & CR0_TS;    /* only TS may change, as in Xen */
    else if (to_cr && cr == 4)
        guest_cr4 = (PERCH_VCPU_CR4 & CR4_VISIBLE) | (*reg & CR4_GUEST);
    else
        return EMUL_INJECT_GP;
    return done(regs, in);
}

/* ---- Dispatch ------------------------------------------------------------------- */

/* Two-byte opcodes 0f xx. */
static enum emul_result emulate_0f(struct cpu_regs *regs, struct insn *in)
{
    if (!have(in, 1))
        return EMUL_INJECT_PF;
    switch (next_byte(in)) {
    case 0xa2:
        emulate_cpuid(regs);
        return done(regs, in);
    case 0x32:
        return emulate_rdmsr(regs, in);
    case 0x30:
        return emulate_wrmsr(regs, in);
    case 0x20:
        return emulate_mov_cr(regs, in, false);
    case 0x22:
        return emulate_mov_cr(regs, in, true);
    case 0x06:                          /* clts */
        guest_cr0_ts = false;
        return done(regs, in);
    case 0x09:                          /* wbinvd: the VM's caches are KVM's */
        return done(regs, in);
    default:
        return EMUL_INJECT_GP;
    }
}

/* #GP with error code 0: the privileged instructions Xen emulates. ins and
 * outs are not emulated (Linux does not use them on ports it has not
 * probed successfully); cli/sti are no-ops for a guest with IOPL, as in
 * Xen, since events are masked through vcpu_info. */
static enum emul_result emulate_gp(struct cpu_regs *regs, struct insn *in)
{
    enum emul_result r = skip_prefixes(in);
    uint8_t op;

    if (r != EMUL_DONE)
        return r;
    if (in->lock)
        return EMUL_INJECT_GP;
    op = next_byte(in);
    switch (op) {
    case 0x0f:
        return emulate_0f(regs, in);
    case 0xe4: case 0xe5: case 0xe6: case 0xe7:
    case 0xec: case 0xed: case 0xee: case 0xef:
        return emulate_io(regs, in, op);
    case 0xfa: case 0xfb:
        return iopl_ok() ? done(regs, in) : EMUL_INJECT_GP;
    default:
        return EMUL_INJECT_GP;
    }
}

enum emul_result emulate_privileged(struct cpu_regs *regs)
{
    struct insn in;

    if (regs->vector != VECTOR_UD && regs->error_code != 0)
        return EMUL_INJECT_GP;      /* a selector or IDT fault: as it is */
    fetch(&in, regs->rip);
    if (regs->vector == VECTOR_UD)
        return emulate_forced(regs, &in);
    return emulate_gp(regs, &in);
}
