/*
 * The usermode guest's trap and syscall entries. Xen's bounce frame is
 * { rcx, r11, [error], rip, cs, rflags, rsp, ss } on the kernel stack; each
 * entry pops rcx and r11 back (the registers as they were), saves all
 * registers as a struct uframe and calls kernel_event(frame, vector).
 */
#include "../../abi/xen.h"

.macro SAVE_AND_CALL vector
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
