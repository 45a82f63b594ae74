/*
 * The crossings between guest user and guest kernel. In: a guest-user
 * system call, from the user view's int3 at LSTAR (trap.c) or, without
 * isolation, at the Host's syscall entry (hypercall.c), bounced to the
 * kernel's syscall callback. Out: the iret hypercall, by which the guest
 * kernel returns from its handlers, to itself or to guest user mode. It
 * never returns to its caller: the frame the guest pushed (rax, r11, rcx,
 * flags, rip, cs, rflags, rsp, ss) becomes the vCPU's state.
 */
#include "../core/host.h"
#include "../core/stats.h"
#include "../core/vcpu.h"
#include "../core/where.h"
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

_Noreturn void do_iret(struct cpu_regs *regs)
{
    struct iret_context ctx;

    if (copy_from_guest(&ctx, regs->rsp, sizeof(ctx)))
        host_fatal("iret: the frame at rsp %lx cannot be read", regs->rsp);
    iret_to(regs, &ctx);
}

_Noreturn void iret_to(struct cpu_regs *regs, const struct iret_context *frame)
{
    struct iret_context ctx = *frame;
    bool to_user;

    /* tour syscall.8: the frame Linux pushed decides: back to user mode, GS base swapped */
    to_user = (ctx.cs & 3) == 3;
    if (to_user && !current->user_cr3)
        host_fatal("iret to user mode (rip %lx) without user page tables", ctx.rip);
    if (to_user) {
        guest_enter_user();
        regs->cs = ctx.cs | 3;
        regs->ss = ctx.ss | 3;
    } else {
        regs->cs = FLAT_KERNEL_CS64;   /* the kernel runs at CPL3 too */
        regs->ss = FLAT_KERNEL_SS64;
    }
    regs->rip = ctx.rip;
    regs->rflags = ctx.rflags;
    regs->rsp = ctx.rsp;
    regs->rax = ctx.rax;
    if (ctx.flags & VGCF_in_syscall) {
        regs->rcx = ctx.rip;           /* as sysret leaves them */
        regs->r11 = ctx.rflags;
    } else {
        regs->rcx = ctx.rcx;
        regs->r11 = ctx.r11;
    }
    /* The guest's virtual IF comes back from the frame's IF. */
    bounce_set_events_masked(!(ctx.rflags & 0x200));
    guest_resume(regs);
}
