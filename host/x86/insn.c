/* The x86-64 instruction decoder: encodings to lengths and operands (insn.h). */
#include "insn.h"

/* ---- What each opcode of the one-byte map carries ------------------------ */

#define F_MODRM   0x001u
#define F_BYTE    0x002u   /* 8-bit operands */
#define F_I8      0x004u   /* an 8-bit immediate */
#define F_IZ      0x008u   /* 16 or 32 bits: the operand size, at most 4 */
#define F_IV      0x010u   /* 16, 32 or 64 bits: the operand size (mov r, imm) */
#define F_I16     0x020u   /* a 16-bit immediate (with F_I8 too: enter) */
#define F_MOFFS   0x040u   /* an absolute offset of the address size */
#define F_REL8    0x080u
#define F_REL32   0x100u
#define F_D64     0x200u   /* 64-bit operands by default (stack operations) */
#define F_BAD     0x400u   /* invalid in 64-bit mode */

#define ALU_ROW(n) \
    [(n) + 0] = F_MODRM | F_BYTE, [(n) + 1] = F_MODRM, \
    [(n) + 2] = F_MODRM | F_BYTE, [(n) + 3] = F_MODRM, \
    [(n) + 4] = F_I8 | F_BYTE, [(n) + 5] = F_IZ

/* Prefix bytes (26, 2e, 36, 3e, 40-4f, 64-67, f0, f2, f3) and the VEX
 * escapes (c4, c5) never reach this table; 0 is "no operands". */
static const uint16_t one_byte[256] = {
    ALU_ROW(0x00), ALU_ROW(0x08), ALU_ROW(0x10), ALU_ROW(0x18),
    ALU_ROW(0x20), ALU_ROW(0x28), ALU_ROW(0x30), ALU_ROW(0x38),
    [0x06] = F_BAD, [0x07] = F_BAD, [0x0e] = F_BAD, [0x16] = F_BAD,
    [0x17] = F_BAD, [0x1e] = F_BAD, [0x1f] = F_BAD, [0x27] = F_BAD,
    [0x2f] = F_BAD, [0x37] = F_BAD, [0x3f] = F_BAD,
    [0x50 ... 0x5f] = F_D64,                          /* push, pop */
    [0x60 ... 0x61] = F_BAD,
    [0x63] = F_MODRM,                                 /* movsxd */
    [0x68] = F_IZ | F_D64, [0x69] = F_MODRM | F_IZ,
    [0x6a] = F_I8 | F_D64, [0x6b] = F_MODRM | F_I8,
    [0x6c] = F_BYTE, [0x6e] = F_BYTE,                 /* ins, outs */
    [0x70 ... 0x7f] = F_REL8,                         /* jcc */
    [0x80] = F_MODRM | F_I8 | F_BYTE, [0x81] = F_MODRM | F_IZ,
    [0x82] = F_BAD, [0x83] = F_MODRM | F_I8,
    [0x84] = F_MODRM | F_BYTE, [0x85] = F_MODRM,      /* test */
    [0x86] = F_MODRM | F_BYTE, [0x87] = F_MODRM,      /* xchg */
    [0x88] = F_MODRM | F_BYTE, [0x89] = F_MODRM,      /* mov */
    [0x8a] = F_MODRM | F_BYTE, [0x8b] = F_MODRM,
    [0x8c ... 0x8e] = F_MODRM,                        /* mov sreg, lea */
    [0x8f] = F_MODRM | F_D64,                         /* pop r/m */
    [0x9a] = F_BAD, [0x9c] = F_D64, [0x9d] = F_D64,   /* pushf, popf */
    [0xa0] = F_MOFFS | F_BYTE, [0xa1] = F_MOFFS,
    [0xa2] = F_MOFFS | F_BYTE, [0xa3] = F_MOFFS,
    [0xa4] = F_BYTE, [0xa6] = F_BYTE,                 /* movs, cmps */
    [0xa8] = F_I8 | F_BYTE, [0xa9] = F_IZ,            /* test */
    [0xaa] = F_BYTE, [0xac] = F_BYTE, [0xae] = F_BYTE,   /* stos, lods, scas */
    [0xb0 ... 0xb7] = F_I8 | F_BYTE, [0xb8 ... 0xbf] = F_IV,
    [0xc0] = F_MODRM | F_I8 | F_BYTE, [0xc1] = F_MODRM | F_I8,
    [0xc2] = F_I16 | F_D64, [0xc3] = F_D64,           /* ret */
    [0xc6] = F_MODRM | F_I8 | F_BYTE, [0xc7] = F_MODRM | F_IZ,
    [0xc8] = F_I16 | F_I8 | F_D64, [0xc9] = F_D64,    /* enter, leave */
    [0xca] = F_I16, [0xcd] = F_I8, [0xce] = F_BAD,
    [0xd0] = F_MODRM | F_BYTE, [0xd1] = F_MODRM,
    [0xd2] = F_MODRM | F_BYTE, [0xd3] = F_MODRM,
    [0xd4 ... 0xd6] = F_BAD,
    [0xd8 ... 0xdf] = F_MODRM,                        /* x87 */
    [0xe0 ... 0xe3] = F_REL8,                         /* loop, jrcxz */
    [0xe4] = F_I8 | F_BYTE, [0xe5] = F_I8,            /* in, out imm8 */
    [0xe6] = F_I8 | F_BYTE, [0xe7] = F_I8,
    [0xe8] = F_REL32 | F_D64, [0xe9] = F_REL32,       /* call, jmp */
    [0xea] = F_BAD, [0xeb] = F_REL8,
    [0xec] = F_BYTE, [0xee] = F_BYTE,                 /* in, out dx */
    [0xf6] = F_MODRM | F_BYTE, [0xf7] = F_MODRM,      /* group 3 */
    [0xfe] = F_MODRM | F_BYTE, [0xff] = F_MODRM,      /* groups 4, 5 */
};

