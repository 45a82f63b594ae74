/*
 * Network devices (Xen 4.17's public/io/netif.h): a front end
 * (xen-netfront) and its back end share two rings (io/ring.h) and one
 * event channel. On the tx ring the front end sends frames: a frame is
 * one or more requests, each naming up to a page of it through a grant,
 * the first carrying the frame's whole size. On the rx ring it posts
 * empty granted pages; the back end copies each arriving frame into the
 * next ones and answers in the same slots.
 *
 * A tx slot is 12 bytes, an rx slot 8: 256 slots each in one page. Every
 * request gets one response, in order; an extra-info slot's is
 * NETIF_RSP_NULL.
 */
#ifndef PERCH_ABI_XEN_IO_NETIF_H
#define PERCH_ABI_XEN_IO_NETIF_H

#include "ring.h"
#include "../grant_table.h"

/* Slots a frame may use and a back end must take: the oldest Linux's
 * MAX_SKB_FRAGS. */
#define XEN_NETIF_NR_SLOTS_MIN 18
#define XEN_NETIF_MAX_TX_SIZE  0xffffu

/* A tx request's flags. */
#define NETTXF_csum_blank     (1u << 0)  /* the L4 checksum is to be filled in */
#define NETTXF_data_validated (1u << 1)
#define NETTXF_more_data      (1u << 2)  /* the frame goes on in the next slot */
#define NETTXF_extra_info     (1u << 3)  /* an extra-info slot follows */

/* An rx response's flags. */
#define NETRXF_data_validated (1u << 0)
#define NETRXF_csum_blank     (1u << 1)
#define NETRXF_more_data      (1u << 2)
#define NETRXF_extra_info     (1u << 3)
#define NETRXF_gso_prefix     (1u << 4)

/* Statuses; an rx response's positive status is the bytes it holds. */
#define NETIF_RSP_DROPPED (-2)
#define NETIF_RSP_ERROR   (-1)
#define NETIF_RSP_OKAY      0
#define NETIF_RSP_NULL      1   /* the answer to an extra-info slot */

/* Extra-info types; NONE and MAX and beyond are invalid. */
#define XEN_NETIF_EXTRA_TYPE_NONE      0
#define XEN_NETIF_EXTRA_TYPE_GSO       1
#define XEN_NETIF_EXTRA_TYPE_MCAST_ADD 2
#define XEN_NETIF_EXTRA_TYPE_MCAST_DEL 3
#define XEN_NETIF_EXTRA_TYPE_HASH      4
#define XEN_NETIF_EXTRA_TYPE_MAX       5
#define XEN_NETIF_EXTRA_FLAG_MORE      (1u << 0)

/* The keys of the handshake: the back end's features, the front end's
 * rings, port and requests. */
#define NETIF_KEY_FEATURE_SG         "feature-sg"
#define NETIF_KEY_FEATURE_RX_COPY    "feature-rx-copy"
#define NETIF_KEY_FEATURE_RX_NOTIFY  "feature-rx-notify"
#define NETIF_KEY_SPLIT_EVTCHN       "feature-split-event-channels"
#define NETIF_KEY_MAX_QUEUES         "multi-queue-max-queues"
#define NETIF_KEY_GSO_TCPV4          "feature-gso-tcpv4"
#define NETIF_KEY_TX_RING_REF        "tx-ring-ref"
#define NETIF_KEY_RX_RING_REF        "rx-ring-ref"
#define NETIF_KEY_EVENT_CHANNEL      "event-channel"
#define NETIF_KEY_REQUEST_RX_COPY    "request-rx-copy"
#define NETIF_KEY_MAC                "mac"

#ifndef __ASSEMBLER__

/* Part of a frame: size bytes at offset in the page behind gref; in a
 * frame's first slot size is the whole frame's. */
struct netif_tx_request {
    grant_ref_t gref;
    uint16_t offset;
    uint16_t flags;            /* NETTXF_* */
    uint16_t id;               /* echoed in the response */
    uint16_t size;
};
_Static_assert(sizeof(struct netif_tx_request) == 12, "netif_tx_request");

struct netif_tx_response {
    uint16_t id;
    int16_t status;            /* NETIF_RSP_* */
};

/* In a request's or rx response's slot: type, flags, 6 bytes for it. */
struct netif_extra_info {
    uint8_t type;              /* XEN_NETIF_EXTRA_TYPE_* */
    uint8_t flags;             /* XEN_NETIF_EXTRA_FLAG_* */
    uint8_t data[6];
};
_Static_assert(sizeof(struct netif_extra_info) == 8, "netif_extra_info");

union netif_tx_sring_entry {
    struct netif_tx_request req;
    struct netif_tx_response rsp;
    struct netif_extra_info extra;
};
_Static_assert(sizeof(union netif_tx_sring_entry) == 12, "netif_tx_sring_entry");

/* An empty page for the back end to fill. */
struct netif_rx_request {
    uint16_t id;
    uint16_t pad;
    grant_ref_t gref;
};

/* What landed in it: status bytes at offset (or a negative status). */
struct netif_rx_response {
    uint16_t id;
    uint16_t offset;
    uint16_t flags;            /* NETRXF_* */
    int16_t status;
};

union netif_rx_sring_entry {
    struct netif_rx_request req;
    struct netif_rx_response rsp;
    struct netif_extra_info extra;
};
_Static_assert(sizeof(union netif_rx_sring_entry) == 8, "netif_rx_sring_entry");

#define NETIF_TX_RING_SLOTS \
    XEN_RING_SLOTS(XEN_PAGE_SIZE, sizeof(union netif_tx_sring_entry))
#define NETIF_RX_RING_SLOTS \
    XEN_RING_SLOTS(XEN_PAGE_SIZE, sizeof(union netif_rx_sring_entry))
_Static_assert(NETIF_TX_RING_SLOTS == 256, "netif tx ring of one page");
_Static_assert(NETIF_RX_RING_SLOTS == 256, "netif rx ring of one page");

#endif /* !__ASSEMBLER__ */

#endif
