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
#include "../x86/insn.h"
#include "mm.h"

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

enum op { OP_MOV, OP_XCHG, OP_CMPXCHG, OP_BTS, OP_BTR, OP_OR, OP_AND };

/* A store of one of the forms above, as decoded. */
struct pte_store {
    enum op op;
    unsigned len;       /* bytes, prefixes and immediate included */
    unsigned size;      /* bytes accessed: 1 or 8 */
    bool imm_src;       /* source is imm, else register `reg` */
    unsigned reg;       /* ModRM.reg with REX.R */
    uint64_t imm;       /* sign-extended (bit number for bts/btr) */
    uint64_t addr;      /* the memory operand's effective address */
};

/* ---- Decoding ----------------------------------------------------------------- */

/* Which form the decoded instruction is (st->op, size, imm_src); false for
 * anything else. */
static bool store_form(const struct insn *d, struct pte_store *st)
{
    unsigned sub = d->reg & 7;     /* ModRM.reg as an opcode extension */

    st->size = 8;
    st->imm_src = true;
    if (d->map == INSN_MAP_0F) {
        if (!d->rex_w)
            return false;
        switch (d->opcode) {
        case 0xb1: st->op = OP_CMPXCHG; st->imm_src = false; return true;
        case 0xab: st->op = OP_BTS; st->imm_src = false; return true;
        case 0xb3: st->op = OP_BTR; st->imm_src = false; return true;
        case 0xba:
            st->op = sub == 5 ? OP_BTS : OP_BTR;
            return sub == 5 || sub == 6;
        default: return false;
        }
    }
    if (d->map != INSN_MAP_1)
        return false;
    switch (d->opcode) {
    case 0x89: st->op = OP_MOV; st->imm_src = false; return d->rex_w;
    case 0x87: st->op = OP_XCHG; st->imm_src = false; return d->rex_w;
    case 0xc7: st->op = OP_MOV; return d->rex_w && sub == 0;
    case 0x80: st->size = 1; break;
    case 0x81: case 0x83: if (!d->rex_w) return false; break;
    default: return false;
    }
    /* 80, 81, 83: ModRM.reg picks the operation. */
    st->op = sub == 1 ? OP_OR : OP_AND;
    return sub == 1 || sub == 4;
}

/*
 * The store in bytes[0 .. n), with its memory operand's address. Only lock
 * and the cs/ds/es/ss overrides (which change nothing in 64-bit mode: a
 * uniprocessor Linux patches its lock prefixes into ds) may come with it;
 * so no fs/gs base applies.
 */
static bool decode(const uint8_t *bytes, unsigned n, struct cpu_regs *regs,
                   struct pte_store *st)
{
    struct insn d;

    if (insn_decode(&d, bytes, n) || d.vex || d.opsize_prefix || d.addrsize_prefix ||
        d.rep || d.repne || d.seg == INSN_SEG_FS || d.seg == INSN_SEG_GS ||
        !d.has_memory_operand || !store_form(&d, st) ||
        !insn_memory_address(&d, regs, 0, 0, &st->addr))
        return false;
    st->len = d.length;
    st->reg = d.reg;
    st->imm = st->imm_src ? (uint64_t)d.immediate : 0;
    if (st->op == OP_BTS || st->op == OP_BTR) {
        if (st->imm_src) {
            st->imm &= 63;               /* an immediate stays in the qword */
        } else {
            /* A register bit offset is signed and may reach other qwords. */
            int64_t offset = (int64_t)*insn_gpr(regs, st->reg);

            st->addr += (uint64_t)((offset >> 6) * 8);
            st->imm = (uint64_t)offset & 63;
        }
    }
    return true;
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
    uint64_t l1e_maddr = guest_l1e_maddr(va, PTE_P), l1e, mfn;
    int level;

    if (l1e_maddr == GUEST_NO_ENTRY)
        return MM_NO_ENTRY;
    l1e = guest_read_entry(l1e_maddr);
    mfn = (l1e & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT;
    if ((l1e & (PTE_P | PTE_RW)) != PTE_P || !guest_owns_frame(mfn))
        return MM_NO_ENTRY;
    level = mm_table_level(mfn);
    if (level != MM_L1 && !(level == MM_ANY && !mm_frames))
        return MM_NO_ENTRY;
    return mfn * XEN_PAGE_SIZE + (va & 0xff8);
}

/* The new value of the entry and what the instruction leaves in rflags;
 * false if it writes nothing (a failed cmpxchg). */
static bool compute(const struct pte_store *in, uint64_t old, uint64_t src,
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

static int execute(struct cpu_regs *regs, const struct pte_store *in, uint64_t pte)
{
    uint64_t old = guest_read_entry(pte), new = old, rflags = regs->rflags;
    uint64_t src = in->imm_src ? in->imm : *insn_gpr(regs, in->reg);
    bool store = compute(in, old, src, regs->rax, &new, &rflags);

    if (store && new != old && mm_write_entry(pte, new, MM_L1, false))
        return -1;
    /* Only now, after the store went through, the registers. */
    if (in->op == OP_XCHG)
        *insn_gpr(regs, in->reg) = old;
    if (in->op == OP_CMPXCHG && !store)
        regs->rax = old;
    regs->rflags = rflags;
    regs->rip += in->len;
    return 0;
}

/* The store in bytes[0 .. n) at regs->rip, if it is one of the forms above
 * with a naturally aligned 64-bit access. */
static bool decode_store(const uint8_t *bytes, unsigned n, struct cpu_regs *regs,
                         struct pte_store *in)
{
    return decode(bytes, n, regs, in) && !(in->size == 8 && (in->addr & 7));
}

int ptwr_emulate(struct cpu_regs *regs, uint64_t fault_va, uint64_t error_code)
{
    uint8_t bytes[INSN_MAX_BYTES];
    struct pte_store in;
    uint64_t pte;
    unsigned n;

    /* A write to a present page by the guest kernel (never guest user:
     * user code may not write page tables), with the assist enabled. */
    if (!(vm_assist_enabled & (1ull << VMASST_TYPE_writable_pagetables)) ||
        !current->in_kernel ||
        (error_code & (PF_PRESENT | PF_WRITE | PF_RESERVED | PF_FETCH)) !=
            (PF_PRESENT | PF_WRITE))
        return -1;
    /* The cheap refusal first: most such faults are on no page table. */
    pte = target_entry(fault_va);
    if (pte == MM_NO_ENTRY)
        return -1;
    n = (unsigned)insn_fetch(regs->rip, bytes);
    if (!n || !decode_store(bytes, n, regs, &in) || in.addr != fault_va ||
        execute(regs, &in, pte))
        return -1;
    perch_shared.stats.ptwr_emulations++;
    return 0;
}

int ptwr_emulate_original(struct cpu_regs *regs, const uint8_t *bytes, unsigned n)
{
    struct pte_store in;
    uint64_t pte;

    if (!(vm_assist_enabled & (1ull << VMASST_TYPE_writable_pagetables)) ||
        !decode_store(bytes, n, regs, &in))
        return -1;
    pte = target_entry(in.addr);
    if (pte == MM_NO_ENTRY)
        return -1;
    return execute(regs, &in, pte);
}
