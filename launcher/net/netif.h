/*
 * The network card's data path (abi/xen/io/netif.h): the tx ring's
 * packets out of the guest, frames from the outside into the buffers the
 * guest posts on the rx ring. One thread, the device's, makes every call.
 *
 * The xenbus side (vif.h) takes the two ring pages and hands them over
 * with the grant table, a way to send a frame on (the link, net_link.h)
 * and a way to raise the event channel. Nothing of the guest's is kept
 * between calls: every data page is taken (grant.h), copied from or into,
 * and released at once. A packet is assembled from its pieces into a
 * private buffer, its checksum filled in if the guest left it blank, and
 * sent; a frame is copied into one posted page, or several chained with
 * NETRXF_more_data when the front end takes that (its feature-sg).
 *
 * A broken ring stops the guest: a req_prod more than a ring ahead of the
 * back end's consumer on either ring, or a tx packet netif_packet.h calls
 * malformed, or one that runs past req_prod. What Xen calls the guest's
 * error is answered and the guest carries on: a tx piece whose grant is
 * refused gets NETIF_RSP_ERROR for every request of its packet (extras
 * NETIF_RSP_NULL) and the packet is dropped; an rx page whose grant is
 * refused gets a response of NETIF_RSP_ERROR and the frame is dropped. A
 * frame with too few pages posted for it is dropped and counted.
 */
#ifndef PERCH_NETIF_H
#define PERCH_NETIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/xen/io/netif.h"
#include "../xenbus/back_ring.h"
#include "../base/error.h"
#include "../xenbus/grant.h"

struct netif_config {
    void *tx_ring, *rx_ring;  /* the front end's ring pages, taken by the caller */
    struct grant_table *gt;
    bool rx_sg;               /* the front end takes a frame in several pages */
    /* A frame from the guest (len <= XEN_NETIF_MAX_TX_SIZE), not kept. */
    void (*send)(void *arg, const uint8_t *frame, size_t len);
    void (*notify)(void *arg);   /* raise the event channel to the guest */
    void *arg;
};

/* What became of the frames, either way. */
struct netif_counts {
    uint64_t tx_packets;      /* sent on */
    uint64_t tx_errors;       /* answered NETIF_RSP_ERROR */
    uint64_t tx_dropped;      /* answered OKAY but not sent: no checksum to fill */
    uint64_t rx_packets;      /* given to the guest */
    uint64_t rx_errors;       /* a posted page refused */
    uint64_t rx_dropped;      /* too few pages posted, or the ring is broken */
};

struct netif {
    struct netif_config cfg;
    struct back_ring tx, rx;
    struct netif_counts counts;
    bool broken;              /* a ring broke: problem says how */
    struct error problem;
    uint8_t frame[XEN_NETIF_MAX_TX_SIZE];   /* a tx packet, assembled */
};

/* Attach to the two rings. 0, or -1 with e if their indices are corrupt. */
int netif_open(struct netif *n, const struct netif_config *cfg, struct error *e);

/* The guest notified: both rings' req_prod checked, then every packet it
 * has put on the tx ring sent. Returns how many were taken, or -1 with e
 * if a ring is broken (stop the guest; every later call fails too). */
long netif_tx_kick(struct netif *n, struct error *e);

/* How many pages the guest has posted on the rx ring; -1 once its
 * req_prod was found impossible (n->problem says how). */
long netif_rx_posted(struct netif *n);

/* A frame for the guest, from the link: copied into its posted pages, or
 * dropped. A broken rx ring is found here and told by netif_flush(). */
void netif_rx_deliver(struct netif *n, const uint8_t *frame, size_t len);

/* Publish the responses of both rings and raise the event channel if the
 * guest asked to hear of them. 0, or -1 with e if a ring is broken. */
int netif_flush(struct netif *n, struct error *e);

#endif
