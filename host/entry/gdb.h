/*
 * --gdb, the Host's side (host/entry/gdb.c): the guest stops for gdb only where
 * the Host holds its registers, on the way back to it (guest_resume) or at
 * its #BP and #DB; the Launcher serves gdb meanwhile (launcher/gdb/).
 * gdb_enabled (core/host.h) is perch_shared.gdb.enabled as the Host read
 * it at boot: 0 without --gdb, and then every hook below is one test of it.
 */
#ifndef PERCH_HOST_GDB_H
#define PERCH_HOST_GDB_H

#include <stdbool.h>

#include "../core/host.h"

/* At boot: whether gdb is served; if so gdb_on_resume watches every way
 * out (guest_resume_watch). */
void gdb_boot(bool enabled);

/* On every return to the guest: stop if the Launcher asked (or a step
 * over a hypercall just ended), and resume with TF through an iretq when
 * gdb steps. */
void gdb_on_resume(struct cpu_regs *regs);

/* A #BP or #DB of the guest (or a #DB at the Host's syscall entry, a
 * stepped `syscall`): stops for gdb and resumes the guest if it was
 * gdb's breakpoint or step; returns if it was the guest's own. */
void gdb_event(struct cpu_regs *regs);

#endif
