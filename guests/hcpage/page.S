/*
 * The hypercall page hcpage names in its HYPERCALL_PAGE note (hcpage.c):
 * one page of the image, which the Launcher fills with `syscall` stubs
 * and the Host may rewrite into jumps. And a #UD handler that returns as
 * Linux did before 6.1.121: the flags word pushed, then a jump to the
 * page's iret slot. Xen's frame for #UD: rcx, r11, rip, cs, rflags, rsp,
 * ss; ud2 is 2 bytes.
 */
#include "../../abi/xen/xen.h"

    .text
    .balign 4096
    .global hypercall_page
hypercall_page:
    .fill 4096, 1, 0xcc

    .global ud_trap
ud_trap:
    incq ud_count(%rip)
    addq $2, 16(%rsp)           /* rip, past the ud2 */
    pop %rcx
    pop %r11
    pushq $0                    /* flags: no VGCF_in_syscall */
    jmp hypercall_page + HYPERVISOR_iret * XEN_HYPERCALL_SLOT_SIZE

    .data
    .global ud_count
ud_count:   .quad 0
