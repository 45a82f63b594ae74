/*
 * Running the guest: the vCPU loop and what each exit to the Launcher means.
 * Exits are the expensive currency here (~30 us from guest code), so each
 * one is counted by reason.
 */
#ifndef PERCH_VCPU_LOOP_H
#define PERCH_VCPU_LOOP_H

#include <stdint.h>

#include "../console/console.h"
#include "../symbols/crash_line.h"
#include "devices.h"
#include "../gdb/gdb.h"
#include "../base/error.h"
#include "../vm/hole.h"
#include "../vm/kvm.h"

enum exit_kind {
    EXIT_REQUEST_SHUTDOWN,
    EXIT_REQUEST_CONSOLE,
    EXIT_REQUEST_FATAL,
    EXIT_REQUEST_PING,
    EXIT_REQUEST_GDB,
    EXIT_RING0_FATAL,
    EXIT_SIGNAL,
    EXIT_OTHER,
    EXIT_KIND_COUNT
};

struct run_stats {
    uint64_t exits[EXIT_KIND_COUNT];
    uint32_t tsc_khz;         /* to turn the guest's TSC readings into time */
};

struct guest_run {
    struct kvm_vm *vm;
    struct hole *hole;
    struct console *console;
    struct devices *devices;   /* NULL: none */
    struct gdb *gdb;           /* --gdb's server; NULL: none */
    struct run_stats stats;
    struct guest_where where;  /* where it stopped, for the crash line */
};

/* Run until the guest ends; returns perch's exit status (status.h) and, for
 * anything but a clean end, puts the reason in e. */
int guest_run(struct guest_run *r, struct error *e);

/* Make SIGINT/SIGTERM stop the guest and SIGUSR1 interrupt KVM_RUN. */
void guest_run_signals(void);

extern const char *const exit_kind_names[EXIT_KIND_COUNT];

#endif
