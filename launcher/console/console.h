/*
 * The console back end. Two rings of guest output go to perch's stdout:
 *   - the early console: the ring in perch_shared that the Host fills from
 *     console_io (Linux's boot messages until hvc0 exists);
 *   - hvc0: the ring console in the guest's console page (hvc_ring.h),
 *     which the guest fills itself and announces with EVTCHNOP_send on
 *     PERCH_CONSOLE_PORT.
 * Both ring the same ioeventfd doorbell, so output appears while the vCPU
 * runs, without an exit. A thread sleeps on it and drains both, the early
 * console first: Linux moves from one to the other, so that keeps the
 * order in which the guest wrote, as far as two rings can show it. Each
 * stream goes through its own sequence filter (osc_filter.h), which takes
 * out the exit status and the counter marks.
 *
 * The same thread feeds the input: stdin into hvc0's in[] as there is room
 * (what does not fit waits), then one interrupt to the guest
 * (notify_guest: PERCH_BACKEND_VECTOR), which the Host turns into an event
 * on the console port. From a terminal, Ctrl-A commands are taken out
 * first (keys.h).
 *
 * Every ring index the guest can write is checked at every use; a bad one
 * stops the guest (console_verdict).
 */
#ifndef PERCH_CONSOLE_H
#define PERCH_CONSOLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../vm/confined_thread.h"
#include "../base/error.h"
#include "../base/hold.h"
#include "hvc_ring.h"
#include "keys.h"
#include "osc_filter.h"

/* Input read but not yet in in[]: at most this much waits. */
#define CONSOLE_INPUT_MAX 4096

struct console_config {
    struct perch_shared *shared;   /* the early console's ring */
    void *hvc_page;                /* the guest's console page; NULL: none */
    int doorbell_fd;
    int out_fd;
    /* When set, the guest's output goes here instead of out_fd (`perch
     * bench` parses it); called with the output lock held. */
    void (*output)(void *arg, const uint8_t *bytes, size_t n);
    void *output_arg;
    /* Each counter mark the guest writes (may be NULL); with the lock.
     * name is NUL-ended; end is false for "begin". */
    void (*on_mark)(void *arg, const char *name, bool end);
    void *mark_arg;
    int in_fd;                     /* the guest's input; -1: none */
    bool keys;                     /* in_fd is the user's terminal */
    /* Input is in in[]: interrupt the guest (may be NULL). */
    void (*notify_guest)(void *arg);
    void *notify_arg;
    /* kvm_run.immediate_exit: set before the vCPU thread is kicked, so a
     * KVM_RUN entered just after the kick returns at once (may be NULL). */
    volatile uint8_t *vcpu_immediate_exit;
    bool sandbox;                  /* the thread enters sandbox.h's filter */
    /* `perch save` holds the thread still, its rings drained; the asker
     * wakes it through doorbell_fd (NULL: never). */
    struct hold *hold;
    /* The rings are a saved guest's: take their indices as they are
     * (`perch restore`), rather than from a page the domain builder zeroed. */
    bool resume;
};

struct console {
    struct console_config cfg;
    int stop_fd;              /* eventfd that ends the thread */
    pthread_mutex_t lock;     /* the output side: thread and vCPU thread */
    struct confined_thread thread;
    pthread_t vcpu_thread;    /* kicked with SIGUSR1 to stop the guest */
    int running;

    /* Output (under lock). */
    uint32_t cons;            /* early console: the Launcher's own copy */
    struct hvc_ring hvc;
    struct osc_filter osc_early, osc_hvc;
    struct osc_guest_said said;   /* its exit status and marks */

    /* Input (the thread only). */
    struct keys keys;
    bool input_open;          /* stdin not at its end yet */
    bool input_ended;         /* a pipe or file ended: the guest hears Ctrl-D */
    uint8_t input_last;       /* the last byte queued for the guest */
    size_t input_len;
    uint8_t input[CONSOLE_INPUT_MAX];
    int retry_ms;             /* while input waits: look again after this */
    uint32_t retry_queued;    /* in[]'s fill at the last look */

    /* Why the guest must stop (set once, read by the vCPU thread). */
    atomic_int broken;        /* a ring was corrupted: problem says how */
    atomic_int quit;          /* Ctrl-A x */
    atomic_int out_errno;     /* writing out_fd failed with it; 0: fine */
    char problem[128];
};

/* Start the thread; -1 if it cannot start (c->problem may say why: the
 * sandbox refused). Signals stay with the calling thread, the vCPU's. */
int console_start(struct console *c, const struct console_config *cfg);

/* Copy out what the rings hold; -1 (and c->problem) if an index is bad. */
int console_drain(struct console *c);

/* Stop the thread, then drain what is left; -1 (and c->problem) if a ring
 * was found corrupted, now or before. */
int console_stop(struct console *c);

/* Must the guest stop for the console's sake? -1 if not; else perch's
 * exit status, with e filled: a corrupted ring (STATUS_GUEST_STOPPED),
 * stdout that cannot be written (STATUS_ERROR) or Ctrl-A x
 * (STATUS_POWEROFF, "quit by Ctrl-A x"). */
int console_verdict(struct console *c, struct error *e);

/* Did writing the guest's output to out_fd fail (a closed pipe, a full
 * disk)? If so, e says how. */
bool console_output_failed(struct console *c, struct error *e);

/* The status the guest asked for with "\033]perch-exit;N\007"; -1: none. */
int console_exit_status(struct console *c);

#endif
