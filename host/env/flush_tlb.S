/*
 * void env_flush_tlb(uint64_t cr3, bool interrupts_on): reload cr3 through
 * the CR3_RESUME gate and come back, interrupts on or off as the caller
 * says. rax, rcx and rdx are the caller's to lose. The frame back is built
 * here, for two reasons, each once a vCPU lost to its guest with two vCPUs
 * and --no-cpl3-events (an RCU stall):
 *
 * - its flags are not pushfq's: at CPL3 that shows IF on even inside an
 *   interrupt's handler, which runs with it off (docs/kvm.md). The gate's
 *   iretq would turn it on there, in host_resume_interrupted's flush, and
 *   the next interrupt's handoff (the IRQ stack's top, through the
 *   Switcher) would run over the live handler's frames.
 * - it goes on this stack, not in the vCPU's SW_RESUME_FRAME: cr3 is a
 *   kernel view's, which maps the Host's stacks. That slot holds the frame
 *   switcher_resume_cr3 (entry.S) staged when an interrupt comes between
 *   the staging and its gate and flushes here; the way out would resume
 *   ours instead, over and over.
 *
 * tests/unit/test_host_flush_tlb.c runs this file natively.
 */
#include "../../abi/layout.h"

    .text
    .global env_flush_tlb
env_flush_tlb:
    mov %rsp, %rcx
    pushq $FLAT_KERNEL_SS64
    push %rcx                       /* rsp: at our return address */
    movzbl %sil, %edx
    shl $9, %edx                    /* IF */
    or $2, %edx                     /* the bit that is always set */
    push %rdx                       /* rflags */
    pushq $FLAT_KERNEL_CS64
    lea 1f(%rip), %rdx
    push %rdx                       /* rip */
    sub $8, %rsp                    /* rsp -> [rax slot][frame] */
    mov %rdi, %rax
    jmp switcher_gate_cr3_resume
1:  ret
