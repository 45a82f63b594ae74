/*
 * Unit test of host/env/flush_tlb.S, run natively: the one file of env/
 * that a unit test runs instead of standing in for, because what it must
 * get right is the frame back it builds for the CR3_RESUME gate. Its flags
 * once came from pushfq, which at CPL3 shows IF on even where it is off
 * (an interrupt's handler then ran on with interrupts on, and the next
 * interrupt ran over its stack), and the frame once went in the vCPU's
 * SW_RESUME_FRAME, over the one switcher_resume_cr3 staged there when an
 * interrupt came between the staging and its gate. Both lost a vCPU to its
 * guest with --no-cpl3-events --cpus 2 (docs/design.md, "Several vCPUs").
 * Natively that slot is no memory of the test's: the old code died here of
 * SIGSEGV.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "../../abi/layout.h"
#include "../../host/core/env.h"

#define RFLAGS_IF 0x200ull

static uint64_t gate_cr3 __attribute__((used));
static uint64_t gate_rsp __attribute__((used));
static uint64_t gate_frame[6] __attribute__((used));   /* rax slot, rip, cs, rflags, rsp, ss */

/* The CR3_RESUME gate (switcher/switcher.S, svc_cr3_resume) without ring
 * 0: note the CR3 and the frame rsp points at, take rax from its slot,
 * then the iretq's part that CPL3 can do: rsp and rip from the frame. */
__asm__(".text\n"
        ".global switcher_gate_cr3_resume\n"
        "switcher_gate_cr3_resume:\n"
        "    mov %rax, gate_cr3(%rip)\n"
        "    mov %rsp, gate_rsp(%rip)\n"
        "    .irp word, 0, 1, 2, 3, 4, 5\n"
        "    mov \\word * 8(%rsp), %rcx\n"
        "    mov %rcx, gate_frame + \\word * 8(%rip)\n"
        "    .endr\n"
        "    pop %rax\n"
        "    mov 0(%rsp), %rdx\n"
        "    mov 24(%rsp), %rsp\n"
        "    jmp *%rdx\n");

static uint64_t stack_pointer(void)
{
    uint64_t rsp;

    __asm__ volatile("mov %%rsp, %0" : "=r"(rsp));
    return rsp;
}

static void frame_on_the_callers_stack(void)
{
    uint64_t rsp = stack_pointer();

    gate_rsp = 0;
    env_flush_tlb(0x1234000, false);
    CHECK(gate_cr3 == 0x1234000);
    CHECK(gate_rsp < rsp && gate_rsp > rsp - 4096);
    /* just below the return address, which the frame's rsp points at */
    CHECK(gate_frame[4] == gate_rsp + sizeof(gate_frame));
    CHECK(gate_frame[2] == FLAT_KERNEL_CS64 && gate_frame[5] == FLAT_KERNEL_SS64);
}

/* Here, natively, IF is on and pushfq says so: the frame must not. */
static void interrupts_as_the_caller_says(void)
{
    env_flush_tlb(1, false);
    CHECK(gate_frame[3] == 0x2);
    env_flush_tlb(1, true);
    CHECK(gate_frame[3] == (0x2 | RFLAGS_IF));
}

/* Twice from one place: the same stack, nothing left behind. */
static void comes_back_each_time(void)
{
    uint64_t first;

    env_flush_tlb(1, false);
    first = gate_rsp;
    env_flush_tlb(2, false);
    CHECK(gate_cr3 == 2 && gate_rsp == first);
}

int main(void)
{
    RUN(frame_on_the_callers_stack);
    RUN(interrupts_as_the_caller_says);
    RUN(comes_back_each_time);
    return check_exit_status();
}
