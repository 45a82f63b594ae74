/*
 * Writable page tables (Xen's ptwr, VMASST_TYPE_writable_pagetables).
 *
 * Linux maps its page tables read-only, yet generic mm code still stores to
 * live PTEs directly (native_set_pte, ptep_get_and_clear, clear_bit on RW,
 * test_and_clear_bit on A). Such a store faults; the trap path hands the
 * #PF here. If the store is one of the forms those helpers compile to and
 * lands on an L1 table mapped read-only in the guest-kernel tables, it is
 * done as an mmu_update of that entry: checked, adjusted, written through
 * the alias; the registers and flags get what the instruction would have
 * given them and rip moves past it. Anything else is the guest's #PF.
 *
 * Forms (64-bit memory operand unless noted, lock prefix optional and
 * ds/cs/es/ss overrides ignored, any ModRM memory addressing, RIP-relative
 * included):
 *   mov  %r64,(m)          REX.W 89 /r
 *   mov  $imm32,(m)        REX.W C7 /0 id    (sign-extended)
 *   xchg %r64,(m)          REX.W 87 /r       (old value into %r64)
 *   cmpxchg %r64,(m)       REX.W 0F B1 /r    (ZF; old value into %rax)
 *   bts/btr $imm8,(m)      REX.W 0F BA /5 /6 (CF = the old bit)
 *   bts/btr %r64,(m)       REX.W 0F AB, 0F B3
 *   or/and $imm8,(m8)      80 /1, 80 /4      (a byte of the entry)
 *   or/and $imm,(m)        REX.W 81 /1 /4 id, REX.W 83 /1 /4 ib
 * The accessed address must be the faulting one; a 64-bit access must be
 * 8-byte aligned.
 */
#include "emulate.h"
#include "mm.h"

#define MAX_INSN 15

/* #PF error code bits. */
#define PF_PRESENT  (1u << 0)
#define PF_WRITE    (1u << 1)
#define PF_RESERVED (1u << 3)
#define PF_FETCH    (1u << 4)

/* RFLAGS arithmetic flags. */
#define FL_CF 0x001ull
#define FL_PF 0x004ull
#define FL_AF 0x010ull
#define FL_ZF 0x040ull
#define FL_SF 0x080ull
#define FL_OF 0x800ull
#define FL_ARITH (FL_CF | FL_PF | FL_AF | FL_ZF | FL_SF | FL_OF)

#define REX_W 8
#define REX_R 4
#define REX_X 2
#define REX_B 1

enum op { OP_MOV, OP_XCHG, OP_CMPXCHG, OP_BTS, OP_BTR, OP_OR, OP_AND };

struct insn {
    enum op op;
    unsigned len;       /* bytes, prefixes and immediate included */
    unsigned size;      /* bytes accessed: 1 or 8 */
    bool imm_src;       /* source is imm, else register `reg` */
    unsigned reg;       /* ModRM.reg with REX.R */
    uint64_t imm;       /* sign-extended (bit number for bts/btr) */
    uint64_t addr;      /* the memory operand's effective address */
};

/* ---- Registers ------------------------------------------------------------ */

/* The x86 register numbering, onto struct cpu_regs. */
static const uint8_t gpr_offset[16] = {
    offsetof(struct cpu_regs, rax), offsetof(struct cpu_regs, rcx),
    offsetof(struct cpu_regs, rdx), offsetof(struct cpu_regs, rbx),
    offsetof(struct cpu_regs, rsp), offsetof(struct cpu_regs, rbp),
    offsetof(struct cpu_regs, rsi), offsetof(struct cpu_regs, rdi),
    offsetof(struct cpu_regs, r8),  offsetof(struct cpu_regs, r9),
    offsetof(struct cpu_regs, r10), offsetof(struct cpu_regs, r11),
    offsetof(struct cpu_regs, r12), offsetof(struct cpu_regs, r13),
    offsetof(struct cpu_regs, r14), offsetof(struct cpu_regs, r15),
};

