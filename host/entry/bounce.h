/*
 * Bouncing an event into the guest kernel, as Xen's create_bounce_frame
 * does: a frame on the guest kernel's stack, then the guest kernel's
 * handler runs, in kernel mode, with the frame telling it what happened.
 */
#ifndef PERCH_BOUNCE_H
#define PERCH_BOUNCE_H

#include "../core/host.h"

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

#endif
