/*
 * --net tap=NAME: the guest's frames go out of a tap device the user made
 * (and bridged, or routed) and frames sent to it come in: one read() or
 * write() per Ethernet frame, no header in front (IFF_NO_PI). perch only
 * attaches to an interface that exists; it never makes one. Attaching to
 * a tap with an owner or group not this user's needs CAP_NET_ADMIN
 * (a tap made with `ip tuntap add NAME mode tap user USER` is the user's;
 * one made with neither is anyone's who can open /dev/net/tun).
 */
#include "net_link_kinds.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Frames read in one round, so the tap cannot keep the device thread
 * from the guest's rings. */
#define READS_PER_ROUND 64

struct tap_link {
    struct net_link link;
    int fd;
    bool gone;                      /* the interface went away: no more polls */
    uint8_t frame[NET_LINK_MAX_FRAME];
};

/* A full queue on the host's side drops the frame, as a wire would. */
static void tap_send(struct net_link *link, const uint8_t *frame, size_t len)
{
    struct tap_link *t = (struct tap_link *)link;
    ssize_t rc = write(t->fd, frame, len);

    (void)rc;
}

static unsigned tap_poll_fill(struct net_link *link, struct pollfd *fds, int *timeout_ms)
{
    struct tap_link *t = (struct tap_link *)link;

    (void)timeout_ms;
    if (t->gone)
        return 0;
    fds[0] = (struct pollfd){ .fd = t->fd, .events = POLLIN };
    return 1;
}

static void tap_poll_done(struct net_link *link, const struct pollfd *fds, unsigned n)
{
    struct tap_link *t = (struct tap_link *)link;

    if (!n || !fds[0].revents)
        return;
    for (int i = 0; i < READS_PER_ROUND; i++) {
        ssize_t len = read(t->fd, t->frame, sizeof(t->frame));

        if (len > 0) {
            net_link_deliver(link, t->frame, (size_t)len);
            continue;
        }
        /* Deleted under us (EBADFD), or brought down for good: the guest's
         * card stays, with nothing on the other end. */
        if (len == 0 || (errno != EAGAIN && errno != EINTR))
            t->gone = true;
        return;
    }
}

static void tap_close(struct net_link *link)
{
    struct tap_link *t = (struct tap_link *)link;

    if (t->fd >= 0)
        close(t->fd);
    free(t);
}

static const struct net_link_ops ops = {
    .send = tap_send,
    .poll_fill = tap_poll_fill,
    .poll_done = tap_poll_done,
    .close = tap_close,
    .sandbox_extra = 0,   /* read and write, which every thread has */
};

/* TUNSETIFF on an interface that exists attaches to it; on one that does
 * not, it would make one, so that case is found first. */
static int attach(struct tap_link *t, const char *name, struct error *e)
{
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };

    if (!if_nametoindex(name))
        return fail(e, "--net tap=%s: there is no interface %s (make it with: ip "
                       "tuntap add %s mode tap user $USER)", name, name, name);
    t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (t->fd < 0)
        return fail(e, "--net tap=%s: cannot open /dev/net/tun: %s", name,
                    strerror(errno));
    memcpy(ifr.ifr_name, name, strlen(name) + 1);
    if (ioctl(t->fd, TUNSETIFF, &ifr) == 0)
        return 0;
    if (errno == EPERM || errno == EACCES)
        return fail(e, "--net tap=%s: not allowed to attach to %s: it needs "
                       "CAP_NET_ADMIN, or a tap made for this user (ip tuntap add "
                       "%s mode tap user $USER)", name, name, name);
    if (errno == EINVAL)
        return fail(e, "--net tap=%s: %s is not a tap device", name, name);
    if (errno == EBUSY)
        return fail(e, "--net tap=%s: %s is in use by another program", name, name);
    return fail(e, "--net tap=%s: cannot attach to %s: %s", name, name,
                strerror(errno));
}

int tap_link_open(struct net_link **link, const struct net_option *o,
                  struct error *e)
{
    struct tap_link *t = calloc(1, sizeof(*t));

    if (!t)
        return fail(e, "out of memory for the network");
    t->link.ops = &ops;
    t->fd = -1;
    if (attach(t, o->tap, e)) {
        tap_close(&t->link);
        return -1;
    }
    *link = &t->link;
    return 0;
}
