/*
 * The vCPUs past the first, each on a thread of its own with its own run
 * (launch.c runs the first on its thread): they start like it, end when
 * any vCPU's run ends, and the first learns from their group how.
 */
#ifndef PERCH_SECONDARY_VCPUS_H
#define PERCH_SECONDARY_VCPUS_H

#include <pthread.h>
#include <stdbool.h>

#include "vcpu_loop.h"

struct secondary_vcpus {
    struct vcpu_group group;
    unsigned nr;                       /* all vCPUs, the first included */
    pthread_t watch;                   /* vcpu_group_watch's thread */
    bool sandbox, watching;
    struct secondary {
        struct guest_run run;
        struct error e;
        pthread_t thread;
        bool sandbox, started;
    } cpu[PERCH_MAX_VCPUS];            /* [1, nr) */
};

/* Start vCPUs 1 .. nr - 1 as `first` runs vCPU 0 (its hole, console and
 * devices, no gdb), and the group's watch, each thread entering the
 * sandbox itself if `sandbox`; first joins their group. With nr 1 nothing starts and first has no group.
 * 0, or -1 with e (the ones started are stopped again). */
int secondary_vcpus_start(struct secondary_vcpus *s, struct guest_run *first,
                          unsigned nr, bool sandbox, struct error *e);

/* After the first vCPU's run ended with status (and e): the others ended
 * or are made to, and are waited for. Returns how the guest ended, the
 * first run to end's status, with its message in e and its place in
 * first->where; every vCPU's exits are added into first->stats. */
int secondary_vcpus_finish(struct secondary_vcpus *s, struct guest_run *first,
                           int status, struct error *e);

#endif
