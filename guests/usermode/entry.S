/*
 * The usermode guest's trap and syscall entries. Xen's bounce frame is
 * { rcx, r11, [error], rip, cs, rflags, rsp, ss } on the kernel stack; each
 * entry pops rcx and r11 back (the registers as they were), saves all
 * registers as a struct uframe and calls kernel_event(frame, vector).
 */
#include "../../abi/xen/xen.h"
#include "../../lib/gprs.h"

.macro SAVE_AND_CALL vector
    SAVE_GPRS
    mov %rsp, %rdi
    mov $\vector, %esi
    call kernel_event
    ud2
.endm

/* Exceptions without an error code get a 0 so every frame looks alike. */
.macro TRAP vector, has_error
    .global trap_\vector
trap_\vector:
    pop %rcx
    pop %r11
    .if \has_error == 0
    pushq $0
    .endif
    SAVE_AND_CALL \vector
.endm

    .text
    TRAP 0, 0
    TRAP 3, 0
    TRAP 6, 0
    TRAP 13, 1
    TRAP 14, 1

    .global syscall_entry
syscall_entry:
    pop %rcx
    pop %r11
    pushq $0
    SAVE_AND_CALL 256

/* iret_to(ctx): HYPERVISOR_iret with the iret_context at ctx. */
    .global iret_to
iret_to:
    mov %rdi, %rsp
    mov $HYPERVISOR_iret, %eax
    syscall
    ud2

/* iret_with_frame(f, ctx): back to where frame f came from: every register
 * from f (rax, rcx and r11 travel in the iret_context), then iret. */
    .global iret_with_frame
iret_with_frame:
    mov 0*8(%rdi), %r15
    mov 1*8(%rdi), %r14
    mov 2*8(%rdi), %r13
    mov 3*8(%rdi), %r12
    mov 5*8(%rdi), %r10
    mov 6*8(%rdi), %r9
    mov 7*8(%rdi), %r8
    mov 8*8(%rdi), %rbp
    mov 11*8(%rdi), %rdx
    mov 13*8(%rdi), %rbx
    mov %rsi, %rsp
    mov 10*8(%rdi), %rsi
    mov 9*8(%rdi), %rdi
    mov $HYPERVISOR_iret, %eax
    syscall
    ud2
