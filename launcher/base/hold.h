/*
 * The guest held still: the threads that face it (each vCPU's, the
 * console's, the devices') stand at a safe point of their loops while
 * another thread looks at the whole machine (`perch save`). A vCPU's safe
 * point is right after a KVM_RUN that a kick ended, when KVM has finished
 * any exit it owed (its registers are the guest's whole state); the
 * console's once its rings are drained; the devices' between two passes.
 *
 * The asker asks, wakes each thread its own way (a vCPU with
 * confined_thread_stop_vcpu, the others through their eventfds), waits
 * for all of them, then lets them go on, or go on to end the run.
 */
#ifndef PERCH_HOLD_H
#define PERCH_HOLD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct hold {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    atomic_bool asked;
    bool end;                 /* released to end the run */
    unsigned holding;         /* threads standing in hold_here */
};

void hold_init(struct hold *h);

/* Is a hold asked? Cheap: every thread looks at every turn. */
static inline bool hold_asked(struct hold *h)
{
    return h && atomic_load_explicit(&h->asked, memory_order_acquire);
}

/* Stand here while a hold is asked (at once if none is). Returns true
 * when the asker let the threads go to end the run. */
bool hold_here(struct hold *h);

/* Ask every thread to stand still; the caller then wakes them. */
void hold_ask(struct hold *h);

/* Wait until `threads` stand still, at most timeout_ms: true if they do. */
bool hold_wait(struct hold *h, unsigned threads, int timeout_ms);

/* Let them go on; with end, to end the run (the guest never runs again). */
void hold_release(struct hold *h, bool end);

#endif
