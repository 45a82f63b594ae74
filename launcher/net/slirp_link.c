/*
 * --net user: the guest's frames go to libslirp, a TCP/IP stack in this
 * process that ends every connection of the guest on a socket of the
 * Launcher's own (NAT, as an ordinary program's), answers DHCP, ARP and
 * DNS itself, and listens on 127.0.0.1 for each hostfwd. QEMU's user
 * network, with QEMU's addresses:
 *
 *   10.0.2.0/24   the guest is 10.0.2.15 (the first DHCP address)
 *   10.0.2.2      the gateway; connecting to it reaches the host's 127.0.0.1
 *   10.0.2.3      DNS, forwarded to the host's resolver (/etc/resolv.conf)
 *   fec0::/64     the same for IPv6 (fec0::2, fec0::3), by router adverts
 *
 * libslirp runs entirely inside the calls below, all on the device thread
 * once the guest runs: it never starts a thread or a timer of its own.
 * Its sockets join the device thread's poll() through poll_fill and
 * poll_done, its timers (only the IPv6 router advert's in 4.7) through
 * the poll timeout, and its clock is CLOCK_MONOTONIC.
 */
#include "net_link_kinds.h"

#include <errno.h>
#include <slirp/libslirp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../vm/sandbox.h"

#define GUEST_ADDR "10.0.2.15"
/* Frames slirp emits while the guest's frame goes in (an ARP or DHCP
 * answer, an ACK) wait here for poll_done, so the back end never has a
 * frame delivered inside its own net_link_send(). */
#define MAX_QUEUED 64
/* Sockets beyond what one poll() takes are looked at this often. */
#define OVERFLOW_POLL_MS 10

struct slirp_timer {
    struct slirp_timer *next;
    SlirpTimerCb cb;
    void *cb_opaque;
    int64_t expire_ms;          /* -1: not armed */
};

struct queued_frame {
    size_t len;
    uint8_t bytes[];
};

struct slirp_link {
    struct net_link link;
    Slirp *slirp;
    /* This round's sockets, as slirp_pollfds_fill() named them: the
     * first `shown` went into the caller's poll(), the rest wait for a
     * poll() of their own in poll_done. */
    struct pollfd *fds;
    unsigned nr_fds, cap_fds, shown;
    struct slirp_timer *timers;
    struct queued_frame *queue[MAX_QUEUED];
    unsigned nr_queued;
    bool delivering;            /* inside poll_done: frames go straight out */
};

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* --- slirp's callbacks ------------------------------------------------ */

static ssize_t send_packet(const void *buf, size_t len, void *opaque)
{
    struct slirp_link *s = opaque;
    struct queued_frame *q;

    if (s->delivering) {
        net_link_deliver(&s->link, buf, len);
        return (ssize_t)len;
    }
    /* A full queue drops, as a wire would; TCP sends again. */
    if (s->nr_queued == MAX_QUEUED || !(q = malloc(sizeof(*q) + len)))
        return (ssize_t)len;
    q->len = len;
    memcpy(q->bytes, buf, len);
    s->queue[s->nr_queued++] = q;
    return (ssize_t)len;
}

/* What slirp calls a guest error is a guest's own business (a bad DHCPv6
 * packet, a router advert from the guest): nothing of perch's is at
 * stake, and printing each would let a guest fill perch's stderr. */
static void guest_error(const char *msg, void *opaque)
{
    (void)msg, (void)opaque;
}

static int64_t clock_get_ns(void *opaque)
{
    (void)opaque;
    return now_ns();
}

static void *timer_new(SlirpTimerCb cb, void *cb_opaque, void *opaque)
{
    struct slirp_link *s = opaque;
    struct slirp_timer *t = malloc(sizeof(*t));

    /* slirp has no way to hear of a failure: out of memory, perch ends. */
    if (!t)
        abort();
    *t = (struct slirp_timer){ .next = s->timers, .cb = cb, .cb_opaque = cb_opaque,
                               .expire_ms = -1 };
    s->timers = t;
    return t;
}

static void timer_free(void *timer, void *opaque)
{
    struct slirp_link *s = opaque;

    for (struct slirp_timer **p = &s->timers; *p; p = &(*p)->next)
        if (*p == timer) {
            *p = (*p)->next;
            free(timer);
            return;
        }
}

static void timer_mod(void *timer, int64_t expire_ms, void *opaque)
{
    (void)opaque;
    ((struct slirp_timer *)timer)->expire_ms = expire_ms;
}

