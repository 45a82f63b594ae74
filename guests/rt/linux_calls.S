/*
 * Linux 6.1's two ways into its hypervisor, byte for byte as its Xen PV
 * code has them (docs/design.md, section 3), so that perch patches them
 * into direct calls here as it does in Debian's kernel: the costs guest
 * then times a hypercall made the way Linux makes it. The Launcher finds
 * them by name in this ELF's symbol table.
 */
    .text
    .balign 16
    .global xen_hypercall_pv
    .type xen_hypercall_pv, @function
xen_hypercall_pv:
    push %rcx
    push %r11
    syscall
    pop %r11
    pop %rcx
    ret
    .size xen_hypercall_pv, . - xen_hypercall_pv

    .balign 16, 0xcc
    .global xen_iret
    .type xen_iret, @function
xen_iret:
    pushq $0
    push %rcx
    push %r11
    push %rax
    mov $23, %eax                   /* __HYPERVISOR_iret */
    syscall
    int3
    .balign 16, 0xcc
    .size xen_iret, . - xen_iret
