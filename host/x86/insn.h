/*
 * The Host's one x86-64 instruction decoder (host/x86/insn.c): lengths and
 * operands of 64-bit-mode instructions, for privileged-instruction
 * emulation (host/cpu/emulate.c), the writable-page-table assist (host/mm/ptwr.c)
 * and whoever needs to know what memory an instruction touches.
 *
 * insn_decode() only reads bytes: it knows the encoding (legacy prefixes,
 * REX, VEX, EVEX, the one-byte, 0F, 0F38 and 0F3A maps, ModRM, SIB, displacement
 * and immediate sizes), not what an instruction does. What it reports:
 *
 *   length                  every byte, prefixes and immediates included
 *   map, opcode             INSN_MAP_*, and the opcode byte in that map
 *   modrm, mod, reg, rm     with REX.R / REX.B (or VEX's) folded into reg
 *                           and rm, so both are 0-15
 *   has_memory_operand      ModRM names memory (mod != 3), or a moffs form
 *                           (a0-a3): then base, index, scale, displacement
 *                           give its address; insn_memory_address() adds it
 *                           up with the segment base
 *   implicit, stack_bytes   memory the instruction reaches without ModRM:
 *                           string instructions through rsi and rdi, stack
 *                           operations through rsp; insn_implicit_address()
 *                           gives each address
 *   operand_size            1, 2, 4 or 8: the operand-size attribute (REX.W,
 *                           0x66, byte forms, the 64-bit default of stack
 *                           operations). For SSE/AVX forms 66/F2/F3 are
 *                           mandatory prefixes, and the vector width is
 *                           vex_l's, not this
 *   immediate, imm_size     sign-extended from imm_size bytes (cast to the
 *                           width an unsigned one needs, e.g. a port byte);
 *                           relative branches have `relative` set
 *
 * Not modelled: XOP (8f with a map) encodings and EVEX maps other than
 * 0f, 0f38, 0f3a, which fail; EVEX's masking and broadcast bits;
 * the SSE4a extrq/insertq immediates; 16-bit near branches (0x66 on a
 * jmp/call rel32, which Intel CPUs ignore in 64-bit mode, is taken as
 * ignored). A VSIB operand (AVX2 gathers) sets vsib: its index is a vector
 * register, so insn_memory_address() refuses it.
 */
#ifndef PERCH_HOST_INSN_H
#define PERCH_HOST_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/host.h"

#define INSN_MAX_BYTES 15

/* insn_decode()'s failures. */
#define INSN_TRUNCATED (-1)   /* the bytes end before the instruction does */
#define INSN_INVALID   (-2)   /* not an instruction of 64-bit mode it knows */
#define INSN_TOO_LONG  (-3)   /* more than 15 bytes: the CPU's #GP */

enum insn_map { INSN_MAP_1, INSN_MAP_0F, INSN_MAP_0F38, INSN_MAP_0F3A };

/* A segment override prefix; the last one counts. */
enum insn_seg {
    INSN_SEG_NONE, INSN_SEG_ES, INSN_SEG_CS, INSN_SEG_SS, INSN_SEG_DS,
    INSN_SEG_FS, INSN_SEG_GS,
};

/* base and index: a register 0-15 (the x86 numbering: rax, rcx, rdx, rbx,
 * rsp, rbp, rsi, rdi, r8 .. r15), or one of these. */
#define INSN_REG_NONE 0xff    /* no base (SIB base 5 with mod 0), no index */
#define INSN_REG_RIP  0x10    /* base: rip-relative, from the next instruction */

/* implicit: memory reached without a ModRM operand. */
#define INSN_IMPLICIT_RSI  (1u << 0)  /* seg:[rsi], ds unless overridden:
                                       * movs, cmps, lods, outs */
#define INSN_IMPLICIT_RDI  (1u << 1)  /* es:[rdi], never overridden:
                                       * movs, cmps, stos, scas, ins */
