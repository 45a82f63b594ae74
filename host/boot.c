/*
 * The Host starts before the guest: the Launcher points the vCPU at
 * host_boot_entry, which comes here with the guest's start-of-day registers
 * in perch_shared.boot. The Host takes its state from there and enters the
 * guest kernel with a jmp.
 */
#include "env.h"
#include "host.h"
#include "world.h"

_Noreturn void host_boot(struct cpu_regs *regs)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;

    world_set_kernel_cr3(b->kernel_cr3);
    vcpu0.in_kernel = true;
    __builtin_memset(regs, 0, sizeof(*regs));
    regs->rip = b->guest_rip;
    regs->rsp = b->guest_rsp;
    regs->rsi = b->guest_rsi;
    regs->cs = FLAT_KERNEL_CS64;
    regs->ss = FLAT_KERNEL_SS64;
    regs->rflags = 0x202;
    regs->vector = PERCH_VECTOR_SYSCALL;
    host_return(regs);
}
