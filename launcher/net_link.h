/*
 * The host side of the guest's network card: what carries the Ethernet
 * frames the netif back end (vif.h) takes off the guest's tx ring to the
 * outside world, and brings frames from it for the rx ring. Two kinds,
 * both chosen by --net: user-mode networking through libslirp (NAT to the
 * host's own sockets, DHCP and DNS for the guest, forwarded ports on
 * 127.0.0.1; no privileges) and a tap device (the user bridges it).
 *
 * A link is opened before the guest starts, so every mistake in --net (a
 * port in use, a tap that does not exist) is one line before any guest
 * output, and lives on the device thread afterwards: it joins that
 * thread's poll() with its own descriptors and timeout.
 */
#ifndef PERCH_LAUNCHER_NET_LINK_H
#define PERCH_LAUNCHER_NET_LINK_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "net_option.h"

/* The largest frame a link carries either way: an Ethernet header and a
 * 64 KiB IP packet (what netfront's scatter-gather can build). */
#define NET_LINK_MAX_FRAME (65536 + 14)

/* How many pollfds a link may add to the device thread's poll(). */
#define NET_LINK_MAX_POLLFDS 64

struct net_link;

/* Frames for the guest come out through this; the back end copies the
 * frame into the guest's rx buffers (or drops it) before returning. */
typedef void net_link_deliver_fn(void *arg, const uint8_t *frame, size_t len);

/* Open the link --net describes. 0 with *link, or -1 with e. */
int net_link_open(struct net_link **link, const struct net_option *o,
                  net_link_deliver_fn *deliver, void *arg, struct error *e);

/* A frame from the guest, len <= NET_LINK_MAX_FRAME; it may be dropped
 * (as a wire drops it) but is never kept past the call. */
void net_link_send(struct net_link *link, const uint8_t *frame, size_t len);

/* Before poll(): add the link's descriptors at fds (at most
 * NET_LINK_MAX_POLLFDS), return how many, and lower *timeout_ms (-1:
 * none) to the link's next timer. */
unsigned net_link_poll_fill(struct net_link *link, struct pollfd *fds, int *timeout_ms);

/* After poll(): the link's part of fds (as filled), its timers, and the
 * frames that arrived, delivered. */
void net_link_poll_done(struct net_link *link, const struct pollfd *fds, unsigned n);

void net_link_close(struct net_link *link);

#endif