static uint64_t *gpr(struct cpu_regs *regs, unsigned n)
{
    return (uint64_t *)((uint8_t *)regs + gpr_offset[n & 15]);
}

/* ---- Decoding ----------------------------------------------------------------- */

struct cursor {
    const uint8_t *bytes;
    unsigned n, pos;
    bool ok;
};

static uint8_t next_byte(struct cursor *c)
{
    if (c->pos >= c->n) {
        c->ok = false;
        return 0;
    }
    return c->bytes[c->pos++];
}

/* A little-endian immediate or displacement of 1 or 4 bytes, sign-extended. */
static uint64_t next_signed(struct cursor *c, unsigned bytes)
{
    uint32_t v = 0;

    for (unsigned i = 0; i < bytes; i++)
        v |= (uint32_t)next_byte(c) << (8 * i);
    return bytes == 1 ? (uint64_t)(int64_t)(int8_t)v : (uint64_t)(int64_t)(int32_t)v;
}

/* The memory operand of ModRM byte `modrm`: its address without the rip a
 * RIP-relative operand adds once the instruction's length is known. */
static bool decode_mem(struct cursor *c, unsigned rex, uint8_t modrm,
                       struct cpu_regs *regs, uint64_t *addr, bool *rip_relative)
{
    unsigned mod = modrm >> 6, rm = modrm & 7;
    uint64_t a = 0;

    *rip_relative = false;
    if (mod == 3)
        return false;   /* a register, not memory */
    if (rm == 4) {
        uint8_t sib = next_byte(c);
        unsigned index = ((sib >> 3) & 7) | ((rex & REX_X) ? 8 : 0), base = sib & 7;

        if (index != 4)
            a += *gpr(regs, index) << (sib >> 6);
        if (base == 5 && mod == 0)
            a += next_signed(c, 4);
        else
            a += *gpr(regs, base | ((rex & REX_B) ? 8 : 0));
    } else if (rm == 5 && mod == 0) {
        *rip_relative = true;
        a = next_signed(c, 4);
    } else {
        a = *gpr(regs, rm | ((rex & REX_B) ? 8 : 0));
    }
    if (mod == 1)
        a += next_signed(c, 1);
    else if (mod == 2)
        a += next_signed(c, 4);
    *addr = a;
    return c->ok;
}

/* Which form the opcode is; *imm_bytes for the immediate that follows the
 * memory operand. false for anything else. */
static bool decode_opcode(unsigned rex, uint8_t modrm_reg,
                          uint8_t opcode, uint8_t opcode2, struct insn *in,
                          unsigned *imm_bytes)
{
    bool w = rex & REX_W;

    in->size = 8;
    in->imm_src = true;
    *imm_bytes = 0;
    switch (opcode) {
    case 0x89: in->op = OP_MOV; in->imm_src = false; return w;
    case 0x87: in->op = OP_XCHG; in->imm_src = false; return w;
    case 0xc7: in->op = OP_MOV; *imm_bytes = 4; return w && modrm_reg == 0;
    case 0x80: in->size = 1; *imm_bytes = 1; break;
    case 0x81: *imm_bytes = 4; if (!w) return false; break;
    case 0x83: *imm_bytes = 1; if (!w) return false; break;
    case 0x0f:
        in->imm_src = opcode2 == 0xba;
        *imm_bytes = in->imm_src ? 1 : 0;
        if (!w)
            return false;
        switch (opcode2) {
        case 0xb1: in->op = OP_CMPXCHG; return true;
        case 0xab: in->op = OP_BTS; return true;
        case 0xb3: in->op = OP_BTR; return true;
        case 0xba:
            in->op = modrm_reg == 5 ? OP_BTS : OP_BTR;
            return modrm_reg == 5 || modrm_reg == 6;
        default: return false;
        }
    default:
        return false;
    }
    /* 80, 81, 83: ModRM.reg picks the operation. */
    in->op = modrm_reg == 1 ? OP_OR : OP_AND;
    return modrm_reg == 1 || modrm_reg == 4;
}

