/*
 * The hvc guest's event callback. Xen's bounce frame on the kernel stack is
 * { rcx, r11, rip, cs, rflags, rsp, ss } with events masked: take rcx and
 * r11 back, save the other caller-saved registers, call hvc_upcall() on a
 * 16-byte aligned stack, and return with HYPERVISOR_iret, whose frame
 * { rax, r11, rcx, flags, rip, cs, rflags, rsp, ss } is built on top of the
 * five words left (flags 0: the hypervisor restores rcx and r11 as well).
 */
#include "../../abi/xen/xen.h"

    .text
    .global event_callback
event_callback:
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
    call hvc_upcall
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