/* The 0f map: most opcodes have a ModRM byte and no immediate. */
static unsigned two_byte(uint8_t op)
{
    switch (op) {
    case 0x04: case 0x0a: case 0x0c: case 0x24 ... 0x27: case 0x36:
    case 0x39: case 0x3b ... 0x3f: case 0x7a: case 0x7b: case 0xa6: case 0xa7:
        return F_BAD;
    case 0x05 ... 0x09: case 0x0b: case 0x0e:   /* syscall, clts, wbinvd, ud2 */
    case 0x30 ... 0x35: case 0x37:              /* wrmsr, rdtsc, rdmsr, ... */
    case 0x77:                                  /* emms */
    case 0xa0 ... 0xa2: case 0xa8 ... 0xaa:     /* push/pop fs/gs, cpuid */
    case 0xc8 ... 0xcf:                         /* bswap */
        return 0;
    case 0x80 ... 0x8f:                         /* jcc rel32 */
        return F_REL32;
    case 0x0f:                                  /* 3DNow!: the opcode follows */
    case 0x70 ... 0x73:                         /* pshuf*, shifts by imm */
    case 0xa4: case 0xac: case 0xba:            /* shld, shrd, bt* imm */
    case 0xc2: case 0xc4 ... 0xc6:              /* cmpps, pinsrw, pextrw, shufps */
        return F_MODRM | F_I8;
    case 0x90 ... 0x9f:                         /* setcc */
    case 0xb0: case 0xc0:                       /* cmpxchg, xadd: 8-bit */
        return F_MODRM | F_BYTE;
    default:
        return F_MODRM;
    }
}

/* VEX-encoded opcodes: ModRM always but for vzeroupper/vzeroall (0f 77);
 * an immediate for the 0f3a map and the 0f forms that have one in SSE. */
static unsigned vex_flags(unsigned map, uint8_t op)
{
    if (map == INSN_MAP_0F3A)
        return F_MODRM | F_I8;
    if (map == INSN_MAP_0F38)
        return F_MODRM;
    if (op == 0x77)
        return 0;
    if ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))
        return F_MODRM | F_I8;
    return F_MODRM;
}

/* ---- Reading the bytes ------------------------------------------------------ */

struct cursor {
    const uint8_t *bytes;
    size_t len, pos;
    size_t want;      /* the end of the bytes last found missing */
};