static bool decode(const uint8_t *bytes, unsigned n, struct cpu_regs *regs,
                   struct insn *in)
{
    struct cursor c = { bytes, n, 0, true };
    uint8_t b = next_byte(&c), opcode, opcode2 = 0, modrm;
    unsigned rex = 0, imm_bytes;
    bool rip_relative;

    /* lock, and the ds/cs/es/ss overrides, which change nothing in 64-bit
     * mode: a uniprocessor Linux patches its lock prefixes into ds. */
    while (b == 0xf0 || b == 0x3e || b == 0x2e || b == 0x26 || b == 0x36)
        b = next_byte(&c);
    if ((b & 0xf0) == 0x40) {            /* REX, right before the opcode */
        rex = b & 15;
        b = next_byte(&c);
    }
    opcode = b;
    if (opcode == 0x0f)
        opcode2 = next_byte(&c);
    modrm = next_byte(&c);
    if (!c.ok || !decode_opcode(rex, (modrm >> 3) & 7, opcode, opcode2, in,
                                &imm_bytes))
        return false;
    in->reg = ((modrm >> 3) & 7) | ((rex & REX_R) ? 8 : 0);
    if (!decode_mem(&c, rex, modrm, regs, &in->addr, &rip_relative))
        return false;
    in->imm = imm_bytes ? next_signed(&c, imm_bytes) : 0;
    if (!c.ok || c.pos > MAX_INSN)
        return false;
    in->len = c.pos;
    if (rip_relative)
        in->addr += regs->rip + in->len;
    if (in->op == OP_BTS || in->op == OP_BTR) {
        if (in->imm_src) {
            in->imm &= 63;               /* an immediate stays in the qword */
        } else {
            /* A register bit offset is signed and may reach other qwords. */
            int64_t offset = (int64_t)*gpr(regs, in->reg);

            in->addr += (uint64_t)((offset >> 6) * 8);
            in->imm = (uint64_t)offset & 63;
        }
    }
    return true;
}

/* The instruction at rip, as many of its 15 bytes as are mapped. */
static unsigned fetch(uint64_t rip, uint8_t *buf)
{
    unsigned first = 4096 - (unsigned)(rip & 0xfff);

    if (first > MAX_INSN)
        first = MAX_INSN;
    if (copy_from_guest(buf, rip, first))
        return 0;
    if (first < MAX_INSN && !copy_from_guest(buf + first, rip + first, MAX_INSN - first))
        return MAX_INSN;
    return first;
}

/* ---- Flags ----------------------------------------------------------------------- */

static uint64_t result_flags(uint64_t r, unsigned bits)
{
    uint64_t fl = 0;
    uint8_t low = (uint8_t)r;

    if (bits < 64)
        r &= (1ull << bits) - 1;
    if (!r)
        fl |= FL_ZF;
    if ((r >> (bits - 1)) & 1)
        fl |= FL_SF;
    low ^= low >> 4;
    low ^= low >> 2;
    low ^= low >> 1;
    if (!(low & 1))
        fl |= FL_PF;                     /* even parity of the low byte */
    return fl;
}

/* and, or: CF = OF = 0 (AF undefined: 0). */
static uint64_t logic_flags(uint64_t rflags, uint64_t r, unsigned bits)
{
    return (rflags & ~FL_ARITH) | result_flags(r, bits);
}

/* cmpxchg compares as `cmp`: rax - old. */
static uint64_t cmp_flags(uint64_t rflags, uint64_t a, uint64_t b)
{
    uint64_t r = a - b, fl = result_flags(r, 64);

    if (a < b)
        fl |= FL_CF;
    if (((a ^ b) & (a ^ r)) >> 63)
        fl |= FL_OF;
    if ((a ^ b ^ r) & 0x10)
        fl |= FL_AF;
    return (rflags & ~FL_ARITH) | fl;
}

/* ---- Emulation ---------------------------------------------------------------------- */

/*
 * Machine address of the PTE a store to va would change: va must be mapped
 * read-only (present, not writable) in the guest-kernel tables, by one of
 * the guest's frames that is an L1 table (strict: typed L1; default: last
 * checked as an L1, or any guest frame without mm_frames to tell).
 */