/* For a host that cannot poll slirp's sockets itself (Windows), and for
 * guestfwd: perch asks slirp for its sockets on every round instead. */
static void register_poll_fd(int fd, void *opaque)
{
    (void)fd, (void)opaque;
}

static void notify(void *opaque)
{
    (void)opaque;
}

static const SlirpCb callbacks = {
    .send_packet = send_packet,
    .guest_error = guest_error,
    .clock_get_ns = clock_get_ns,
    .timer_new = timer_new,
    .timer_free = timer_free,
    .timer_mod = timer_mod,
    .register_poll_fd = register_poll_fd,
    .unregister_poll_fd = register_poll_fd,
    .notify = notify,
};

/* --- polling ---------------------------------------------------------- */

static int add_poll(int fd, int events, void *opaque)
{
    struct slirp_link *s = opaque;
    short want = 0;

    if (s->nr_fds == s->cap_fds) {
        unsigned cap = s->cap_fds ? 2 * s->cap_fds : NET_LINK_MAX_POLLFDS;
        struct pollfd *more = realloc(s->fds, cap * sizeof(*more));

        if (!more)
            return -1;   /* not polled this round */
        s->fds = more;
        s->cap_fds = cap;
    }
    want |= events & SLIRP_POLL_IN ? POLLIN : 0;
    want |= events & SLIRP_POLL_OUT ? POLLOUT : 0;
    want |= events & SLIRP_POLL_PRI ? POLLPRI : 0;
    s->fds[s->nr_fds] = (struct pollfd){ .fd = fd, .events = want };
    return (int)s->nr_fds++;
}

static int get_revents(int idx, void *opaque)
{
    struct slirp_link *s = opaque;
    short got;

    if (idx < 0 || (unsigned)idx >= s->nr_fds)
        return 0;
    got = s->fds[idx].revents;
    return (got & POLLIN ? SLIRP_POLL_IN : 0) | (got & POLLOUT ? SLIRP_POLL_OUT : 0) |
           (got & POLLPRI ? SLIRP_POLL_PRI : 0) | (got & POLLERR ? SLIRP_POLL_ERR : 0) |
           (got & POLLHUP ? SLIRP_POLL_HUP : 0);
}

static void lower_to_timers(const struct slirp_link *s, int *timeout_ms)
{
    int64_t now_ms = now_ns() / 1000000;

    for (const struct slirp_timer *t = s->timers; t; t = t->next)
        if (t->expire_ms >= 0)
            net_link_lower_timeout(timeout_ms, t->expire_ms - now_ms);
}

static unsigned slirp_poll_fill(struct net_link *link, struct pollfd *fds, int *timeout_ms)
{
    struct slirp_link *s = (struct slirp_link *)link;
    uint32_t timeout = *timeout_ms < 0 ? UINT32_MAX : (uint32_t)*timeout_ms;

    s->nr_fds = 0;
    slirp_pollfds_fill(s->slirp, &timeout, add_poll, s);
    if (timeout != UINT32_MAX)
        net_link_lower_timeout(timeout_ms, timeout);
    lower_to_timers(s, timeout_ms);
    if (s->nr_queued)
        *timeout_ms = 0;
    s->shown = s->nr_fds < NET_LINK_MAX_POLLFDS ? s->nr_fds : NET_LINK_MAX_POLLFDS;
    if (s->shown < s->nr_fds)
        net_link_lower_timeout(timeout_ms, OVERFLOW_POLL_MS);
    if (s->shown)
        memcpy(fds, s->fds, s->shown * sizeof(*fds));
    return s->shown;
}

/* The frames that waited since the last round, in the order they came. */
static void flush_queue(struct slirp_link *s)
{
    for (unsigned i = 0; i < s->nr_queued; i++) {
        net_link_deliver(&s->link, s->queue[i]->bytes, s->queue[i]->len);
        free(s->queue[i]);
    }
    s->nr_queued = 0;
}

/* Each expired timer once; its callback may arm it (or free it) again. */
static void run_timers(struct slirp_link *s)
{
    int64_t now_ms = now_ns() / 1000000;
    struct slirp_timer *t;

    do
        for (t = s->timers; t; t = t->next)
            if (t->expire_ms >= 0 && t->expire_ms <= now_ms) {
                t->expire_ms = -1;
                t->cb(t->cb_opaque);
                break;   /* the list may have changed */
            }
    while (t);
}