/* Are the next n bytes there? If not, remember how far it had to read. */
static bool more(struct cursor *c, size_t n)
{
    if (c->pos + n <= c->len)
        return true;
    c->want = c->pos + n;
    return false;
}

/* n little-endian bytes (n <= 8, all present), sign-extended. */
static int64_t take_signed(struct cursor *c, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)c->bytes[c->pos + i] << (8 * i);
    c->pos += n;
    if (n && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    return (int64_t)v;
}

/* ---- Decoding -------------------------------------------------------------------- */

/* Legacy prefixes and REX; a REX counts only right before the opcode. */
static void prefixes(struct insn *in, struct cursor *c)
{
    static const uint8_t seg_of[8] = {
        INSN_SEG_ES, INSN_SEG_CS, INSN_SEG_SS, INSN_SEG_DS,
    };

    while (more(c, 1)) {
        uint8_t b = c->bytes[c->pos];

        if ((b & 0xf0) == 0x40) {
            in->rex = b;
            c->pos++;
            continue;
        }
        switch (b) {
        case 0x26: case 0x2e: case 0x36: case 0x3e:
            in->seg = seg_of[(b >> 3) & 3];
            break;
        case 0x64: in->seg = INSN_SEG_FS; break;
        case 0x65: in->seg = INSN_SEG_GS; break;
        case 0x66: in->opsize_prefix = true; break;
        case 0x67: in->addrsize_prefix = true; break;
        case 0xf0: in->lock = true; break;
        case 0xf2: in->repne = true, in->rep = false; break;
        case 0xf3: in->rep = true, in->repne = false; break;
        default:
            return;
        }
        in->rex = 0;
        c->pos++;
    }
}

static void set_rex_bits(struct insn *in, unsigned wrxb)
{
    in->rex_w = wrxb & 8;
    in->rex_r = wrxb & 4;
    in->rex_x = wrxb & 2;
    in->rex_b = wrxb & 1;
}

/* VEX (c4 RXBmmmmm WvvvvLpp, or c5 RvvvvLpp); the R, X, B and vvvv bits
 * are stored inverted. */
static int vex_prefix(struct insn *in, struct cursor *c)
{
    uint8_t escape = c->bytes[c->pos];
    unsigned need = escape == 0xc4 ? 3 : 2, last;

    if (!more(c, need + 1))
        return INSN_TRUNCATED;
    if (in->rex || in->opsize_prefix || in->rep || in->repne || in->lock)
        return INSN_INVALID;           /* #UD before a VEX */
    in->vex = true;
    if (escape == 0xc5) {
        set_rex_bits(in, (~c->bytes[c->pos + 1] >> 5) & 4);
        in->map = INSN_MAP_0F;
    } else {
        uint8_t b1 = c->bytes[c->pos + 1];
        unsigned mmmmm = b1 & 0x1f;

        if (mmmmm < 1 || mmmmm > 3)
            return INSN_INVALID;
        set_rex_bits(in, ((~b1 >> 5) & 7) | ((c->bytes[c->pos + 2] >> 4) & 8));
        in->map = (uint8_t)mmmmm;      /* 1, 2, 3: INSN_MAP_0F .. 0F3A */
    }
    last = c->bytes[c->pos + need - 1];
    in->vex_vvvv = (~last >> 3) & 15;
    in->vex_l = (last >> 2) & 1;
    in->vex_pp = last & 3;
    c->pos += need;
    in->opcode = c->bytes[c->pos++];
    return 0;
}

/* EVEX (62 RXBR'0mmm Wvvvv1pp zL'LbV'aaa): VEX's fields and more, which
 * change no length (a compressed disp8 is still one byte). Maps 1-3 only. */
static int evex_prefix(struct insn *in, struct cursor *c)
{
    const uint8_t *p = c->bytes + c->pos + 1;

    if (!more(c, 5))
        return INSN_TRUNCATED;
    if (in->rex || in->opsize_prefix || in->rep || in->repne || in->lock)
        return INSN_INVALID;
    if ((p[0] & 7) < 1 || (p[0] & 7) > 3 || (p[0] & 8) || !(p[1] & 4))
        return INSN_INVALID;
    in->vex = in->evex = true;
    in->map = p[0] & 3;
    set_rex_bits(in, ((~p[0] >> 5) & 7) | ((p[1] >> 4) & 8));
    in->vex_vvvv = (~p[1] >> 3) & 15;
    in->vex_pp = p[1] & 3;
    in->vex_l = (p[2] >> 5) & 3;
    c->pos += 4;
    in->opcode = c->bytes[c->pos++];
    return 0;
}