#define INSN_IMPLICIT_PUSH (1u << 2)  /* stack_bytes written at rsp -
                                       * stack_bytes: push, call, pushf,
                                       * enter (its first slot) */
#define INSN_IMPLICIT_POP  (1u << 3)  /* stack_bytes read at rsp (leave: at
                                       * rbp): pop, ret, popf, iret (its
                                       * first slot), leave */

struct insn {
    uint8_t length;
    uint8_t map;              /* enum insn_map */
    uint8_t opcode;

    /* Prefixes. */
    bool lock, rep, repne;    /* f0, f3, f2 (the last of f2/f3 counts) */
    bool opsize_prefix;       /* 66 */
    bool addrsize_prefix;     /* 67 */
    uint8_t seg;              /* enum insn_seg */
    uint8_t rex;              /* the REX byte in effect (0x40-0x4f), or 0 */
    bool rex_w, rex_r, rex_x, rex_b;   /* from REX or VEX */
    bool vex;                 /* c4/c5, or 62 (evex too): then vex_* hold
                               * its other fields */
    bool evex;
    uint8_t vex_l, vex_pp, vex_vvvv;   /* vex_l: 0-2 with EVEX (L'L) */

    /* ModRM and the memory operand. */
    bool has_modrm;
    uint8_t modrm, mod, reg, rm;
    bool has_sib;
    uint8_t sib;
    bool has_memory_operand;
    bool vsib;
    uint8_t base, index;      /* 0-15, INSN_REG_RIP, INSN_REG_NONE */
    uint8_t scale;            /* 1, 2, 4 or 8 */
    uint8_t disp_size;        /* 0, 1, 4, or 8/4 for a moffs */
    int64_t displacement;     /* sign-extended (a moffs: the whole offset) */

    /* Sizes, immediate. */
    uint8_t operand_size;     /* bytes */
    uint8_t address_size;     /* 8, or 4 with 67 */
    uint8_t imm_size;         /* 0, 1, 2, 4 or 8 */
    bool relative;            /* the immediate is a branch displacement */
    int64_t immediate;
    uint8_t immediate2;       /* enter's second immediate (the nesting level) */

    uint8_t implicit;         /* INSN_IMPLICIT_* */
    uint8_t stack_bytes;      /* one stack slot of PUSH/POP: 8, or 2 */
};

/* Decode the instruction in bytes[0 .. len): 0, or INSN_TRUNCATED,
 * INSN_INVALID, INSN_TOO_LONG (out then holds nothing to rely on). */
int insn_decode(struct insn *out, const uint8_t *bytes, size_t len);

/*
 * The linear address of the explicit memory operand: segment base (fs_base
 * or gs_base with those overrides, 0 otherwise, as 64-bit mode has it) +
 * base + index * scale + displacement, truncated to 32 bits with 0x67,
 * rip-relative from the end of the instruction (regs->rip is taken as the
 * instruction's own address). false if there is none (or a VSIB one).
 */
bool insn_memory_address(const struct insn *in, const struct cpu_regs *regs,
                         uint64_t fs_base, uint64_t gs_base, uint64_t *va);

/*
 * The address of one implicit operand, `which` one INSN_IMPLICIT_* bit the
 * instruction has: RSI and RDI as the first element of a string operation
 * (before any rep step), PUSH the lowest byte the push writes, POP where it
 * reads. false if the instruction has no such operand.
 */
bool insn_implicit_address(const struct insn *in, const struct cpu_regs *regs,
                           uint64_t fs_base, uint64_t gs_base, unsigned which,
                           uint64_t *va);

/* The general register numbered `reg` (0-15, the x86 numbering) in regs. */
uint64_t *insn_gpr(struct cpu_regs *regs, unsigned reg);

/* Read the (up to) 15 bytes at guest-kernel address rip, page by page: how
 * many could be read from rip on (an instruction may end before a page
 * that is not mapped). */
size_t insn_fetch(uint64_t rip, uint8_t bytes[INSN_MAX_BYTES]);

#endif
