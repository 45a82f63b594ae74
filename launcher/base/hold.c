/* The guest held still (hold.h). */
#include "hold.h"

#include <errno.h>
#include <time.h>

void hold_init(struct hold *h)
{
    pthread_condattr_t a;

    pthread_mutex_init(&h->lock, NULL);
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&h->changed, &a);
    pthread_condattr_destroy(&a);
    atomic_init(&h->asked, false);
    h->end = false;
    h->holding = 0;
}

bool hold_here(struct hold *h)
{
    bool end;

    if (!hold_asked(h))
        return false;
    pthread_mutex_lock(&h->lock);
    h->holding++;
    pthread_cond_broadcast(&h->changed);
    while (atomic_load(&h->asked))
        pthread_cond_wait(&h->changed, &h->lock);
    h->holding--;
    end = h->end;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
    return end;
}

void hold_ask(struct hold *h)
{
    pthread_mutex_lock(&h->lock);
    /* Threads of an earlier hold may still be on their way out of it. */
    while (h->holding)
        pthread_cond_wait(&h->changed, &h->lock);
    atomic_store(&h->asked, true);
    pthread_mutex_unlock(&h->lock);
}

bool hold_wait(struct hold *h, unsigned threads, int timeout_ms)
{
    struct timespec until;
    int rc = 0;
    bool all;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&h->lock);
    while (h->holding < threads && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&h->changed, &h->lock, &until);
    all = h->holding >= threads;
    pthread_mutex_unlock(&h->lock);
    return all;
}

void hold_release(struct hold *h, bool end)
{
    pthread_mutex_lock(&h->lock);
    h->end = end;
    atomic_store(&h->asked, false);
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}