/* ModRM, SIB and displacement. */
static int modrm(struct insn *in, struct cursor *c, bool register_only)
{
    if (!more(c, 1))
        return INSN_TRUNCATED;
    in->has_modrm = true;
    in->modrm = c->bytes[c->pos++];
    in->mod = in->modrm >> 6;
    in->reg = ((in->modrm >> 3) & 7) | (in->rex_r ? 8 : 0);
    in->rm = (in->modrm & 7) | (in->rex_b ? 8 : 0);
    if (in->mod == 3 || register_only)
        return 0;
    in->has_memory_operand = true;
    in->scale = 1;
    in->index = INSN_REG_NONE;
    in->base = in->rm;
    if ((in->modrm & 7) == 4) {
        unsigned index;

        if (!more(c, 1))
            return INSN_TRUNCATED;
        in->has_sib = true;
        in->sib = c->bytes[c->pos++];
        in->scale = (uint8_t)(1u << (in->sib >> 6));
        index = ((in->sib >> 3) & 7) | (in->rex_x ? 8 : 0);
        in->index = index == 4 && !in->vsib ? INSN_REG_NONE : (uint8_t)index;
        in->base = (in->sib & 7) | (in->rex_b ? 8 : 0);
        if ((in->sib & 7) == 5 && in->mod == 0) {
            in->base = INSN_REG_NONE;
            in->disp_size = 4;
        }
    } else if ((in->modrm & 7) == 5 && in->mod == 0) {
        in->base = INSN_REG_RIP;
        in->disp_size = 4;
    }
    if (in->mod == 1)
        in->disp_size = 1;
    else if (in->mod == 2)
        in->disp_size = 4;
    if (!more(c, in->disp_size))
        return INSN_TRUNCATED;
    in->displacement = take_signed(c, in->disp_size);
    return 0;
}

/* What the opcode reaches through rsi, rdi and the stack. */
static void implicit_operands(struct insn *in)
{
    unsigned op = in->opcode, sub = in->reg & 7;
    uint8_t imp = 0;

    if (in->vex)
        return;
    if (in->map == INSN_MAP_0F) {
        if (op == 0xa0 || op == 0xa8)
            imp = INSN_IMPLICIT_PUSH;            /* push fs, gs */
        else if (op == 0xa1 || op == 0xa9)
            imp = INSN_IMPLICIT_POP;             /* pop fs, gs */
    } else if (in->map == INSN_MAP_1) {
        switch (op) {
        case 0xa4: case 0xa5: case 0xa6: case 0xa7:   /* movs, cmps */
            imp = INSN_IMPLICIT_RSI | INSN_IMPLICIT_RDI;
            break;
        case 0xac: case 0xad: case 0x6e: case 0x6f:   /* lods, outs */
            imp = INSN_IMPLICIT_RSI;
            break;
        case 0xaa: case 0xab: case 0xae: case 0xaf:   /* stos, scas */
        case 0x6c: case 0x6d:                         /* ins */
            imp = INSN_IMPLICIT_RDI;
            break;
        case 0x50 ... 0x57: case 0x68: case 0x6a: case 0x9c:
        case 0xc8: case 0xe8:                         /* push, enter, call */
            imp = INSN_IMPLICIT_PUSH;
            break;
        case 0x58 ... 0x5f: case 0x8f: case 0x9d: case 0xc2: case 0xc3:
        case 0xc9: case 0xca: case 0xcb: case 0xcf:   /* pop, ret, leave, iret */
            imp = INSN_IMPLICIT_POP;
            break;
        case 0xff:                                    /* call, push r/m */
            if (sub == 2 || sub == 3 || sub == 6)
                imp = INSN_IMPLICIT_PUSH;
            break;
        }
    }
    in->implicit = imp;
    if (imp & (INSN_IMPLICIT_PUSH | INSN_IMPLICIT_POP))
        in->stack_bytes = in->operand_size == 2 ? 2 : 8;
}

