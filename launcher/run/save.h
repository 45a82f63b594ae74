/*
 * `perch save`: the running guest into a snapshot file (snapshot.h). The
 * control socket's thread asks; every thread that faces the guest holds
 * still (base/hold.h): the vCPUs right after a kick, the console drained,
 * the devices between two passes. Then the vCPUs' KVM state, xenstore and
 * memory go to the file, and the guest goes on (--leave-running) or ends
 * there, perch exiting 0.
 */
#ifndef PERCH_SAVE_H
#define PERCH_SAVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "../base/error.h"
#include "../base/hold.h"
#include "../snapshot/snapshot.h"
#include "../vm/guest_memory.h"
#include "../vm/hole.h"
#include "../vm/kvm.h"
#include "devices.h"

struct save_source {
    struct hold hold;
    struct kvm_vm *vm;
    struct guest_memory *gm;
    struct hole *hole;
    struct devices *devices;
    const struct disk *disks;         /* the guest's, flushed and named in the file */
    unsigned nr_disks;
    int console_doorbell_fd;          /* wakes the console thread */
    struct snapshot_config config;    /* all but saved_at_ns, from the launch */
    const char *cannot;               /* why this guest cannot be saved; NULL: it can */
    pthread_t threads[PERCH_MAX_VCPUS];
    atomic_bool ready;                /* threads[] are every vCPU's */
    atomic_bool ended;                /* a save ended the run */
};

/* Save the guest to f. 0, or -1 with e; the guest goes on after a failed
 * save, and after a good one with leave_running. */
int save_guest(struct save_source *s, FILE *f, bool leave_running, struct error *e);

#endif
