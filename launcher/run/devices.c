/* The device thread: xenstore, the disks and the network card. See devices.h. */
#include "devices.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../vm/lines.h"
#include "../xenbus/xenstore_save.h"
#include "../base/status.h"

static void broken(struct devices *d, const char *what, const char *why)
{
    snprintf(d->problem, sizeof(d->problem), "%s: %.200s", what, why);
    atomic_store(&d->broken, 1);
    confined_thread_stop_vcpu(d->cfg.vcpu_immediate_exit, d->vcpu_thread);
}

/* Requests in, replies and watch events out; the guest hears of them. */
static int serve_store(struct devices *d)
{
    char why[160];
    int rc = xenstore_serve(d->xs, d->cfg.store_ring, why, sizeof(why));

    if (rc < 0) {
        broken(d, "xenstore", why);
        return -1;
    }
    if (rc & XENSTORE_NOTIFY)
        lines_raise(d->cfg.shared, d->cfg.vm, PERCH_LINE_XENSTORE);
    return 0;
}

enum { FD_DOORBELL, FD_STOP, FD_ASK, FD_FIRST_DISK };

/* Every line's device fits below PERCH_LINES: the disks, then the card. */
_Static_assert(PERCH_LINE_FIRST_DEVICE + MAX_DISKS + 1 <= PERCH_LINES, "device lines");

/* What one poll() waits on: the doorbell, the stop, the disks' I/O, the
 * link's descriptors. */
struct wait {
    struct pollfd fds[FD_FIRST_DISK + MAX_DISKS + NET_LINK_MAX_POLLFDS];
    unsigned first_link, nr_link;
    int timeout_ms;
};

static nfds_t fill(struct devices *d, struct wait *w)
{
    w->fds[FD_DOORBELL] = (struct pollfd){ .fd = d->cfg.doorbell_fd, .events = POLLIN };
    w->fds[FD_STOP] = (struct pollfd){ .fd = d->stop_fd, .events = POLLIN };
    w->fds[FD_ASK] = (struct pollfd){ .fd = d->ask_fd, .events = POLLIN };
    for (unsigned i = 0; i < d->cfg.nr_disks; i++)
        w->fds[FD_FIRST_DISK + i] = (struct pollfd){
            .fd = vbd_completion_fd(&d->vbds[i]), .events = POLLIN };
    w->first_link = FD_FIRST_DISK + d->cfg.nr_disks;
    w->timeout_ms = -1;
    w->nr_link = d->cfg.link ?
        net_link_poll_fill(d->cfg.link, &w->fds[w->first_link], &w->timeout_ms) : 0;
    return w->first_link + w->nr_link;
}

static int serve_disks(struct devices *d, const struct wait *w, uint64_t notified)
{
    struct error e;

    for (unsigned i = 0; i < d->cfg.nr_disks; i++) {
        struct vbd *v = &d->vbds[i];

        if (w->fds[FD_FIRST_DISK + i].fd >= 0 && w->fds[FD_FIRST_DISK + i].revents)
            vbd_complete(v);
        if ((notified >> v->xb.line & 1) && vbd_notified(v, &e)) {
            broken(d, v->name, e.msg);
            return -1;
        }
    }
    return 0;
}

/* The card: its packets out, the link's news (frames for the guest
 * among it), then every response published at once. */
static int serve_card(struct devices *d, const struct wait *w, uint64_t notified)
{
    struct vif *v = &d->vif;
    struct error e;

    if (!d->cfg.link)
        return 0;
    if ((notified >> v->xb.line & 1) && vif_notified(v, &e))
        goto broke;
    net_link_poll_done(d->cfg.link, &w->fds[w->first_link], w->nr_link);
    if (vif_flush(v, &e))
        goto broke;
    return 0;
broke:
    broken(d, v->xb.name, e.msg);
    return -1;
}

/* Asked from outside (the control socket): power off as `xl shutdown`
 * asks, by control/shutdown, and a new memory target as `xl mem-set`
 * sets it, by memory/target; the guest's xenbus watches both. */
static void serve_ask(struct devices *d, const struct wait *w)
{
    static const char shutdown[] = "/local/domain/1/control/shutdown";
    static const char target[] = "/local/domain/1/memory/target";
    uint64_t count, kib;
    char value[24];

    if (!w->fds[FD_ASK].revents || read(d->ask_fd, &count, sizeof(count)) < 0)
        return;
    _Static_assert(DEVICES_GUEST_DOMID == 1, "the paths name the guest's domain");
    if (atomic_exchange(&d->poweroff_asked, 0))
        xenstore_write(d->xs, shutdown, "poweroff", 8);
    kib = atomic_exchange(&d->memory_asked_kib, 0);
    if (kib)
        xenstore_write(d->xs, target, value,
                       (size_t)snprintf(value, sizeof(value), "%" PRIu64, kib));
}

/* One wake-up's work: the lines the guest notified, the disks' finished
 * I/O, the card, what was asked from outside, then xenstore (whose watch
 * callbacks move the devices' states) twice, so what those callbacks
 * wrote reaches the guest now. */
