/*
 * The console back end: drains the ring the Host fills (console_io) to
 * perch's stdout. A thread sleeps on the ioeventfd doorbell, so guest output
 * appears while the vCPU runs, without an exit. The ring lives in guest
 * memory: its producer index is untrusted and checked on every drain.
 */
#ifndef PERCH_CONSOLE_H
#define PERCH_CONSOLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../abi/layout.h"

struct console {
    struct perch_shared *shared;
    int out_fd;
    int doorbell_fd;
    int stop_fd;              /* eventfd that ends the thread */
    uint32_t cons;            /* the Launcher's own copy: the guest can't move it */
    pthread_mutex_t lock;
    pthread_t thread;
    pthread_t vcpu_thread;    /* kicked with SIGUSR1 when the ring is corrupt */
    atomic_int broken;
    char problem[128];
    int running;
};

int console_start(struct console *c, struct perch_shared *shared,
                  int doorbell_fd, int out_fd);
/* Copy out what the ring holds; -1 (and c->problem) if its index is bad. */
int console_drain(struct console *c);
/* Stop the thread, then drain what is left; -1 (and c->problem) if the
 * ring was found corrupted, now or before. */
int console_stop(struct console *c);

#endif