int insn_decode(struct insn *out, const uint8_t *bytes, size_t len)
{
    /* Bytes past the 15th never count: the CPU stops there. */
    struct cursor c = { bytes, len < INSN_MAX_BYTES ? len : INSN_MAX_BYTES, 0, 0 };
    struct insn in = { .base = INSN_REG_NONE, .index = INSN_REG_NONE };
    unsigned flags, imm = 0;
    int rc;

    prefixes(&in, &c);
    if (!more(&c, 1))
        goto short_of_bytes;
    set_rex_bits(&in, in.rex & 15);
    if (c.bytes[c.pos] == 0xc4 || c.bytes[c.pos] == 0xc5 || c.bytes[c.pos] == 0x62) {
        rc = c.bytes[c.pos] == 0x62 ? evex_prefix(&in, &c) : vex_prefix(&in, &c);
        if (rc == INSN_TRUNCATED)
            goto short_of_bytes;
        if (rc)
            return rc;
        /* Gathers (and EVEX's scatters) index with a vector register. */
        in.vsib = in.map == INSN_MAP_0F38 &&
                  ((in.opcode >= 0x90 && in.opcode <= 0x93) ||
                   (in.evex && in.opcode >= 0xa0 && in.opcode <= 0xa3));
        flags = vex_flags(in.map, in.opcode);
    } else {
        in.opcode = c.bytes[c.pos++];
        in.map = INSN_MAP_1;
        flags = one_byte[in.opcode];
        if (in.opcode == 0x0f) {
            if (!more(&c, 1))
                goto short_of_bytes;
            in.opcode = c.bytes[c.pos++];
            in.map = INSN_MAP_0F;
            flags = two_byte(in.opcode);
            if (in.opcode == 0x38 || in.opcode == 0x3a) {
                if (!more(&c, 1))
                    goto short_of_bytes;
                in.map = in.opcode == 0x38 ? INSN_MAP_0F38 : INSN_MAP_0F3A;
                in.opcode = c.bytes[c.pos++];
                flags = F_MODRM | (in.map == INSN_MAP_0F3A ? F_I8 : 0);
            }
        }
    }
    if (flags & F_BAD)
        return INSN_INVALID;
    /* 8f with a ModRM reg other than 0 is AMD's XOP escape. */
    if (in.map == INSN_MAP_1 && in.opcode == 0x8f && more(&c, 1) &&
        (c.bytes[c.pos] & 0x38))
        return INSN_INVALID;

    in.address_size = in.addrsize_prefix ? 4 : 8;
    if (flags & F_BYTE)
        in.operand_size = 1;
    else if (in.rex_w)
        in.operand_size = 8;
    else if (in.opsize_prefix && !in.vex)
        in.operand_size = 2;
    else
        in.operand_size = (flags & F_D64) ? 8 : 4;

    if (flags & F_MODRM) {
        /* mov to/from control and debug registers: always registers. */
        bool register_only = in.map == INSN_MAP_0F && in.opcode >= 0x20 && in.opcode <= 0x23;

        if (modrm(&in, &c, register_only))
            goto short_of_bytes;
        /* Group 5's call and push, group 1a's pop: 64-bit by default. */
        if (in.map == INSN_MAP_1 && in.opcode == 0xff && !in.rex_w && !in.opsize_prefix &&
            ((in.reg & 7) == 2 || (in.reg & 7) == 4 || (in.reg & 7) == 6))
            in.operand_size = 8;
        /* Group 3's test has an immediate; its other members do not. */
        if (in.map == INSN_MAP_1 && (in.opcode == 0xf6 || in.opcode == 0xf7) &&
            (in.reg & 7) < 2)
            flags |= in.opcode == 0xf6 ? F_I8 : F_IZ;
    }

    if (flags & F_MOFFS) {
        in.has_memory_operand = true;
        in.scale = 1;
        in.disp_size = in.address_size;
        if (!more(&c, in.disp_size))
            goto short_of_bytes;
        in.displacement = take_signed(&c, in.disp_size);
    }
    if (flags & F_I16)
        imm = 2;
    else if (flags & F_I8)
        imm = 1;
    else if (flags & F_IZ)
        imm = in.operand_size == 2 ? 2 : 4;
    else if (flags & F_IV)
        imm = in.operand_size;
    else if (flags & F_REL8)
        imm = 1;
    else if (flags & F_REL32)
        imm = 4;
    in.relative = flags & (F_REL8 | F_REL32);
    if (!more(&c, imm))
        goto short_of_bytes;
    in.imm_size = (uint8_t)imm;
    in.immediate = take_signed(&c, imm);
    if ((flags & F_I16) && (flags & F_I8)) {      /* enter iw, ib */
        if (!more(&c, 1))
            goto short_of_bytes;
        in.immediate2 = c.bytes[c.pos++];
    }
    in.length = (uint8_t)c.pos;
    implicit_operands(&in);
    *out = in;
    return 0;

short_of_bytes:
    return c.want > INSN_MAX_BYTES ? INSN_TOO_LONG : INSN_TRUNCATED;
}

