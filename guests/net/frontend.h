/*
 * The net guest's own minimal network front end: xenbus (the vif's nodes,
 * the handshake in xen-netfront's order), a tx and an rx ring sharing one
 * event channel, and frames split over tx slots or gathered from rx
 * slots by hand, so that the tests can also build wrong ones.
 */
#ifndef NET_FRONTEND_H
#define NET_FRONTEND_H

#include "../../abi/xen/io/netif.h"
#include "events.h"
#include "gnttab.h"
#include "ring.h"
#include "rt.h"
#include "xs.h"

#define NET_FE "device/vif/0"

#define NET_TX_SLOTS NETIF_TX_RING_SLOTS
#define NET_RX_SLOTS NETIF_RX_RING_SLOTS
/* A page for each slot of the longest frame the tests send. */
#define NET_TX_PAGES 20u
/* Grant references: the two rings, the tx pages, one per rx buffer. */
#define NET_GREF_TX_RING 8u
#define NET_GREF_RX_RING 9u
#define NET_GREF_TX(i)   (16u + (i))
#define NET_GREF_RX(i)   (64u + (i))

/* What rx buffers are filled with before they are posted: the back end
 * must write only the bytes its response says it wrote. */
#define NET_RX_FILL 0xa5

struct net_vif {
    char be[128];              /* the back end's directory */
    uint8_t mac[6];            /* ours, from the front end's mac node */
    unsigned sg, rx_copy, split, queues, gso;   /* the back end's features */
    uint32_t port;             /* ours, allocated for domain 0 */
};
extern struct net_vif vif;

extern uint8_t net_tx_page[NET_TX_PAGES][4096];

/* The rx buffers, one per rx slot, between two pages no one is granted:
 * the back end's copies must never reach them. */
struct net_rx_area {
    uint8_t canary_before[4096];
    uint8_t buf[NET_RX_SLOTS][4096];
    uint8_t canary_after[4096];
};
extern struct net_rx_area net_rx;

/* What the rx side has seen so far; every response is checked. */
struct net_rx_stats {
    unsigned frames, slots, errors, multi_slot, insane;
    char why[96];              /* the first insane response */
};
extern struct net_rx_stats net_rx_stats;

/* Read the back end's directory, features and our mac; watch its state. */
bool net_probe(void);

/* Rings, port, keys, and state 4 as Linux's netfront does it once the
 * back end waits (InitWait): write `port_to_write` as event-channel
 * instead of ours if nonzero; rx buffers are posted with rx_gref(slot)
 * (NULL: each its own, granted writable). Returns the back end's state
 * at the end (4: connected) or -1. */
int net_connect(uint32_t port_to_write, grant_ref_t (*rx_gref)(unsigned slot));

/* The front end's state back to 1 (Initialising), to connect again. */
bool net_restart(void);

struct rt_ring *net_tx_ring(void);
struct rt_ring *net_rx_ring(void);

/* ---- tx ---- */

/* One request into the next slot, not yet published; its id is the
 * slot's index, which is returned. */
uint16_t net_tx_queue(grant_ref_t gref, uint16_t offset, uint16_t flags, uint16_t size);
/* An extra-info slot after the request before it. */
void net_tx_queue_extra(uint8_t type, uint8_t flags);

/* How the responses to what was queued since the last wait came back. */
struct net_tx_result {
    unsigned got, okay, error, null, other;
    bool ids_ok;               /* each id answered was one queued, once */
    bool pages_intact;         /* net_send: the tx pages still hold the frame */
};

/* Publish and wait for `n` responses (up to `ms`). */
struct net_tx_result net_tx_wait(unsigned n, uint64_t ms);

/* The frame split over `nslots` slots in the tx pages (at odd offsets),
 * published; the responses as net_tx_wait() saw them. Slot i names
 * grefs[i] (NULL: its page's own). */
struct net_tx_result net_send(const uint8_t *frame, unsigned len, unsigned nslots,
                              const grant_ref_t *grefs);

/* ---- rx ---- */

/* The next frame into buf (up to `size` bytes), its slots checked and
 * posted again; its length, 0 if none came in `ms`, or the negative
 * status of an error response (its slot posted again too). */
int net_recv(uint8_t *buf, unsigned size, uint64_t ms);

/* Both canary pages as filled; false with a reason in why. (Each
 * buffer's bytes around what a response says was written are checked
 * as it is taken: net_rx_stats.insane.) */
bool net_canaries_intact(char *why, unsigned size);

/* Requests posted and not yet answered. */
unsigned net_rx_outstanding(void);

#endif
