/*
 * What the slots of one tx packet say (abi/xen/io/netif.h has the
 * format), decided slot by slot from the back end's private copies
 * (back_ring_take()): the pieces of the packet, each a part of a granted
 * page, and the slots to answer.
 *
 * What Linux's netback calls a malicious front end is malformed here too,
 * and stops the guest: more than XEN_NETBK_LEGACY_SLOTS_MAX slots in one
 * packet (extras counted), a piece that runs past the end of its page,
 * pieces after the first that add up to more than the packet's length
 * (the first's size), an extra-info slot of a type Xen does not define.
 * The contents of extras of a known type are not looked at: perch
 * advertises none of the features they belong to (GSO, multicast
 * control, hashing).
 */
#ifndef PERCH_NETIF_PACKET_H
#define PERCH_NETIF_PACKET_H

#include <stdint.h>

#include "../../abi/xen/io/netif.h"
#include "../base/error.h"

/* One piece of the packet: size bytes at offset in the page behind gref. */
struct netif_piece {
    grant_ref_t gref;
    uint16_t offset, size;
    uint16_t id;              /* its request's, for the response */
};

struct netif_packet {
    uint16_t flags;           /* the first request's NETTXF_* */
    uint16_t len;             /* the whole packet's: the first request's size */
    unsigned nslots;          /* slots taken: requests and extras */
    unsigned nextras;         /* the extras, right after the first request */
    unsigned npieces;
    struct netif_piece pieces[XEN_NETBK_LEGACY_SLOTS_MAX];
    uint32_t rest;            /* the bytes of the pieces after the first */
    int want;                 /* what the next slot is (netif_packet.c) */
};

#define NETIF_PACKET_MORE 1   /* the packet needs another slot */
#define NETIF_PACKET_DONE 0   /* complete: pieces[0].size is the first's own */

void netif_packet_start(struct netif_packet *p);

/* Add the packet's next slot. NETIF_PACKET_MORE, NETIF_PACKET_DONE, or -1
 * with e saying what is malformed (stop the guest). */
int netif_packet_add(struct netif_packet *p, const union netif_tx_sring_entry *slot,
                     struct error *e);

#endif
