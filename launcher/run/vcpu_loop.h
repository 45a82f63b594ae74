/*
 * Running the guest: the vCPU loop and what each exit to the Launcher means.
 * Exits are the expensive currency here (~30 us from guest code), so each
 * one is counted by reason.
 */
#ifndef PERCH_VCPU_LOOP_H
#define PERCH_VCPU_LOOP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../console/console.h"
#include "../symbols/crash_line.h"
#include "devices.h"
#include "../gdb/gdb.h"
#include "../base/error.h"
#include "../base/hold.h"
#include "../vm/hole.h"
#include "../vm/kvm.h"

enum exit_kind {
    EXIT_REQUEST_SHUTDOWN,
    EXIT_REQUEST_CONSOLE,
    EXIT_REQUEST_FATAL,
    EXIT_REQUEST_PING,
    EXIT_REQUEST_GDB,
    EXIT_REQUEST_RELEASE,
    EXIT_RING0_FATAL,
    EXIT_SIGNAL,
    EXIT_OTHER,
    EXIT_KIND_COUNT
};

struct run_stats {
    uint64_t exits[EXIT_KIND_COUNT];
    uint32_t tsc_khz;         /* to turn the guest's TSC readings into time */
    uint64_t frames_released; /* the balloon's frames given back to the host */
};

/*
 * The vCPUs of one guest, each running guest_run on a thread of its own:
 * the first to end the run says how (its status, message and place), and
 * the others are kicked out of KVM_RUN and end too.
 */
struct vcpu_group {
    pthread_mutex_t lock;
    pthread_cond_t ended;          /* over is set: the watch ends */
    atomic_bool over;
    int status;
    struct error e;
    struct guest_where where;
    unsigned nr;
    struct {
        pthread_t thread;
        volatile uint8_t *immediate_exit;
    } member[PERCH_MAX_VCPUS];
};

struct guest_run {
    struct kvm_vm *vm;
    struct kvm_vcpu *vcpu;         /* the one this run drives */
    struct vcpu_group *group;      /* NULL: the guest's only vCPU */
    struct hole *hole;
    const struct guest_memory *gm;
    struct console *console;
    struct devices *devices;   /* NULL: none */
    struct gdb *gdb;           /* --gdb's server; NULL: none */
    struct hold *hold;         /* `perch save` holds the guest still; NULL: never */
    struct run_stats stats;
    struct guest_where where;  /* where it stopped, for the crash line */
};

/* Run until the guest ends; returns perch's exit status (status.h) and, for
 * anything but a clean end, puts the reason in e. In a group, a run that
 * another vCPU ended returns GUEST_RUN_ENDED_ELSEWHERE: the group says how. */
#define GUEST_RUN_ENDED_ELSEWHERE (-2)
int guest_run(struct guest_run *r, struct error *e);

/* Before the vCPUs' threads start: vCPU i's thread and run area. */
void vcpu_group_init(struct vcpu_group *g, unsigned nr);
void vcpu_group_join(struct vcpu_group *g, unsigned i, pthread_t thread,
                     struct kvm_vcpu *vcpu);

/* r's vCPU ends the run with status (e): if it is the first to, the group
 * records how and kicks every other vCPU out of KVM_RUN. guest_run does
 * this itself; a vCPU's thread that could not run calls it. */
void vcpu_group_end(struct guest_run *r, int status, const struct error *e);

/* The group's watch (secondary_vcpus.c), once a second until the group
 * ends: every vCPU kicked out of KVM_RUN, where guest_run asks KVM whether
 * an INIT left it waiting for a SIPI (it would never come back: with the
 * Host lock held, every other vCPU would spin for it). Returns when the
 * group has ended. */
void vcpu_group_watch(struct vcpu_group *g);

/* The group ends with status (e) that no vCPU's run gave (the watch could
 * not start): every vCPU is kicked. */
void vcpu_group_fail(struct vcpu_group *g, int status, const struct error *e);

/* Make SIGINT/SIGTERM stop the guest and SIGUSR1 interrupt KVM_RUN. */
void guest_run_signals(void);

extern const char *const exit_kind_names[EXIT_KIND_COUNT];

#endif
