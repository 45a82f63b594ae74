/*
 * The two kinds of link behind net_link.h, as net_link.c sees them: each
 * (slirp_link.c, tap_link.c) embeds a struct net_link first and fills in
 * its operations; net_link.c passes every call on and keeps where frames
 * for the guest go.
 */
#ifndef PERCH_LAUNCHER_NET_LINK_KINDS_H
#define PERCH_LAUNCHER_NET_LINK_KINDS_H

#include "net_link.h"

struct net_link_ops {
    void (*send)(struct net_link *link, const uint8_t *frame, size_t len);
    unsigned (*poll_fill)(struct net_link *link, struct pollfd *fds, int *timeout_ms);
    void (*poll_done)(struct net_link *link, const struct pollfd *fds, unsigned n);
    void (*close)(struct net_link *link);
    unsigned sandbox_extra;
};

struct net_link {
    const struct net_link_ops *ops;
    net_link_deliver_fn *deliver;   /* NULL until net_link_attach() */
    void *deliver_arg;
};

int slirp_link_open(struct net_link **link, const struct net_option *o,
                    struct error *e);
int tap_link_open(struct net_link **link, const struct net_option *o,
                  struct error *e);

/* A frame for the guest, to the back end if one is attached. */
void net_link_deliver(struct net_link *link, const uint8_t *frame, size_t len);

/* *timeout_ms (-1: none) lowered to ms. */
void net_link_lower_timeout(int *timeout_ms, int64_t ms);

#endif
