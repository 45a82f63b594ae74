/*
 * The way into guest code: bounce frames into the guest kernel (as Xen's
 * create_bounce_frame), the guest's mode, and guest_resume(), where every
 * path out of the Host ends, picking the cheapest exit that is correct.
 */
#ifndef PERCH_GUEST_RESUME_H
#define PERCH_GUEST_RESUME_H

#include "../core/host.h"

/* Called first on every way out when set: gdb's (host/entry/gdb.c), which
 * ends a step or stops the guest there. The owner sets it at boot; the
 * way out knows nothing of gdb. */
#define BOUNCE_DISABLE_EVENTS (1u << 0)   /* set the upcall mask */
#define BOUNCE_ERROR_CODE     (1u << 1)   /* push error_code too */

/*
 * Turn regs into a bounce to `handler`: frame { rcx, r11, [error], rip, cs,
 * rflags, rsp, ss } on the kernel stack (kernel_sp when coming from user
 * mode), switch to kernel mode, and point regs at the handler. Returns 0, or
 * -1 when the guest kernel's stack cannot take the frame (the guest is then
 * beyond help, as in Xen).
 */
int bounce_to_guest(struct cpu_regs *regs, uint64_t handler, unsigned flags,
                    uint64_t error_code);

/* The guest's event mask (vcpu_info.evtchn_upcall_mask): set by a bounce
 * with BOUNCE_DISABLE_EVENTS, saved in the frame; host/events/evtchn.c owns it. */
bool bounce_events_masked(void);
/* A #PF's address, where the guest kernel reads it (vcpu_info.arch.cr2). */
void bounce_record_fault_address(uint64_t cr2);
void bounce_set_events_masked(bool masked);

/* Back to guest user mode (and its GS base); its address space is loaded
 * on the way out. A bounce switches to kernel mode itself. */
void guest_enter_user(void);

extern void (*guest_resume_watch)(struct cpu_regs *regs);

/* Leave the Host for the guest frame in regs, delivering due events first:
 * no ring 0 for frames in the loaded address space (resume_native), the
 * RESUME gate when the interrupt flag must come back on, CR3_RESUME for
 * another address space or a pending flush. */
_Noreturn void guest_resume(struct cpu_regs *regs);

/* The Host was entered through the Switcher with the interrupt flag off
 * (an interrupt, or the kernel view's int3): the way out must bring it
 * back on. */
void guest_resume_needs_interrupts_on(void);

/* Go back to Host code an interrupt found at work (its frame in regs):
 * nothing of the guest's changes, so nothing is delivered. */
_Noreturn void host_resume_interrupted(struct cpu_regs *regs);

#endif
