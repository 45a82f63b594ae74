/*
 * A #GP handler that counts and skips: the instruction that faulted is one
 * this guest knows to be 2 bytes long (rdmsr, wrmsr, in $imm8, out $imm8).
 * Xen's frame: rcx, r11, error code, rip, cs, rflags, rsp, ss.
 */
#include "../../abi/xen/xen.h"

    .text
    .global gp_trap
gp_trap:
    incq gp_count(%rip)
    addq $2, 24(%rsp)           /* rip, past the instruction */
    pop %rcx
    pop %r11
    pop gp_error(%rip)
    /* iret_context: rax, r11, rcx, flags; then the frame rip..ss is here */
    pushq $0                    /* flags */
    push %rcx
    push %r11
    push %rax
    mov $HYPERVISOR_iret, %eax
    syscall

    .data
    .global gp_count, gp_error
gp_count:   .quad 0
gp_error:   .quad 0
