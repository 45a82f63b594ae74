/*
 * A forward scan of the guest kernel's code for r11: is the value it holds
 * at an address ever read? Conservative by construction: every
 * instruction is put in one of the classes below from its decoded form
 * (host/x86/insn.c), and whatever is not known to be harmless ends the scan
 * with "it may be read".
 */
#include "insn_liveness.h"

#include "../core/host.h"
#include "insn.h"

#define SCAN_INSNS 1024  /* instructions over all paths */
#define SCAN_PATHS 64    /* branch targets still to follow */
#define SCAN_SEEN  256   /* path starts remembered, so loops end */
#define R11        11

enum use { NEUTRAL, READS, WRITES, RETURNS, JUMPS, BRANCHES, UNKNOWN };

/* The register an opcode names in its low three bits (push, pop, mov
 * $imm, xchg with rax, bswap), with REX.B. */
static unsigned opcode_register(const struct insn *d)
{
    return (d->opcode & 7u) | (d->rex_b ? 8u : 0u);
}

static bool opcode_names_register(const struct insn *d)
{
    uint8_t op = d->opcode;

    if (d->map == INSN_MAP_0F)
        return op >= 0xc8 && op <= 0xcf;
    return d->map == INSN_MAP_1 &&
           ((op >= 0x50 && op <= 0x5f) || (op >= 0x90 && op <= 0x97) ||
            (op >= 0xb0 && op <= 0xbf));
}

/* Does the ModRM r/m operand (a register, or a memory operand's base and
 * index) name reg? */
static bool rm_names(const struct insn *d, unsigned reg)
{
    if (!d->has_modrm)
        return false;
    if (d->mod == 3)
        return d->rm == reg;
    return d->base == reg || d->index == reg;
}

/* Any mention of reg at all: ModRM.reg (even as an opcode extension, which
 * errs on the safe side), r/m, or the opcode's own register. */
static bool names(const struct insn *d, unsigned reg)
{
    if (d->has_modrm && d->reg == reg)
        return true;
    if (rm_names(d, reg))
        return true;
    return opcode_names_register(d) && opcode_register(d) == reg;
}

static bool reads_r11(uint64_t target)
{
    if (__atomic_load_n(&perch_shared.boot.kernel_symbols, __ATOMIC_ACQUIRE) != PERCH_SYMBOLS_READ)
        return true;
    for (unsigned i = 0; i < 4; i++)
        if (perch_shared.boot.r11_readers[i] && perch_shared.boot.r11_readers[i] == target)
            return true;
    return false;
}

/* Forms that write all of reg (a 32-bit write zero-extends) from something
 * else: mov, movzx, movsx, movsxd, lea, mov $imm, pop, and xor/sub of reg
 * with itself. */
static bool overwrites(const struct insn *d, unsigned reg)
{
    uint8_t op = d->opcode;
    bool wide = d->operand_size >= 4;

    if (d->map == INSN_MAP_0F)
        return wide && (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf) &&
               d->reg == reg && !rm_names(d, reg);
    if (d->map != INSN_MAP_1)
        return false;
    switch (op) {
    case 0x8b: case 0x8d: case 0x63:
        return wide && d->reg == reg && !rm_names(d, reg);
    case 0xc7:
        return wide && (d->reg & 7) == 0 && d->mod == 3 && d->rm == reg;
    case 0x29: case 0x2b: case 0x31: case 0x33:
        return wide && d->mod == 3 && d->reg == reg && d->rm == reg;
    default:
        if (op >= 0xb8 && op <= 0xbf)
            return wide && opcode_register(d) == reg;
        if (op >= 0x58 && op <= 0x5f)
            return opcode_register(d) == reg;
        return false;
    }
}

/*
 * Is the instruction at `at` a jump label, a jmp or a nop Linux turns into
 * the other when its key changes? 1 with the jump's target, 0 if the table
 * does not list it, -1 if there is no table to tell.
 */
static int jump_label_at(uint64_t at, uint64_t *target)
{
    uint64_t start = perch_shared.boot.jump_table_start, end = perch_shared.boot.jump_table_end;
    struct { int32_t code, target; int64_t key; } e[32];

    if (!start || end < start || (end - start) % sizeof(e[0]) || end - start > (1u << 22))
        return -1;
    for (uint64_t va = start; va < end; va += sizeof(e)) {
        uint64_t n = end - va < sizeof(e) ? (end - va) / sizeof(e[0]) : 32;

        if (copy_from_guest(e, va, n * sizeof(e[0])))
            return -1;
        for (unsigned i = 0; i < n; i++) {
            uint64_t entry = va + i * sizeof(e[0]);

            if (entry + (uint64_t)(int64_t)e[i].code == at) {
                *target = entry + 4 + (uint64_t)(int64_t)e[i].target;
                return 1;
            }
        }
    }
    return 0;
}

