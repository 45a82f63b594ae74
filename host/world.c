#include "world.h"

#include "bounce.h"
#include "env.h"
#include "evtchn.h"

struct vcpu vcpu0 = { .in_kernel = true };
uint32_t optimizations_off;

/* The kernel CR3 loaded now: the Host loads one only when it must change. */
static uint64_t loaded_cr3;

void world_start(uint64_t kernel_cr3)
{
    world_set_kernel_cr3(kernel_cr3);
    loaded_cr3 = kernel_cr3;   /* the Launcher loaded it before the vCPU ran */
    vcpu0.in_kernel = true;
}

void world_set_kernel_cr3(uint64_t cr3)
{
    vcpu0.kernel_cr3 = cr3;
    env_set_kernel_cr3_slot(cr3);
}

void world_enter_kernel(void)
{
    if (vcpu0.in_kernel)
        return;
    vcpu0.in_kernel = true;
    env_write_gs_base(vcpu0.gs_base_kernel);
}

void world_enter_user(void)
{
    if (!vcpu0.in_kernel)
        return;
    vcpu0.in_kernel = false;
    env_write_gs_base(vcpu0.gs_base_user);
}

/* Set while the Host runs with the interrupt flag off. */
static bool interrupts_off;

void world_entered_with_interrupts_off(void)
{
    interrupts_off = true;
}

void world_arrived_from_user(void)
{
    loaded_cr3 = vcpu0.kernel_cr3;
}

/* The guest never runs with the real interrupt flag off: its virtual IF is
 * the upcall mask. Nor with IOPL above 0, TF, NT or RF: kept are the
 * arithmetic flags, DF, AC and ID. */
static void sanitise_flags(struct cpu_regs *regs)
{
    regs->rflags = (regs->rflags & 0x240cd5) | 0x202;
}

/* Pending events go to the guest kernel's event callback, with events
 * masked, as Xen's upcall does: on every return to the guest. */
static void deliver_upcall(struct cpu_regs *regs)
{
    if (!vcpu0.event_callback || !evtchn_upcall_due())
        return;
    if (bounce_to_guest(regs, vcpu0.event_callback, BOUNCE_DISABLE_EVENTS, 0))
        host_fatal("an event is due but the guest kernel's stack (rsp %lx) "
                   "cannot take the frame", regs->rsp);
}

/*
 * Guest user is always entered through CR3_RESUME, and its CR3 load
 * flushes whatever was pending. The next event from user mode brings the
 * kernel CR3 back (world_arrived_from_user).
 */
static _Noreturn void return_to_user(struct cpu_regs *regs)
{
    vcpu0.pending &= ~PENDING_TLB_FLUSH;
    perch_shared.stats.visits[PERCH_VISIT_SERVICE_CR3]++;
    env_resume_cr3(regs, vcpu0.user_cr3);
}

_Noreturn void host_return(struct cpu_regs *regs)
{
    bool restore_if = interrupts_off;

    interrupts_off = false;
    deliver_upcall(regs);
    sanitise_flags(regs);
    if (!vcpu0.in_kernel)
        return_to_user(regs);
    if (vcpu0.kernel_cr3 != loaded_cr3 || (vcpu0.pending & PENDING_TLB_FLUSH)) {
        vcpu0.pending &= ~PENDING_TLB_FLUSH;
        loaded_cr3 = vcpu0.kernel_cr3;
        perch_shared.stats.visits[PERCH_VISIT_SERVICE_CR3]++;
        env_resume_cr3(regs, loaded_cr3);
    }
    if (restore_if || (optimizations_off & PERCH_OPT_NATIVE_RETURN)) {
        perch_shared.stats.visits[PERCH_VISIT_SERVICE_RESUME]++;
        env_resume(regs);
    }
    env_return_native(regs);
}
