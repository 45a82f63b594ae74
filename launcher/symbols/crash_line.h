/*
 * The line a crash ends with says where: a guest that asked for
 * SHUTDOWN_crash, broke a rule, or stopped the vCPU (a triple fault, an
 * access KVM cannot serve) gets, on one line,
 *
 *   perch: guest crashed (SHUTDOWN_crash) at rip 0xffffffff81a043a5
 *   (xen_hypercall_pv+0x5); stack: xen_reboot+0x60 panic+0x286 ...
 *
 * the rip (a hypercall's: the instruction after the guest's `syscall`),
 * its symbol, and the words on the guest kernel's stack that are
 * addresses in its text, named: its callers' return addresses, and
 * perhaps some stale ones (those the kernel's own trace marks with "?").
 */
#ifndef PERCH_CRASH_LINE_H
#define PERCH_CRASH_LINE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../base/error.h"
#include "kernel_symbols.h"

#define CRASH_LINE_FRAMES 8   /* stack words named, at most */

/* Where the guest was: numbers the guest may have forged, copied once out
 * of the shared page (or from KVM's registers), printed and looked up,
 * never followed. */
struct guest_where {
    bool known;
    bool user;                /* the Host saw guest-user mode */
    bool clause;              /* after a message of its own: "; guest at" */
    int status;               /* the exit status it explains */
    uint64_t rip;
    uint32_t nr_stack;
    uint64_t stack[PERCH_WHERE_STACK_WORDS];
};

/* The Host's report (request.where) for a stop with this status; clause:
 * the line so far is the Host's own message (a broken rule), so the place
 * comes as a clause of its own. */
void crash_line_from_shared(struct guest_where *w,
                            const volatile struct perch_shared *sh, int status,
                            bool clause);

/* A stop of the vCPU itself, at rip (KVM's registers: no stack, and no
 * mode, since guest kernel and user both run at CPL3). */
void crash_line_from_vcpu(struct guest_where *w, uint64_t rip, int status);

/* Append where w says to e's message: " at rip 0x..." ("; guest at rip
 * 0x..." for a clause; " in guest user" after it in user mode),
 * and with symbols (NULL: none) " (name+0xoff)" and "; stack: ..." with
 * up to CRASH_LINE_FRAMES text addresses from the stack, skipping the rip
 * itself and function starts (pointers, not return addresses). Frames
 * that do not fit in e are left out whole. */
void crash_line_append(struct error *e, const struct guest_where *w,
                       const struct kernel_symbols *syms);

#endif
