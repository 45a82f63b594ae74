/*
 * The events guest's assembly: the event callback, the exception entries
 * and a register-checking spin loop.
 *
 * An event upcall arrives as Xen's bounce frame on the current (kernel)
 * stack: { rcx, r11, rip, cs, rflags, rsp, ss }, with events masked. The
 * callback takes rcx and r11 back, saves every register as a struct
 * upcall_frame, calls event_upcall(frame) on a 16-byte aligned stack,
 * restores the registers and returns with HYPERVISOR_iret, whose
 * iret_context { rax, r11, rcx, flags, rip, cs, rflags, rsp, ss } it
 * builds on top of the five words that are left of the frame. flags = 0
 * makes the hypervisor restore rcx and r11 too; rflags.IF (set by the
 * hypervisor when events were enabled at the interruption) re-enables
 * events on the way back.
 */
#include "../../abi/xen/xen.h"
#include "../../lib/gprs.h"

    .text
    .global event_callback
event_callback:
    pop %rcx
    pop %r11
    SAVE_GPRS
    mov %rsp, %rdi
    mov %rsp, %rbx          /* callee-saved: the frame again after the call */
    and $-16, %rsp
    call event_upcall
    mov %rbx, %rsp
    RESTORE_GPRS
    /* [rsp] = rip, cs, rflags, rsp, ss: add flags, rcx, r11, rax below. */
    pushq $0
    push %rcx
    push %r11
    push %rax
    mov $HYPERVISOR_iret, %eax
    syscall
    ud2

/* Exceptions: the frame is { rcx, r11, [error], rip, cs, rflags, rsp, ss }.
 * They are all fatal here: unexpected_trap(frame, vector) reports and
 * shuts down. */
.macro TRAP vector, has_error
    .global trap_\vector
trap_\vector:
    pop %rcx
    pop %r11
    .if \has_error == 0
    pushq $0
    .endif
    SAVE_GPRS
    mov %rsp, %rdi
    mov $\vector, %esi
    and $-16, %rsp
    call unexpected_trap
    ud2
.endm

    TRAP 0, 0
    TRAP 1, 0
    TRAP 2, 0
    TRAP 3, 0
    TRAP 4, 0
    TRAP 5, 0
    TRAP 6, 0
    TRAP 7, 0
    TRAP 8, 1
    TRAP 10, 1
    TRAP 11, 1
    TRAP 12, 1
    TRAP 13, 1
    TRAP 14, 1
    TRAP 16, 0
    TRAP 17, 1
    TRAP 18, 0
    TRAP 19, 0

/*
 * uint64_t spin_with_patterns(volatile uint32_t *flag, uint64_t max_loops)
 *
 * Loads a distinct pattern into every general-purpose register but rsp,
 * then spins until *flag becomes nonzero (an upcall sets it) or max_loops
 * iterations have passed, and checks that the patterns are intact. Returns
 * 0 if all is well, else a bitmask: bit 1 rbx, 2 rcx, 3 rdx, 4 rsi, 5 rbp,
 * 6 r8, 7 r9, 8 r10, 9 r11, 10 r12, 11 r13, 12 r14, 13 r15, 14 rdi (it
 * holds the flag pointer) changed; 15 rflags has TF, DF or AC set; 63 the
 * loop ran out without the flag. rax is the loop counter: not checked.
 */
    .global spin_with_patterns, spin_loop_start, spin_loop_end
spin_with_patterns:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rsi, %rax
    movabs $0x1111111111111101, %rbx
    movabs $0x2222222222222202, %rcx
    movabs $0x3333333333333303, %rdx
    movabs $0x4444444444444404, %rsi
    movabs $0x5555555555555505, %rbp
    movabs $0x6666666666666606, %r8
    movabs $0x7777777777777707, %r9
    movabs $0x8888888888888808, %r10
    movabs $0x9999999999999909, %r11
    movabs $0xaaaaaaaaaaaaaa0a, %r12
    movabs $0xbbbbbbbbbbbbbb0b, %r13
    movabs $0xcccccccccccccc0c, %r14
    movabs $0xdddddddddddddd0d, %r15
    push %rdi                  /* the flag pointer, to compare rdi against */
spin_loop_start:
1:  cmpl $0, (%rdi)
    jne 2f
    dec %rax
    jnz 1b
spin_loop_end:
2:  /* rax := 1 if the loop ran out; collect the differences in rdi's
     * place after checking rdi itself. */
    cmp (%rsp), %rdi
    push %rax                  /* remaining count */
    setne %al
    movzbl %al, %eax
    shl $14, %rax
    mov %rax, %rdi             /* rdi: the result bitmask */
    pop %rax
    test %rax, %rax
    jnz 3f
    bts $63, %rdi
3:
.macro CHECKREG reg, pattern, bit
    movabs $\pattern, %rax
    cmp %rax, %\reg
    je 4f
    bts $\bit, %rdi
4:
.endm
    CHECKREG rbx, 0x1111111111111101, 1
    CHECKREG rcx, 0x2222222222222202, 2
    CHECKREG rdx, 0x3333333333333303, 3
    CHECKREG rsi, 0x4444444444444404, 4
    CHECKREG rbp, 0x5555555555555505, 5
    CHECKREG r8, 0x6666666666666606, 6
    CHECKREG r9, 0x7777777777777707, 7
    CHECKREG r10, 0x8888888888888808, 8
    CHECKREG r11, 0x9999999999999909, 9
    CHECKREG r12, 0xaaaaaaaaaaaaaa0a, 10
    CHECKREG r13, 0xbbbbbbbbbbbbbb0b, 11
    CHECKREG r14, 0xcccccccccccccc0c, 12
    CHECKREG r15, 0xdddddddddddddd0d, 13
    pushf
    pop %rax
    test $0x40500, %rax        /* TF (8), DF (10), AC (18) */
    jz 5f
    bts $15, %rdi
5:
    mov %rdi, %rax
    add $8, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret

    .section .note.GNU-stack, "", @progbits