static uint64_t target_entry(uint64_t va)
{
    uint64_t l1e_maddr = mm_l1e_maddr(va), l1e, mfn;
    int level;

    if (l1e_maddr == MM_NO_ENTRY)
        return MM_NO_ENTRY;
    l1e = mm_read_entry(l1e_maddr);
    mfn = (l1e & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT;
    if ((l1e & (PTE_P | PTE_RW)) != PTE_P || !mm_guest_frame(mfn))
        return MM_NO_ENTRY;
    level = mm_table_level(mfn);
    if (level != MM_L1 && !(level == MM_ANY && !mm_frames))
        return MM_NO_ENTRY;
    return mfn * XEN_PAGE_SIZE + (va & 0xff8);
}

/* The new value of the entry and what the instruction leaves in rflags;
 * false if it writes nothing (a failed cmpxchg). */
static bool compute(const struct insn *in, uint64_t old, uint64_t src,
                    uint64_t rax, uint64_t *new, uint64_t *rflags)
{
    unsigned shift = (unsigned)(in->addr & 7) * 8;
    uint64_t r;

    switch (in->op) {
    case OP_MOV:
    case OP_XCHG:
        *new = src;
        return true;
    case OP_CMPXCHG:
        *rflags = cmp_flags(*rflags, rax, old);
        *new = src;
        return rax == old;
    case OP_BTS:
    case OP_BTR:
        *rflags = (*rflags & ~FL_CF) | ((old >> in->imm) & 1);
        *new = in->op == OP_BTS ? old | (1ull << in->imm) : old & ~(1ull << in->imm);
        return true;
    case OP_OR:
    case OP_AND:
        if (in->size == 1) {
            uint8_t byte = (uint8_t)(old >> shift);

            r = in->op == OP_OR ? (uint8_t)(byte | src) : (uint8_t)(byte & src);
            *rflags = logic_flags(*rflags, r, 8);
            *new = (old & ~(0xffull << shift)) | (r << shift);
        } else {
            r = in->op == OP_OR ? old | src : old & src;
            *rflags = logic_flags(*rflags, r, 64);
            *new = r;
        }
        return true;
    }
    return false;
}

static int execute(struct cpu_regs *regs, const struct insn *in, uint64_t pte)
{
    uint64_t old = mm_read_entry(pte), new = old, rflags = regs->rflags;
    uint64_t src = in->imm_src ? in->imm : *gpr(regs, in->reg);
    bool store = compute(in, old, src, regs->rax, &new, &rflags);

    if (store && new != old && mm_write_entry(pte, new, MM_L1, false))
        return -1;
    /* Only now, after the store went through, the registers. */
    if (in->op == OP_XCHG)
        *gpr(regs, in->reg) = old;
    if (in->op == OP_CMPXCHG && !store)
        regs->rax = old;
    regs->rflags = rflags;
    regs->rip += in->len;
    perch_shared.stats.ptwr_emulations++;
    return 0;
}

int ptwr_emulate(struct cpu_regs *regs, uint64_t fault_va, uint64_t error_code)
{
    uint8_t bytes[MAX_INSN];
    struct insn in;
    uint64_t pte;
    unsigned n;

    /* A write to a present page by the guest kernel (never guest user:
     * user code may not write page tables), with the assist enabled. */
    if (!(vm_assist_enabled & (1ull << VMASST_TYPE_writable_pagetables)) ||
        !vcpu0.in_kernel ||
        (error_code & (PF_PRESENT | PF_WRITE | PF_RESERVED | PF_FETCH)) !=
            (PF_PRESENT | PF_WRITE))
        return -1;
    pte = target_entry(fault_va);
    if (pte == MM_NO_ENTRY)
        return -1;
    n = fetch(regs->rip, bytes);
    if (!n || !decode(bytes, n, regs, &in))
        return -1;
    if (in.addr != fault_va || (in.size == 8 && (fault_va & 7)))
        return -1;
    return execute(regs, &in, pte);
}
