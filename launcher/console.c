#include "console.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;   /* stdout closed: the guest keeps running regardless */
        p += w;
        n -= w;
    }
}

int console_drain(struct console *c)
{
    volatile struct perch_shared *sh = c->shared;
    uint32_t prod, used;
    uint8_t buf[PERCH_CONSOLE_RING_BYTES];

    pthread_mutex_lock(&c->lock);
    prod = __atomic_load_n(&sh->console_prod, __ATOMIC_ACQUIRE);
    used = prod - c->cons;
    if (used > PERCH_CONSOLE_RING_BYTES) {
        snprintf(c->problem, sizeof(c->problem),
                 "console ring index corrupted (producer %u, consumer %u)",
                 prod, c->cons);
        atomic_store(&c->broken, 1);
        pthread_mutex_unlock(&c->lock);
        return -1;
    }
    for (uint32_t i = 0; i < used; i++)
        buf[i] = sh->console_ring[(c->cons + i) % PERCH_CONSOLE_RING_BYTES];
    write_all(c->out_fd, buf, used);
    c->cons = prod;
    __atomic_store_n(&sh->console_cons, c->cons, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&c->lock);
    return 0;
}

static void *console_thread(void *arg)
{
    struct console *c = arg;
    struct pollfd fds[2] = {
        { .fd = c->doorbell_fd, .events = POLLIN },
        { .fd = c->stop_fd, .events = POLLIN },
    };
    uint64_t count;

    for (;;) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        if (fds[1].revents)
            break;
        if (fds[0].revents && read(c->doorbell_fd, &count, sizeof(count)) < 0 &&
            errno != EAGAIN)
            break;
        if (console_drain(c)) {
            pthread_kill(c->vcpu_thread, SIGUSR1);
            break;
        }
    }
    return NULL;
}

int console_start(struct console *c, struct perch_shared *shared,
                  int doorbell_fd, int out_fd)
{
    sigset_t all, old;
    int rc;

    memset(c, 0, sizeof(*c));
    c->shared = shared;
    c->out_fd = out_fd;
    c->doorbell_fd = doorbell_fd;
    c->vcpu_thread = pthread_self();
    c->stop_fd = eventfd(0, EFD_CLOEXEC);
    if (c->stop_fd < 0)
        return -1;
    pthread_mutex_init(&c->lock, NULL);
    /* Signals (Ctrl-C, the SIGUSR1 kick) belong to the vCPU thread. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    rc = pthread_create(&c->thread, NULL, console_thread, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    c->running = rc == 0;
    return rc ? -1 : 0;
}

int console_stop(struct console *c)
{
    uint64_t one = 1;

    if (c->running) {
        if (write(c->stop_fd, &one, sizeof(one)) == sizeof(one))
            pthread_join(c->thread, NULL);
        c->running = 0;
    }
    if (!atomic_load(&c->broken))
        console_drain(c);
    if (c->stop_fd > 0)
        close(c->stop_fd);
    c->stop_fd = -1;
    return atomic_load(&c->broken) ? -1 : 0;
}
