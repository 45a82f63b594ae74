/*
 * Privileged instructions of a guest kernel that runs at CPL3.
 *
 * A Xen PV kernel avoids most privileged instructions, but a few remain
 * (docs/xen-pv.md section 6): the forced-emulation CPUID, rdmsr/wrmsr of a few
 * MSRs, in/out, CR0/CR4 reads, CR4 writes, wbinvd. They fault at CPL3; the
 * Host decodes the one instruction at rip, does what Xen would, and moves
 * rip past it. As in Xen, a #UD is only emulated for the forced-emulation
 * CPUID and a #GP only when its error code is 0; whatever is not emulated
 * goes back to the guest as the exception it raised.
 */
#include "emulate.h"
#include "../core/host.h"
#include "../x86/insn.h"
#include "../core/vcpu.h"
#include "cpuid.h"
#include "msr.h"
#include "cpu_seen.h"
#include "noop_patch.h"

#define VECTOR_UD 6

#define RFLAGS_RF (1ull << 16)

#define CR0_TS (1ull << 3)

#define CR4_DE         (1ull << 3)
#define CR4_PAE        (1ull << 5)
#define CR4_MCE        (1ull << 6)
#define CR4_OSFXSR     (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
/* As in Xen, the guest sees these real CR4 bits, read-only... */
#define CR4_VISIBLE (CR4_PAE | CR4_MCE | CR4_OSFXSR | CR4_OSXMMEXCPT)
/* ...and controls these. Xen also lets it control TSD and FSGSBASE; perch
 * applies no CR4 bit to the hardware and hides FSGSBASE, so DE (which
 * changes nothing perch emulates) and OSXSAVE (on from the start where
 * XSAVE is offered, as Xen does; it only says so in CPUID: guest code runs
 * with the real one set, docs/kvm.md) are kept. Everything else a write sets, PGE, PSE and PCE
 * among them, is dropped. */
#define CR4_GUEST      (CR4_DE | CR4_OSXSAVE)

void emulate_reset(void)
{
    current->emulated_fault_address = 0;
    current->segments_dirty = false;
    current->cr0_ts = false;
    current->cr4 = PERCH_VCPU_CR4 & CR4_VISIBLE;
    /* As Xen starts a PV vCPU where XSAVE is offered: OSXSAVE on (Linux
     * checks it before it trusts XSAVE), x87 and SSE in XCR0. */
    if (guest_xcr0_allowed())
        current->cr4 |= CR4_OSXSAVE;
    current->xcr0 = XCR0_X87 | XCR0_SSE;
}

/* ---- The instruction at rip ---------------------------------------------- */

/* Its bytes, as many of the 15 as are readable (an instruction that ends
 * before an unmapped page is still readable), and the decoded instruction. */
struct fetched {
    uint64_t rip;
    uint8_t bytes[INSN_MAX_BYTES];
    size_t avail;
    struct insn in;
};

/* Bytes it needed are not readable: a #PF where they start. */
static enum emul_result unreadable(const struct fetched *f)
{
    current->emulated_fault_address = f->rip + f->avail;
    return EMUL_INJECT_PF;
}

/* Resume after the instruction; RF is cleared as after any instruction. */
static enum emul_result done(struct cpu_regs *regs, uint64_t rip, unsigned length)
{
    regs->rip = rip + length;
    regs->rflags &= ~RFLAGS_RF;
    return EMUL_DONE;
}

static enum emul_result step(struct cpu_regs *regs, const struct fetched *f)
{
    return done(regs, f->rip, f->in.length);
}

/* ---- CPUID ---------------------------------------------------------------- */

static void emulate_cpuid(struct cpu_regs *regs)
{
    uint32_t r[4];

    guest_cpuid((uint32_t)regs->rax, (uint32_t)regs->rcx, r);
    cpu_seen_cpuid((uint32_t)regs->rax, (uint32_t)regs->rcx, r);
    regs->rax = r[0];
    regs->rbx = r[1];
    regs->rcx = r[2];
    regs->rdx = r[3];
}

/*
 * #UD: Xen's forced-emulation prefix, ud2 then "xen", before a cpuid: seven
 * fixed bytes, matched as they are. Like Xen, an unreadable signature is a
 * #PF, anything else a #UD.
 */