/* ---- Registers and addresses ---------------------------------------------------- */

uint64_t *insn_gpr(struct cpu_regs *regs, unsigned reg)
{
    uint64_t *const map[16] = {
        &regs->rax, &regs->rcx, &regs->rdx, &regs->rbx,
        &regs->rsp, &regs->rbp, &regs->rsi, &regs->rdi,
        &regs->r8, &regs->r9, &regs->r10, &regs->r11,
        &regs->r12, &regs->r13, &regs->r14, &regs->r15,
    };

    return map[reg & 15];
}

static uint64_t read_gpr(const struct cpu_regs *regs, unsigned reg)
{
    return *insn_gpr((struct cpu_regs *)regs, reg);
}

/* 64-bit mode: only fs and gs have a base. */
static uint64_t segment_base(unsigned seg, uint64_t fs_base, uint64_t gs_base)
{
    return seg == INSN_SEG_FS ? fs_base : seg == INSN_SEG_GS ? gs_base : 0;
}

static uint64_t address_sized(const struct insn *in, uint64_t a)
{
    return in->address_size == 4 ? (uint32_t)a : a;
}

bool insn_memory_address(const struct insn *in, const struct cpu_regs *regs,
                         uint64_t fs_base, uint64_t gs_base, uint64_t *va)
{
    uint64_t a = (uint64_t)in->displacement;

    if (!in->has_memory_operand || in->vsib)
        return false;
    if (in->base == INSN_REG_RIP)
        a += regs->rip + in->length;
    else if (in->base != INSN_REG_NONE)
        a += read_gpr(regs, in->base);
    if (in->index != INSN_REG_NONE)
        a += read_gpr(regs, in->index) * in->scale;
    *va = address_sized(in, a) + segment_base(in->seg, fs_base, gs_base);
    return true;
}

bool insn_implicit_address(const struct insn *in, const struct cpu_regs *regs,
                           uint64_t fs_base, uint64_t gs_base, unsigned which,
                           uint64_t *va)
{
    if (!(in->implicit & which))
        return false;
    switch (which) {
    case INSN_IMPLICIT_RSI:
        *va = address_sized(in, regs->rsi) + segment_base(in->seg, fs_base, gs_base);
        return true;
    case INSN_IMPLICIT_RDI:
        *va = address_sized(in, regs->rdi);
        return true;
    case INSN_IMPLICIT_PUSH:
        *va = regs->rsp - in->stack_bytes;
        return true;
    case INSN_IMPLICIT_POP:
        *va = in->map == INSN_MAP_1 && in->opcode == 0xc9 ? regs->rbp : regs->rsp;
        return true;
    default:
        return false;
    }
}

size_t insn_fetch(uint64_t rip, uint8_t bytes[INSN_MAX_BYTES])
{
    size_t first = 4096 - (rip & 0xfff);

    if (first > INSN_MAX_BYTES)
        first = INSN_MAX_BYTES;
    if (copy_from_guest(bytes, rip, first))
        return 0;
    if (first < INSN_MAX_BYTES &&
        !copy_from_guest(bytes + first, rip + first, INSN_MAX_BYTES - first))
        return INSN_MAX_BYTES;
    return first;
}