static int serve(struct devices *d, const struct wait *w)
{
    uint64_t count, notified;

    if (w->fds[FD_DOORBELL].revents &&
        read(d->cfg.doorbell_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
        return -1;
    serve_ask(d, w);
    notified = lines_take_notified(d->cfg.shared);
    if (serve_disks(d, w, notified) || serve_card(d, w, notified))
        return -1;
    return serve_store(d) || serve_store(d) ? -1 : 0;
}

/* The Host rings the device doorbell only for a thread that said it
 * sleeps (abi/layout.h, devices_asleep): say so, then look at the lines
 * once more; what the guest notified meanwhile is served without a sleep. */
static bool work_waiting(struct devices *d)
{
    __atomic_store_n(&d->cfg.shared->lines.devices_asleep, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&d->cfg.shared->lines.notified, __ATOMIC_SEQ_CST) != 0;
}

/* Before a hold: no disk request half served. */
static void settle_disks(struct devices *d)
{
    for (unsigned i = 0; i < d->cfg.nr_disks; i++)
        vbd_settle(&d->vbds[i]);
}

static void device_thread(void *arg)
{
    struct devices *d = arg;
    struct wait w;

    /* The guest's first look at xenstore may come before any kick. */
    if (serve_store(d))
        return;
    for (;;) {
        nfds_t nfds = fill(d, &w);

        if (hold_asked(d->cfg.hold))
            settle_disks(d);
        hold_here(d->cfg.hold);
        if (poll(w.fds, nfds, work_waiting(d) ? 0 : w.timeout_ms) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (w.fds[FD_STOP].revents || serve(d, &w))
            break;
    }
}

static int set_up(struct devices *d, struct error *e)
{
    const struct devices_config *c = &d->cfg;
    struct xenstore_guest guest = {
        .domid = DEVICES_GUEST_DOMID, .name = "perch", .memory_kib = c->memory_kib,
    };
    int err;

    d->xs = calloc(1, sizeof(*d->xs));
    if (!d->xs)
        return fail(e, "out of memory for xenstore");
    err = xenstore_init(d->xs, &guest);
    if (err)
        return fail(e, "cannot set up xenstore: %s", xenstore_error_name(err));
    if (!c->saved_store)
        xenstore_ring_init(c->store_ring);
    if (grant_table_init(&d->gt, c->gm, c->grant_first_mfn, c->grant_nr_frames))
        return fail(e, "cannot set up the grant table");
    d->env = (struct backend_env){
        .xs = d->xs, .gt = &d->gt, .shared = c->shared, .vm = c->vm,
        .domid = DEVICES_GUEST_DOMID,
    };
    for (unsigned i = 0; i < c->nr_disks; i++)
        if (vbd_init(&d->vbds[i], &d->env, i, &c->disks[i], e))
            return -1;
    if (c->link && vif_init(&d->vif, &d->env, PERCH_LINE_FIRST_DEVICE + c->nr_disks,
                            c->link, e))
        return -1;
    /* A saved guest's store replaces the one the devices just wrote;
     * their watches look at it first (the front ends connected already). */
    if (c->saved_store && xenstore_load(d->xs, c->saved_store, c->saved_store_len, e))
        return -1;
    d->stop_fd = eventfd(0, EFD_CLOEXEC);
    d->ask_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (d->stop_fd < 0 || d->ask_fd < 0)
        return fail(e, "eventfd: %s", strerror(errno));
    return 0;
}

int devices_start(struct devices *d, const struct devices_config *cfg, struct error *e)
{
    memset(d, 0, sizeof(*d));
    d->cfg = *cfg;
    d->stop_fd = d->ask_fd = -1;
    d->vcpu_thread = pthread_self();
    if (set_up(d, e))
        return -1;
    if (confined_thread_start_with(&d->thread, device_thread, d, cfg->sandbox,
                                   cfg->link ? net_link_sandbox_extra(cfg->link) : 0))
        return fail(e, "cannot start the device thread: %s", d->thread.problem);
    d->running = true;
    return 0;
}

void devices_stop(struct devices *d)
{
    uint64_t one = 1;

    if (d->running && write(d->stop_fd, &one, sizeof(one)) == sizeof(one))
        confined_thread_join(&d->thread);
    d->running = false;
    for (unsigned i = 0; i < d->cfg.nr_disks; i++)
        vbd_close(&d->vbds[i]);
    vif_close(&d->vif);
    if (d->stop_fd >= 0)
        close(d->stop_fd);
    if (d->ask_fd >= 0)
        close(d->ask_fd);
    d->stop_fd = d->ask_fd = -1;
    if (d->xs) {
        xenstore_free(d->xs);
        free(d->xs);
        d->xs = NULL;
        grant_table_fini(&d->gt);
    }
}

int devices_verdict(struct devices *d, struct error *e)
{
    if (!atomic_load(&d->broken))
        return -1;
    fail(e, "guest stopped: %s", d->problem);
    return STATUS_GUEST_STOPPED;
}

static int wake_for_ask(struct devices *d)
{
    uint64_t one = 1;

    return write(d->ask_fd, &one, sizeof(one)) == sizeof(one) ? 0 : -1;
}

void devices_wake(struct devices *d)
{
    wake_for_ask(d);
}

int devices_ask_poweroff(struct devices *d)
{
    if (!d->running)
        return -1;
    atomic_store(&d->poweroff_asked, 1);
    return wake_for_ask(d);
}

int devices_ask_memory(struct devices *d, uint64_t mib)
{
    if (!d->running)
        return -1;
    atomic_store(&d->memory_asked_kib, mib * 1024);
    return wake_for_ask(d);
}
