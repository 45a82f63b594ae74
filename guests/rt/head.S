/*
 * Entry point of every perch test guest (the ENTRY note points here; the
 * notes themselves are in notes.c).
 *
 * The builder enters at CPL3 in guest-kernel mode with rsi = the VA of
 * start_info, rsp = the top of its one-page boot stack, rflags = 0x200 and
 * the other GPRs zero (docs/xen-pv.md section 2). We record the boot rsp,
 * move to our own 16 KiB stack in .bss (already zeroed by the builder) and
 * call rt_start(si), which never returns. Other vCPUs enter at
 * rt_cpu_entry.
 */
#define RT_STACK_SIZE 0x4000

    .section .text.head, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    cld
    mov     %rsp, rt_boot_rsp(%rip)
    lea     rt_stack_top(%rip), %rsp
    xor     %ebp, %ebp
    mov     %rsi, %rdi
    call    rt_start
1:  ud2                         /* rt_start does not return */
    jmp     1b
    .size _start, . - _start

/*
 * Where every other vCPU starts (guests/rt/smp.c's context): rsp is the
 * top of its own stack, rdi its record.
 */
    .globl rt_cpu_entry
    .type rt_cpu_entry, @function
rt_cpu_entry:
    cld
    xor     %ebp, %ebp
    call    rt_cpu_main
1:  ud2                         /* rt_cpu_main does not return */
    jmp     1b
    .size rt_cpu_entry, . - rt_cpu_entry

    .section .bss, "aw", @nobits
    .balign 4096
    .globl rt_stack_bottom, rt_stack_top, rt_boot_rsp
rt_stack_bottom:
    .skip   RT_STACK_SIZE
rt_stack_top:
    .balign 8
rt_boot_rsp:
    .skip   8

    .section .note.GNU-stack, "", @progbits