static void slirp_poll_done(struct net_link *link, const struct pollfd *fds, unsigned n)
{
    struct slirp_link *s = (struct slirp_link *)link;
    unsigned rest = s->nr_fds - s->shown;

    for (unsigned i = 0; i < s->shown; i++)
        s->fds[i].revents = i < n ? fds[i].revents : 0;
    if (rest && poll(s->fds + s->shown, rest, 0) < 0)
        for (unsigned i = s->shown; i < s->nr_fds; i++)
            s->fds[i].revents = 0;
    s->delivering = true;
    flush_queue(s);
    slirp_pollfds_poll(s->slirp, 0, get_revents, s);
    run_timers(s);
    s->delivering = false;
    s->nr_fds = s->shown = 0;
}

static void slirp_send(struct net_link *link, const uint8_t *frame, size_t len)
{
    struct slirp_link *s = (struct slirp_link *)link;

    slirp_input(s->slirp, frame, (int)len);
}

static void slirp_close(struct net_link *link)
{
    struct slirp_link *s = (struct slirp_link *)link;

    if (s->slirp)
        slirp_cleanup(s->slirp);   /* frees its timers through timer_free */
    for (unsigned i = 0; i < s->nr_queued; i++)
        free(s->queue[i]);
    while (s->timers)
        timer_free(s->timers, s);
    free(s->fds);
    free(s);
}

static const struct net_link_ops ops = {
    .send = slirp_send,
    .poll_fill = slirp_poll_fill,
    .poll_done = slirp_poll_done,
    .close = slirp_close,
    .sandbox_extra = SANDBOX_SLIRP,
};

/* --- opening ---------------------------------------------------------- */

static struct in_addr ipv4(const char *text)
{
    struct in_addr a;

    inet_pton(AF_INET, text, &a);
    return a;
}

static struct in6_addr ipv6(const char *text)
{
    struct in6_addr a;

    inet_pton(AF_INET6, text, &a);
    return a;
}

/* restricted = 0: the guest reaches the world through NAT, as QEMU's
 * default; nothing listens on the host but the forwards. No TFTP, no
 * boot file, no emulation of FTP/IRC's port commands (libslirp itself
 * warns that code is unsafe). */
static Slirp *start(struct slirp_link *s)
{
    SlirpConfig cfg = {
        .version = 4,
        .restricted = 0,
        .in_enabled = true,
        .vnetwork = ipv4("10.0.2.0"),
        .vnetmask = ipv4("255.255.255.0"),
        .vhost = ipv4("10.0.2.2"),
        .vdhcp_start = ipv4(GUEST_ADDR),
        .vnameserver = ipv4("10.0.2.3"),
        .in6_enabled = true,
        .vprefix_addr6 = ipv6("fec0::"),
        .vprefix_len = 64,
        .vhost6 = ipv6("fec0::2"),
        .vnameserver6 = ipv6("fec0::3"),
        .enable_emu = false,
    };

    return slirp_new(&cfg, &callbacks, s);
}

/* Each forward listens now, so a port in use is found before the guest
 * runs; slirp keeps bind()'s errno. */
static int add_forwards(struct slirp_link *s, const struct net_option *o,
                        struct error *e)
{
    for (unsigned i = 0; i < o->nr_fwd; i++) {
        const struct net_hostfwd *f = &o->fwd[i];

        errno = 0;
        if (slirp_add_hostfwd(s->slirp, f->udp, ipv4("127.0.0.1"), f->host_port,
                              ipv4(GUEST_ADDR), f->guest_port) < 0)
            return fail(e, "--net: cannot listen on 127.0.0.1:%u (%s) to forward to "
                           "the guest's port %u: %s", f->host_port,
                        f->udp ? "udp" : "tcp", f->guest_port,
                        errno ? strerror(errno) : "libslirp refused");
    }
    return 0;
}

int slirp_link_open(struct net_link **link, const struct net_option *o,
                    struct error *e)
{
    struct slirp_link *s = calloc(1, sizeof(*s));

    if (!s)
        return fail(e, "out of memory for the network");
    s->link.ops = &ops;
    s->slirp = start(s);
    if (!s->slirp) {
        slirp_close(&s->link);
        return fail(e, "--net user: libslirp would not start");
    }
    if (add_forwards(s, o, e)) {
        slirp_close(&s->link);
        return -1;
    }
    *link = &s->link;
    return 0;
}
