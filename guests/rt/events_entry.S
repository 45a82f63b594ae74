/*
 * The runtime's event callback (rt_event_callback, see events.h): Xen's
 * bounce frame { rcx, r11, rip, cs, rflags, rsp, ss } with events masked.
 * Take rcx and r11 back, save the caller-saved registers, call rt_upcall()
 * on a 16-byte aligned stack, and return with HYPERVISOR_iret, whose frame
 * { rax, r11, rcx, flags, rip, cs, rflags, rsp, ss } goes on top of the
 * five words left (flags 0: rcx and r11 are restored too).
 */
#include "../../abi/xen/xen.h"

    .text
    .global rt_event_callback
rt_event_callback:
    pop %rcx
    pop %r11
    push %rax
    push %rcx
    push %rdx
    push %rsi
    push %rdi
    push %r8
    push %r9
    push %r10
    push %r11
    push %rbx
    mov %rsp, %rbx          /* callee-saved: the frame after the call */
    and $-16, %rsp
    call rt_upcall
    mov %rbx, %rsp
    pop %rbx
    pop %r11
    pop %r10
    pop %r9
    pop %r8
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rcx
    pop %rax
    pushq $0
    push %rcx
    push %r11
    push %rax
    mov $HYPERVISOR_iret, %eax
    syscall
    ud2

    .section .note.GNU-stack, "", @progbits
