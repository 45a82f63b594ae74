/* Bounce frames: how the Host hands an exception, an event or a system call to the guest kernel, as Xen does. */
#include "bounce.h"

#include "../events/evtchn.h"
#include "../core/vcpu.h"
#include "../core/guest_mode.h"

/* Hypervisor hole: a bounce frame must never land there (Xen's check). */
static bool stack_usable(uint64_t sp)
{
    return sp < XEN_HOLE_START || sp >= XEN_HOLE_END + 8 * 8;
}

int bounce_to_guest(struct cpu_regs *regs, uint64_t handler, unsigned flags,
                    uint64_t error_code)
{
    bool from_user = !current->in_kernel;
    uint64_t sp = (from_user ? current->kernel_sp : regs->rsp) & ~0xfull;
    uint64_t saved_mask = bounce_events_masked();
    uint64_t frame[8];
    unsigned n = 0;

    if (!handler || !stack_usable(sp))
        return -1;
    frame[n++] = regs->rcx;
    frame[n++] = regs->r11;
    if (flags & BOUNCE_ERROR_CODE)
        frame[n++] = error_code;
    frame[n++] = regs->rip;
    /* CS with RPL 0 tells the guest it was in kernel mode; bits 32-39 carry
     * the upcall mask as it was. */
    frame[n++] = (from_user ? regs->cs : regs->cs & ~3ull) | saved_mask << 32;
    frame[n++] = (regs->rflags & ~0x3200ull) | (saved_mask ? 0 : 0x200);
    frame[n++] = regs->rsp;
    frame[n++] = regs->ss;
    sp -= n * 8;
    if (copy_to_guest(sp, frame, n * 8))
        return -1;
    if (flags & BOUNCE_DISABLE_EVENTS)
        bounce_set_events_masked(true);
    guest_enter_kernel();
    regs->rip = handler;
    regs->cs = FLAT_KERNEL_CS64;
    regs->ss = FLAT_KERNEL_SS64;
    regs->rsp = sp;
    /* As the CPU clears them on an exception: TF, NT, RF, AC. */
    regs->rflags &= ~((1ull << 8) | (1ull << 14) | (1ull << 16) | (1ull << 18));
    return 0;
}

bool bounce_events_masked(void)
{
    return evtchn_vcpu_info()->evtchn_upcall_mask != 0;
}

void bounce_set_events_masked(bool masked)
{
    evtchn_vcpu_info()->evtchn_upcall_mask = masked;
}

void bounce_record_fault_address(uint64_t cr2)
{
    evtchn_vcpu_info()->arch.cr2 = cr2;
}
