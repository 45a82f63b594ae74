/*
 * The hostile guest's way into ring 0: the Switcher's RESUME gate iretq's
 * to whatever frame the caller's rsp points at, and the gate page is
 * executable by the guest kernel (it runs where the Host runs, at CPL3).
 *
 *   ring0_run(body): forge { rip = body, cs = SW_CS0_SEL, rflags = 0x2
 *   (interrupts off), rsp, ss = SW_DS0_SEL } and jump to SW_GATE_RESUME.
 *   A body that wants to come back jumps to ring0_return, which iretq's to
 *   CPL3 (Xen's flat kernel selectors) and returns from ring0_run.
 *
 * The bodies, each entered at CPL0 on the caller's stack:
 *   r0_probe     store %cs and %cr0 (a ring-0-only read), come back
 *   r0_out80     `out` to port 0x80: an I/O exit the Launcher never expects
 *   r0_hang      cli; hlt forever: the vCPU sleeps in KVM for good
 *   r0_triple    load an empty IDT, then ud2: #UD, #GP, #DF, triple fault
 *   r0_timer_sti arm the local APIC timer for 1 us, then spin with
 *                interrupts on: the timer finds ring 0 (through a DPL3
 *                gate, with CPL3 events)
 */
#include "../../abi/layout.h"

    .text
    .global ring0_run
ring0_run:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rsp, ring0_saved_rsp(%rip)
    mov %rsp, %rax
    pushq $SW_DS0_SEL               /* ss */
    push %rax                       /* rsp */
    pushq $0x2                      /* rflags: IF off */
    pushq $SW_CS0_SEL               /* cs: ring 0 */
    push %rdi                       /* rip */
    movabs $SW_GATE_RESUME, %rax
    jmp *%rax

    .global ring0_return
ring0_return:
    mov ring0_saved_rsp(%rip), %rax
    pushq $FLAT_KERNEL_SS64
    push %rax
    pushq $0x202
    pushq $FLAT_KERNEL_CS64
    lea ring0_back(%rip), %rax
    push %rax
    iretq
ring0_back:
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret

    .global r0_probe
r0_probe:
    xor %eax, %eax
    mov %cs, %ax
    mov %rax, ring0_cs(%rip)
    mov %cr0, %rax
    mov %rax, ring0_cr0(%rip)
    jmp ring0_return

    .global r0_out80
r0_out80:
    mov $0x42, %al
    out %al, $0x80
    jmp ring0_return

    .global r0_hang
r0_hang:
    cli
1:  hlt
    jmp 1b

    .global r0_timer_sti
r0_timer_sti:
    movabs $(HOST_APIC_VA + 0x380), %rax    /* APIC_TIMER_INIT, in ns */
    movl $1000, (%rax)
    sti
1:  jmp 1b

    .global r0_triple
r0_triple:
    lidt empty_idt(%rip)
    ud2
    jmp ring0_return

    .section .rodata
    .balign 16
empty_idt:
    .word 0
    .quad 0

    .bss
    .balign 8
    .global ring0_cs, ring0_cr0
ring0_saved_rsp:
    .skip 8
ring0_cs:
    .skip 8
ring0_cr0:
    .skip 8

    .section .note.GNU-stack, "", @progbits