static enum emul_result emulate_forced(struct cpu_regs *regs, const struct fetched *f)
{
    static const uint8_t forced[7] = { 0x0f, 0x0b, 'x', 'e', 'n', 0x0f, 0xa2 };
    const size_t sig = 5;

    if (f->avail < sig)
        return unreadable(f);
    if (__builtin_memcmp(f->bytes, forced, sig))
        return EMUL_INJECT_UD;
    if (f->avail < sizeof(forced))
        return unreadable(f);
    if (__builtin_memcmp(f->bytes + sig, forced + sig, sizeof(forced) - sig))
        return EMUL_INJECT_UD;
    emulate_cpuid(regs);
    return done(regs, f->rip, sizeof(forced));
}

/* ---- MSRs: host/cpu/msr.c answers them ------------------------------------- */

static enum emul_result emulate_rdmsr(struct cpu_regs *regs, const struct fetched *f)
{
    uint64_t val = 0;
    bool ok = msr_read((uint32_t)regs->rcx, &val);

    cpu_seen_msr((uint32_t)regs->rcx, false, ok, val);
    if (!ok)
        return EMUL_INJECT_GP;
    regs->rax = (uint32_t)val;
    regs->rdx = val >> 32;
    return step(regs, f);
}

static enum emul_result emulate_wrmsr(struct cpu_regs *regs, const struct fetched *f)
{
    uint64_t val = ((uint64_t)(uint32_t)regs->rdx << 32) | (uint32_t)regs->rax;
    bool ok = msr_write((uint32_t)regs->rcx, val);

    cpu_seen_msr((uint32_t)regs->rcx, true, ok, val);
    if (!ok)
        return EMUL_INJECT_GP;
    return step(regs, f);
}

/* ---- I/O ports --------------------------------------------------------------- */

/*
 * Xen's virtual IOPL: the guest kernel counts as ring 1 (ring 0 with
 * VMASST architectural_iopl) and may do I/O if the IOPL set with
 * PHYSDEVOP_set_iopl is at least that.
 */
static bool iopl_ok(void)
{
    return vcpu_iopl_allows(current);
}

/* Or the guest's I/O bitmap (PHYSDEVOP_set_iobitmap) allows the ports:
 * their bits are clear. Like Xen, read the two bytes that can hold them;
 * one that cannot be read counts as all set. */
static bool io_permitted(uint16_t port, unsigned size)
{
    uint8_t bits[2] = { 0xff, 0xff };
    uint64_t at = current->iobitmap + port / 8;

    if (iopl_ok())
        return true;
    if (port + size > current->iobitmap_ports || copy_from_guest(&bits[0], at, 1))
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
static enum emul_result emulate_io(struct cpu_regs *regs, const struct fetched *f)
{
    const struct insn *in = &f->in;
    unsigned size = in->operand_size == 1 ? 1 : in->operand_size == 2 ? 2 : 4;
    bool out = in->opcode & 2;
    uint16_t port = (in->opcode & 8) ? (uint16_t)regs->rdx : (uint8_t)in->immediate;

    if (!io_permitted(port, size))
        return EMUL_INJECT_GP;
    if (!out)
        port_read(regs, port, size);
    return step(regs, f);
}

/* ---- Control registers -------------------------------------------------------- */

static uint64_t read_cr0(void)
{
    return (PERCH_VCPU_CR0 & ~CR0_TS) | (current->cr0_ts ? CR0_TS : 0);
}

/* mov crN, reg / mov reg, crN: the modrm's reg field is N, r/m the GPR
 * (its mod bits are ignored). CR2 and CR3 Linux keeps itself under PV. */
static enum emul_result emulate_mov_cr(struct cpu_regs *regs, const struct fetched *f,
                                       bool to_cr)
{
    unsigned cr = f->in.reg;
    uint64_t *reg = insn_gpr(regs, f->in.rm);

    if (!to_cr && cr == 0)
        *reg = read_cr0();
    else if (!to_cr && cr == 4)
        *reg = current->cr4;
    else if (to_cr && cr == 0 && !((*reg ^ PERCH_VCPU_CR0) & ~CR0_TS))
        current->cr0_ts = *reg & CR0_TS;    /* only TS may change, as in Xen */
    else if (to_cr && cr == 4)
        current->cr4 = (PERCH_VCPU_CR4 & CR4_VISIBLE) | (*reg & CR4_GUEST);
    else
        return EMUL_INJECT_GP;
    return step(regs, f);
}

/* xsetbv: the kernel picks, among the components host/cpu/cpuid.c offers, what
 * its XSAVE area holds. x87 always, AVX only with SSE, AVX-512's three
 * components together and only with AVX, XCR0 (ecx 0) only, as the CPU
 * would check; the real XCR0 is left as it is (a superset). */
static enum emul_result emulate_xsetbv(struct cpu_regs *regs, const struct fetched *f)
{
    uint64_t value = (regs->rdx << 32) | (uint32_t)regs->rax;
    uint64_t avx512 = value & XCR0_AVX512;

    if ((uint32_t)regs->rcx != 0 || !(value & XCR0_X87) ||
        (value & ~guest_xcr0_allowed()) || ((value & XCR0_AVX) && !(value & XCR0_SSE)) ||
        (avx512 && (avx512 != XCR0_AVX512 || !(value & XCR0_AVX))))
        return EMUL_INJECT_GP;
    current->xcr0 = value;
    return step(regs, f);
}

/* ---- Dispatch ------------------------------------------------------------------- */

/* Two-byte opcodes 0f xx. */
static enum emul_result emulate_0f(struct cpu_regs *regs, const struct fetched *f)
{
    switch (f->in.opcode) {
    case 0xa2:
        emulate_cpuid(regs);
        return step(regs, f);
    case 0x01:                          /* group 7: only xsetbv */
        return f->in.modrm == 0xd1 ? emulate_xsetbv(regs, f) : EMUL_INJECT_GP;
    case 0x32:
        return emulate_rdmsr(regs, f);
    case 0x30:
        return emulate_wrmsr(regs, f);
    case 0x20:
        return emulate_mov_cr(regs, f, false);
    case 0x22:
        return emulate_mov_cr(regs, f, true);
    case 0x06:                          /* clts */
        current->cr0_ts = false;
        return step(regs, f);
    case 0x09:                          /* wbinvd: the VM's caches are KVM's */
        return step(regs, f);
    default:
        return EMUL_INJECT_GP;
    }
}

/* #GP with error code 0: the privileged instructions Xen emulates. ins and
 * outs are not emulated (Linux does not use them on ports it has not
 * probed successfully); cli/sti are no-ops for a guest with IOPL, as in
 * Xen, since events are masked through vcpu_info. The CPU read the whole
 * instruction to raise the #GP, so bytes missing now are a #PF; too long an
 * instruction is the CPU's own #GP. */
static enum emul_result emulate_gp(struct cpu_regs *regs, struct fetched *f)
{
    int rc = insn_decode(&f->in, f->bytes, f->avail);

    if (rc == INSN_TRUNCATED)
        return unreadable(f);
    if (rc || f->in.lock || f->in.vex)
        return EMUL_INJECT_GP;
    if (f->in.map == INSN_MAP_0F)
        return emulate_0f(regs, f);
    if (f->in.map != INSN_MAP_1)
        return EMUL_INJECT_GP;
    switch (f->in.opcode) {
    case 0xe4: case 0xe5: case 0xe6: case 0xe7:
    case 0xec: case 0xed: case 0xee: case 0xef:
        return emulate_io(regs, f);
    case 0xfa: case 0xfb:
        if (!iopl_ok())
            return EMUL_INJECT_GP;
        noop_patch_emulated(f->rip, f->in.opcode);
        return step(regs, f);
    default:
        return EMUL_INJECT_GP;
    }
}

enum emul_result emulate_privileged(struct cpu_regs *regs)
{
    struct fetched f = { .rip = regs->rip };

    if (regs->vector != VECTOR_UD && regs->error_code != 0)
        return EMUL_INJECT_GP;      /* a selector or IDT fault: as it is */
    f.avail = insn_fetch(regs->rip, f.bytes);
    if (regs->vector == VECTOR_UD)
        return emulate_forced(regs, &f);
    return emulate_gp(regs, &f);
}
