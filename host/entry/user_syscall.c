/* A guest-user system call reaches its kernel: from the user view's int3
 * at LSTAR (trap.c) or, without isolation, at the Host's syscall entry
 * (hypercall.c). */
#include "../core/host.h"
#include "../core/stats.h"
#include "../core/vcpu.h"
#include "../core/where.h"
#include "bounce.h"
#include "guest_resume.h"

/* A guest-user `syscall`: to the kernel's syscall callback, with the frame
 * Xen builds (rip and rflags as the syscall instruction left them in rcx
 * and r11), DF cleared as the PV ABI says. */
_Noreturn void user_syscall(struct cpu_regs *regs)
{
    vcpu_stats()->user_syscalls++;
    /* tour syscall.5: Xen's frame on the kernel stack, the kernel's syscall callback next */
    regs->rip = regs->rcx;
    regs->rflags = regs->r11;
    where_entered(regs);
    if (bounce_to_guest(regs, current->syscall_callback,
                        current->syscall_disables_events ? BOUNCE_DISABLE_EVENTS : 0, 0))
        host_fatal("guest user made a system call at rip %lx, but the kernel "
                   "has no syscall callback or a usable stack", regs->rip);
    regs->rflags &= ~(1ull << 10);
    guest_resume(regs);
}
