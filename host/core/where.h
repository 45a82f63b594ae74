/*
 * Where the guest was when it stopped: every entry from the guest notes the
 * rip it will return to and its rsp (three stores, so a hypercall pays
 * nothing to speak of), and a crash or a broken rule reports that, with the
 * top of the guest's stack, in perch_shared.request.where for the
 * Launcher's last line (launcher/symbols/crash_line.c).
 */
#ifndef PERCH_HOST_WHERE_H
#define PERCH_HOST_WHERE_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"

struct where_entry {
    uint64_t rip, rsp;
    bool known;
};

extern struct where_entry where_last;

/* The guest entered the Host with these registers (a hypercall, an
 * exception, an interrupt, a guest-user system call). Not for the Host's
 * own nested interrupts: they would hide the guest's place. */
static inline void where_entered(const struct cpu_regs *regs)
{
    where_last.rip = regs->rip;
    where_last.rsp = regs->rsp;
    where_last.known = true;
}

/* Fill perch_shared.request.where from the last entry, copying the stack
 * words from the guest through its page tables, up to the first that
 * cannot be read. */
void where_report(void);

#endif
