/*
 * The way back to the guest: every path out of the Host ends in
 * guest_resume(), which picks the cheapest exit that is correct.
 */
#ifndef PERCH_GUEST_RESUME_H
#define PERCH_GUEST_RESUME_H

#include "../core/host.h"

/* Called first on every way out when set: gdb's (host/entry/gdb.c), which
 * ends a step or stops the guest there. The owner sets it at boot; the
 * way out knows nothing of gdb. */
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
