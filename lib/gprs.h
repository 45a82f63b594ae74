/*
 * Saving and restoring the general registers on the stack, for assembly:
 * SAVE_GPRS pushes them so that r15 ends lowest, the layout of the Host's
 * struct cpu_regs (host/core/host.h) and of the test guests' frames.
 */
#ifndef PERCH_GPRS_H
#define PERCH_GPRS_H

#ifdef __ASSEMBLER__
.macro SAVE_GPRS
    push %rax
    push %rbx
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %rbp
    push %r8
    push %r9
    push %r10
    push %r11
    push %r12
    push %r13
    push %r14
    push %r15
.endm

.macro RESTORE_GPRS
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rbp
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rbx
    pop %rax
.endm
#endif

#endif
