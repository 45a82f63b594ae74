/*
 * The user programs of the usermode guest: position-independent code that
 * the guest kernel maps at USER_CODE_VA and enters in user mode. Each ends
 * with the DONE system call, or is expected to fault before it does.
 * Numbers are the guest kernel's own toy system calls (usermode.h).
 */
#include "usermode.h"
#include "../../abi/layout.h"

    .section .user, "ax"

.macro DONE value
    mov \value, %rdi
    mov $SYS_DONE, %eax
    syscall
    ud2
.endm

/* Registers other than rax, rcx and r11 survive a system call. */
    .global user_echo
user_echo:
    mov $0x1111, %rbx
    mov $0x2222, %rbp
    mov $0x3333, %r12
    mov $0x4444, %r13
    mov $0x5555, %r14
    mov $0x6666, %r15
    mov $0x7777, %rsi
    mov $41, %edi
    mov $SYS_ECHO, %eax
    syscall                         /* the kernel returns rdi + 1 */
    cmp $0x1111, %rbx; jne 1f
    cmp $0x2222, %rbp; jne 1f
    cmp $0x3333, %r12; jne 1f
    cmp $0x4444, %r13; jne 1f
    cmp $0x5555, %r14; jne 1f
    cmp $0x6666, %r15; jne 1f
    cmp $0x7777, %rsi; jne 1f
    DONE %rax
1:  DONE $-1

/* USER_LOOPS system calls, timed with the TSC: DONE(cycles per call). */
    .global user_syscall_loop
user_syscall_loop:
    rdtsc
    shl $32, %rdx
    or %rax, %rdx
    mov %rdx, %rbx
    mov $USER_LOOPS, %r12d
2:  mov $SYS_ECHO, %eax
    syscall
    dec %r12d
    jnz 2b
    rdtsc
    shl $32, %rdx
    or %rdx, %rax
    sub %rbx, %rax
    xor %edx, %edx
    mov $USER_LOOPS, %ecx
    div %rcx
    DONE %rax

/* A hypercall number from user mode is just a system call to the kernel. */
    .global user_forged_hypercall
user_forged_hypercall:
    mov $HYPERVISOR_console_io, %eax
    mov $CONSOLEIO_write, %edi
    mov $5, %esi
    xor %edx, %edx
    syscall
    DONE %rax                       /* the kernel answers SYS_FORGED_SEEN */

/* The user GS base the kernel set with set_segment_base. */
    .global user_gs_base
user_gs_base:
    rdgsbase %rax
    DONE %rax

    .global user_read_lstar_page
user_read_lstar_page:
    movabs $HOST_IMAGE_VA, %rax
    DONE (%rax)

/* Each of these must fault into the guest kernel and never get further. */
.macro FAULT name
    .global user_\name
user_\name:
.endm
.macro NOT_REACHED
    DONE $0xbad
.endm

    FAULT read_kernel
    movabs $0xffffffff80100000, %rax
    mov (%rax), %rax
    NOT_REACHED

    FAULT write_kernel
    movabs $0xffffffff80100000, %rax
    movq $1, (%rax)
    NOT_REACHED

    FAULT read_host
    movabs $HOST_IMAGE_VA + 0x2000, %rax
    mov (%rax), %rax
    NOT_REACHED

    FAULT read_alias
    movabs $PERCH_ALIAS_VA, %rax
    mov (%rax), %rax
    NOT_REACHED

    FAULT read_m2p
    movabs $PERCH_M2P_VA, %rax
    mov (%rax), %rax
    NOT_REACHED

    FAULT read_gdt
    movabs $SW_GDT_VA + 0xe000, %rax
    mov (%rax), %rax
    NOT_REACHED

    FAULT read_ist_stack
    movabs $SW_EXC_STACK_VA, %rax
    mov (%rax), %rax
    NOT_REACHED

    FAULT write_ist_stack
    movabs $SW_EXC_STACK_VA, %rax
    movq $0, (%rax)
    NOT_REACHED

    FAULT exec_switcher
    movabs $SW_CODE_VA, %rax
    jmp *%rax
    NOT_REACHED

    FAULT cli
    cli
    NOT_REACHED

    FAULT hlt
    hlt
    NOT_REACHED

    FAULT mov_cr3
    mov %cr3, %rax
    NOT_REACHED

    FAULT wrmsr
    xor %eax, %eax
    xor %edx, %edx
    mov $0xc0000082, %ecx
    wrmsr
    NOT_REACHED

    FAULT out_port
    mov $0xe0, %edx
    out %al, (%dx)
    NOT_REACHED

    FAULT lgdt
    sub $16, %rsp
    lgdt (%rsp)
    NOT_REACHED

    FAULT load_ring0_ds
    mov $SW_DS0_SEL, %eax
    mov %eax, %ds
    NOT_REACHED

    FAULT far_ret_ring0
    pushq $SW_CS0_SEL
    lea 1f(%rip), %rax
    push %rax
    lretq
1:  nop
    NOT_REACHED

    FAULT iret_to_ring0
    mov %rsp, %rax
    pushq $SW_DS0_SEL
    push %rax
    pushfq
    pushq $SW_CS0_SEL
    lea 1f(%rip), %rax
    push %rax
    iretq
1:  nop
    NOT_REACHED

    FAULT int3
    int3
    NOT_REACHED

    /* The LSTAR page of the user view is all int3: only a real `syscall`
     * enters the kernel's syscall path from there. */
    FAULT jump_lstar_page
    movabs $HOST_IMAGE_VA, %rax
    jmp *%rax
    NOT_REACHED

    FAULT ud2
    ud2
    NOT_REACHED

    .global user_end_marker
user_end_marker:
