/* A guest-facing thread, confined before it starts work. See confined_thread.h. */
#include "confined_thread.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>

#include "../base/error.h"
#include "sandbox.h"

static void *run(void *arg)
{
    struct confined_thread *t = arg;
    struct error e;

    t->confined = !t->sandbox || sandbox_enter(t->extra, &e) == 0;
    if (!t->confined)
        snprintf(t->problem, sizeof(t->problem), "%.*s",
                 (int)sizeof(t->problem) - 1, e.msg);
    sem_post(&t->started);
    if (t->confined)
        t->body(t->arg);
    return NULL;
}

int confined_thread_start(struct confined_thread *t, void (*body)(void *arg),
                          void *arg, bool sandbox)
{
    return confined_thread_start_with(t, body, arg, sandbox, 0);
}

int confined_thread_start_with(struct confined_thread *t, void (*body)(void *arg),
                               void *arg, bool sandbox, unsigned extra)
{
    sigset_t all, old;
    int rc;

    t->sandbox = sandbox;
    t->extra = extra;
    t->confined = false;
    t->problem[0] = 0;
    t->body = body;
    t->arg = arg;
    sem_init(&t->started, 0, 0);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = pthread_create(&t->thread, NULL, run, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        snprintf(t->problem, sizeof(t->problem), "cannot start a thread");
        return -1;
    }
    while (sem_wait(&t->started) && errno == EINTR)
        ;
    if (!t->confined) {
        pthread_join(t->thread, NULL);
        return -1;
    }
    return 0;
}

void confined_thread_join(struct confined_thread *t)
{
    pthread_join(t->thread, NULL);
}

void confined_thread_stop_vcpu(volatile uint8_t *immediate_exit, pthread_t vcpu_thread)
{
    if (immediate_exit)
        __atomic_store_n(immediate_exit, 1, __ATOMIC_SEQ_CST);
    pthread_kill(vcpu_thread, SIGUSR1);
}
