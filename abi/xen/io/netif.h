/*
 * Network devices (Xen 4.17's public/io/netif.h, the parts perch uses):
 * two one-page shared rings (io/ring.h) per device. On the tx ring the
 * front end (xen-netfront) posts the packets it sends, each as one or more
 * requests naming granted pages, and the back end answers every request;
 * on the rx ring it posts empty granted pages and the back end answers
 * with frames copied into them, in the request's own slot.
 *
 * A tx packet is: a first request (flags NETTXF_*, size = the whole
 * packet's length), then extra-info slots if its flags say
 * NETTXF_extra_info (each may say XEN_NETIF_EXTRA_FLAG_MORE), then one
 * request per further piece while the previous piece's flags say
 * NETTXF_more_data (the first request's more_data starts the chain, an
 * extra's flags do not). The first piece's own length is the total less
 * the others'. Each piece lies within its page: offset + size <= 4096.
 */
#ifndef PERCH_ABI_XEN_IO_NETIF_H
#define PERCH_ABI_XEN_IO_NETIF_H

#include "ring.h"
#include "../grant_table.h"

/* The fewest slots a back end must accept in one tx packet (Linux's old
 * MAX_SKB_FRAGS), and what Linux's netback calls the most it takes. */
#define XEN_NETIF_NR_SLOTS_MIN     18
#define XEN_NETBK_LEGACY_SLOTS_MAX 18

/* A tx packet's length is a u16. */
#define XEN_NETIF_MAX_TX_SIZE 0xffff

/* tx request flags. */
#define NETTXF_csum_blank     (1u << 0)   /* the TCP/UDP checksum is to be filled in */
#define NETTXF_data_validated (1u << 1)   /* the checksum is known good */
#define NETTXF_more_data      (1u << 2)   /* the packet goes on in the next request */
#define NETTXF_extra_info     (1u << 3)   /* extra-info slots follow this one */

/* rx response flags. */
#define NETRXF_data_validated (1u << 0)
#define NETRXF_csum_blank     (1u << 1)
#define NETRXF_more_data      (1u << 2)   /* the frame goes on in the next response */
#define NETRXF_extra_info     (1u << 3)

/* Response statuses; an rx response's non-negative status is the bytes
 * in its page. NULL answers an extra-info slot. */
#define NETIF_RSP_DROPPED (-2)
#define NETIF_RSP_ERROR   (-1)
#define NETIF_RSP_OKAY      0
#define NETIF_RSP_NULL      1

/* Extra-info types: 1 to 4 exist, 0 and 5 up are invalid. */
#define XEN_NETIF_EXTRA_TYPE_NONE      0
#define XEN_NETIF_EXTRA_TYPE_GSO       1   /* segmentation offload */
#define XEN_NETIF_EXTRA_TYPE_MCAST_ADD 2   /* multicast filter */
#define XEN_NETIF_EXTRA_TYPE_MCAST_DEL 3
#define XEN_NETIF_EXTRA_TYPE_HASH      4   /* the packet's hash */
#define XEN_NETIF_EXTRA_TYPE_MAX       5

#define XEN_NETIF_EXTRA_FLAG_MORE (1u << 0)   /* another extra-info slot follows */

/* The xenstore keys: the back end's (backend/vif/<dom>/<handle>/) and the
 * front end's (device/vif/<handle>/). */
#define NETIF_KEY_MAC            "mac"
#define NETIF_KEY_HANDLE         "handle"
#define NETIF_KEY_FEATURE_SG     "feature-sg"
#define NETIF_KEY_RX_COPY        "feature-rx-copy"
#define NETIF_KEY_RX_FLIP        "feature-rx-flip"
#define NETIF_KEY_GSO_TCPV4      "feature-gso-tcpv4"
#define NETIF_KEY_TX_RING_REF    "tx-ring-ref"
#define NETIF_KEY_RX_RING_REF    "rx-ring-ref"
#define NETIF_KEY_EVENT_CHANNEL  "event-channel"
#define NETIF_KEY_REQUEST_RX_COPY "request-rx-copy"

#ifndef __ASSEMBLER__

struct netif_tx_request {
    grant_ref_t gref;
    uint16_t offset;          /* within the page */
    uint16_t flags;           /* NETTXF_* */
    uint16_t id;              /* echoed in the response */
    uint16_t size;            /* the packet's (first request) or the piece's */
};
_Static_assert(sizeof(struct netif_tx_request) == 12, "netif_tx_request");
_Static_assert(offsetof(struct netif_tx_request, id) == 8, "netif_tx_request.id");

/* Overlays a tx request (or rx response) slot. perch only reads its type
 * and flags: it advertises none of the features the bodies belong to. */
struct netif_extra_info {
    uint8_t type;             /* XEN_NETIF_EXTRA_TYPE_* */
    uint8_t flags;            /* XEN_NETIF_EXTRA_FLAG_* */
    uint8_t body[6];
};
_Static_assert(sizeof(struct netif_extra_info) == 8, "netif_extra_info");

struct netif_tx_response {
    uint16_t id;
    int16_t status;           /* NETIF_RSP_* */
};

union netif_tx_sring_entry {
    struct netif_tx_request req;
    struct netif_extra_info extra;
    struct netif_tx_response rsp;
};
_Static_assert(sizeof(union netif_tx_sring_entry) == 12, "netif_tx_sring_entry");

struct netif_rx_request {
    uint16_t id;              /* echoed in the response */
    uint16_t pad;
    grant_ref_t gref;         /* a page the back end writes into */
};
_Static_assert(sizeof(struct netif_rx_request) == 8, "netif_rx_request");

struct netif_rx_response {
    uint16_t id;
    uint16_t offset;          /* where the data starts in the page */
    uint16_t flags;           /* NETRXF_* */
    int16_t status;           /* bytes, or NETIF_RSP_* when negative */
};
_Static_assert(sizeof(struct netif_rx_response) == 8, "netif_rx_response");

union netif_rx_sring_entry {
    struct netif_rx_request req;
    struct netif_rx_response rsp;
};
_Static_assert(sizeof(union netif_rx_sring_entry) == 8, "netif_rx_sring_entry");

/* One page each: 336 tx slots and 504 rx slots fit, the power of two
 * below is 256 for both. */
#define NETIF_TX_RING_SLOTS XEN_RING_SLOTS(XEN_PAGE_SIZE, sizeof(union netif_tx_sring_entry))
#define NETIF_RX_RING_SLOTS XEN_RING_SLOTS(XEN_PAGE_SIZE, sizeof(union netif_rx_sring_entry))
_Static_assert(NETIF_TX_RING_SLOTS == 256, "netif tx ring");
_Static_assert(NETIF_RX_RING_SLOTS == 256, "netif rx ring");

#endif /* !__ASSEMBLER__ */

#endif
