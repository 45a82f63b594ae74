/*
 * A thread that faces the guest (the console's, the devices'): it enters
 * the seccomp sandbox before it reads a byte of guest memory, with every
 * signal blocked (signals belong to the vCPU thread), and the starter
 * waits to hear whether that worked.
 */
#ifndef PERCH_LAUNCHER_CONFINED_THREAD_H
#define PERCH_LAUNCHER_CONFINED_THREAD_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

struct confined_thread {
    pthread_t thread;
    sem_t started;
    bool sandbox;             /* enter it (false: --no-sandbox) */
    unsigned extra;           /* SANDBOX_* beyond the common list */
    bool confined;            /* it did, or needed not */
    char problem[256];        /* why not */
    void (*body)(void *arg);
    void *arg;
};

/* Start body(arg) on a new thread, confined. Returns 0 once it runs
 * confined, or -1 (problem says why, the thread is gone). */
int confined_thread_start(struct confined_thread *t, void (*body)(void *arg),
                          void *arg, bool sandbox);

/* The same, with the sandbox's extras for what body does (SANDBOX_* of
 * sandbox.h: the device thread's, net_link_sandbox_extra()). */
int confined_thread_start_with(struct confined_thread *t, void (*body)(void *arg),
                               void *arg, bool sandbox, unsigned extra);

void confined_thread_join(struct confined_thread *t);

/* The guest must stop: make the vCPU thread leave KVM_RUN and look
 * (immediate_exit first, so a kick between two KVM_RUNs is not lost). */
void confined_thread_stop_vcpu(volatile uint8_t *immediate_exit, pthread_t vcpu_thread);

#endif
