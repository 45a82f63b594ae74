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

#include "../base/error.h"
#include "net_option.h"

/* The largest frame a link carries either way: an Ethernet header and a
 * 64 KiB IP packet (what netfront's scatter-gather can build). */
#define NET_LINK_MAX_FRAME (65536 + 14)

/* How many pollfds a link may add to the device thread's poll(). */
#define NET_LINK_MAX_POLLFDS 64

struct net_link;

/* Frames for the guest come out through this, only ever from inside
 * net_link_poll_done(); the back end copies the frame into the guest's
 * rx buffers (or drops it) before returning. */
typedef void net_link_deliver_fn(void *arg, const uint8_t *frame, size_t len);

/* Open the link --net describes, before the VM is made (launch.c, beside
 * the disks): every port in use and every missing tap is found here. 0
 * with *link, or -1 with e. */
int net_link_open(struct net_link **link, const struct net_option *o,
                  struct error *e);

/* The back end, once it exists, says where frames go; until then the
 * link drops what arrives for the guest, as a wire with no card. */
void net_link_attach(struct net_link *link, net_link_deliver_fn *deliver, void *arg);

/* What the thread that polls the link needs of the sandbox beyond the
 * rest (SANDBOX_* of sandbox.h, for confined_thread_start_with()). */
unsigned net_link_sandbox_extra(const struct net_link *link);

/* A frame from the guest, len <= NET_LINK_MAX_FRAME; it may be dropped
 * (as a wire drops it) but is never kept past the call. */
void net_link_send(struct net_link *link, const uint8_t *frame, size_t len);

/* Before poll(): add the link's descriptors at fds (at most
 * NET_LINK_MAX_POLLFDS), return how many, and lower *timeout_ms (-1:
 * none) to the link's next timer. */
unsigned net_link_poll_fill(struct net_link *link, struct pollfd *fds, int *timeout_ms);

/* After every poll(), one that timed out too: the link's part of fds (as
 * filled), its timers, and the frames that arrived, delivered. */
void net_link_poll_done(struct net_link *link, const struct pollfd *fds, unsigned n);

void net_link_close(struct net_link *link);

#endif
