/*
 * A guest's network front end for the tests of the card's data path
 * (test_netif.c, fuzz_netif.c): real guest memory with a real grant table
 * in it (launcher/xenbus/grant.c's, so every take is checked as in perch), the
 * two ring pages as heap pages of their own (AddressSanitizer watches
 * their edges), and the front end's side of both rings as Linux's
 * netfront drives them: slots written, then req_prod published.
 */
#ifndef PERCH_TESTS_NETIF_GUEST_H
#define PERCH_TESTS_NETIF_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/io/netif.h"
#include "../../launcher/xenbus/grant.h"

#define NG_PAGES 48            /* the guest's pages: pfn 0 to 47 */
#define NG_PRIVATE 8           /* perch's frames below them */
#define NG_TABLE_MFN 2         /* the grant table: one frame, 512 entries */
#define NG_GUEST_MFN(pfn) (NG_PRIVATE + (pfn))

struct netif_guest {
    struct guest_memory gm;
    struct grant_table gt;
    uint8_t *tx_ring, *rx_ring;
    uint32_t tx_prod, tx_cons;  /* requests written, responses read */
    uint32_t rx_prod, rx_cons;
};

/* A fresh guest: memory zeroed, no grants, both rings initialised with
 * their indices at start (Linux's SHARED_RING_INIT at 0). */
void ng_setup(struct netif_guest *g, uint32_t start);
/* The same on the guest set up already: no grants (the grant table
 * frame zeroed; its bookkeeping is balanced if the back end released
 * every take), the rings afresh; the pages keep their bytes. */
void ng_reset(struct netif_guest *g, uint32_t start);
void ng_release(struct netif_guest *g);

uint8_t *ng_page(struct netif_guest *g, uint32_t pfn);
struct xen_sring_header *ng_tx_header(struct netif_guest *g);
struct xen_sring_header *ng_rx_header(struct netif_guest *g);

/* Grant pfn to domain domid as gref, as a front end does: frame and domid
 * first, the flags (GTF_permit_access, GTF_readonly) last. */
void ng_grant(struct netif_guest *g, uint32_t gref, uint32_t pfn, uint16_t domid,
              uint16_t flags);
uint16_t ng_grant_flags(struct netif_guest *g, uint32_t gref);

/* Write the next tx slot (not yet published). */
void ng_tx_request(struct netif_guest *g, grant_ref_t gref, uint16_t offset,
                   uint16_t flags, uint16_t id, uint16_t size);
void ng_tx_extra(struct netif_guest *g, uint8_t type, uint8_t flags);
/* Any 12 bytes as the next tx slot. */
void ng_tx_raw(struct netif_guest *g, const uint8_t slot[12]);
void ng_tx_publish(struct netif_guest *g);
/* The next tx response, if one is published. */
bool ng_tx_response(struct netif_guest *g, struct netif_tx_response *out);

/* Post page gref for a frame, and publish it. */
void ng_rx_post(struct netif_guest *g, uint16_t id, grant_ref_t gref);
bool ng_rx_response(struct netif_guest *g, struct netif_rx_response *out);

#endif