/* A nop or jmp that may be a jump label: a branch both ways if it is one. */
static enum use maybe_jump_label(uint64_t at, enum use otherwise, uint64_t *target)
{
    switch (jump_label_at(at, target)) {
    case 1: return BRANCHES;
    case 0: return otherwise;
    default: return UNKNOWN;
    }
}

/* Control transfers and what may hide one; *target is a branch's. */
static enum use control(const struct insn *d, uint64_t at, unsigned reg, uint64_t *target)
{
    uint8_t op = d->opcode, sub = d->reg & 7;

    if (d->map == INSN_MAP_0F) {
        if (op >= 0x80 && op <= 0x8f)
            return BRANCHES;
        /* 0f 1f: a multi-byte nop, a jump label's perhaps; syscall,
         * sysret, the system group. ud2 is Linux's WARN (the handler
         * prints the registers and goes on after it) or BUG (nothing
         * runs after it): either way the scan may go on past it. */
        if (op == 0x1f)
            return maybe_jump_label(at, NEUTRAL, target);
        if (op == 0x05 || op == 0x07 || op == 0x01)
            return UNKNOWN;
        return NEUTRAL;
    }
    if (d->map != INSN_MAP_1)
        return NEUTRAL;
    if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
        return BRANCHES;
    switch (op) {
    case 0xc3: case 0xc2: return RETURNS;
    case 0xe9: case 0xeb: return maybe_jump_label(at, JUMPS, target);
    case 0xe8: return reads_r11(*target) ? READS : WRITES;
    case 0x90:                         /* 66 90: a 2-byte jump label's nop */
        return d->opsize_prefix ? maybe_jump_label(at, NEUTRAL, target) : NEUTRAL;
    case 0xcc: case 0xcd: case 0xce: case 0xcf: case 0xf1: case 0xf4:
    case 0xca: case 0xcb: case 0xea: case 0x9a:
        return UNKNOWN;
    case 0xff:
        if (sub == 2)                  /* indirect call: an ABI call */
            return names(d, reg) ? READS : WRITES;
        if (sub == 3 || sub == 4 || sub == 5)
            return UNKNOWN;            /* far call, indirect jumps */
        return NEUTRAL;
    default:
        return NEUTRAL;
    }
}

static enum use classify(const struct insn *d, uint64_t at, unsigned reg, uint64_t *target)
{
    enum use c;

    if (d->vex)
        return UNKNOWN;
    c = control(d, at, reg, target);
    if (c != NEUTRAL)
        return c;
    if (overwrites(d, reg))
        return WRITES;
    return names(d, reg) ? READS : NEUTRAL;
}

struct scan {
    uint64_t todo[SCAN_PATHS], seen[SCAN_SEEN];
    unsigned nr_todo, nr_seen, budget;
};

static bool seen_before(struct scan *s, uint64_t at)
{
    for (unsigned i = 0; i < s->nr_seen; i++)
        if (s->seen[i] == at)
            return true;
    return false;
}

/* Queue a path start; false when the scan's bounds are reached. */
static bool follow(struct scan *s, uint64_t at)
{
    if (seen_before(s, at))
        return true;
    if (s->nr_todo == SCAN_PATHS || s->nr_seen == SCAN_SEEN)
        return false;
    s->seen[s->nr_seen++] = at;
    s->todo[s->nr_todo++] = at;
    return true;
}

static bool in_text(uint64_t at)
{
    return at >= perch_shared.boot.kernel_text_start &&
           at + INSN_MAX_BYTES <= perch_shared.boot.kernel_text_end;
}

/* One path from `at`: true if it ends without reading reg. */
static bool path_is_dead(struct scan *s, uint64_t at, unsigned reg)
{
    for (;;) {
        uint8_t bytes[INSN_MAX_BYTES];
        struct insn d;
        uint64_t next, target;

        if (!in_text(at) || !s->budget--)
            return false;
        if (insn_decode(&d, bytes, insn_fetch(at, bytes)))
            return false;
        next = at + d.length;
        target = next + (uint64_t)d.immediate;
        switch (classify(&d, at, reg, &target)) {
        case NEUTRAL: break;
        case READS: case UNKNOWN: return false;
        case WRITES: case RETURNS: return true;
        case JUMPS: return follow(s, target);
        case BRANCHES:
            if (!follow(s, target))
                return false;
            break;
        }
        if (seen_before(s, next))
            return true;               /* the rest is another path's */
        at = next;
    }
}

bool insn_r11_dead_after(uint64_t from)
{
    struct scan s = { .budget = SCAN_INSNS };

    if (!follow(&s, from))
        return false;
    while (s.nr_todo)
        if (!path_is_dead(&s, s.todo[--s.nr_todo], R11))
            return false;
    return true;
}
