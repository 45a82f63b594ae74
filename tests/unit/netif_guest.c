/* A guest's network front end for the data path's tests. See netif_guest.h. */
#include "netif_guest.h"

#include <stdlib.h>
#include <string.h>

#define HEADER sizeof(struct xen_sring_header)
#define TX_SLOT sizeof(union netif_tx_sring_entry)
#define RX_SLOT sizeof(union netif_rx_sring_entry)
_Static_assert(NETIF_TX_RING_SLOTS == 256 && NETIF_RX_RING_SLOTS == 256, "ring slots");

void ng_release(struct netif_guest *g)
{
    grant_table_fini(&g->gt);
    guest_memory_release(&g->gm);
    free(g->tx_ring);
    free(g->rx_ring);
    g->tx_ring = g->rx_ring = NULL;
}

static void ring_init(uint8_t *page, uint32_t start)
{
    struct xen_sring_header *h = (struct xen_sring_header *)page;

    h->req_prod = h->rsp_prod = start;
    h->req_event = h->rsp_event = start + 1;
}

void ng_setup(struct netif_guest *g, uint32_t start)
{
    ng_release(g);
    if (guest_memory_init(&g->gm, NG_PRIVATE, NG_PAGES) ||
        grant_table_init(&g->gt, &g->gm, NG_TABLE_MFN, 1))
        abort();
    g->tx_ring = calloc(1, XEN_PAGE_SIZE);
    g->rx_ring = calloc(1, XEN_PAGE_SIZE);
    if (!g->tx_ring || !g->rx_ring)
        abort();
    ng_reset(g, start);
}

void ng_reset(struct netif_guest *g, uint32_t start)
{
    memset(gm_frame(&g->gm, NG_TABLE_MFN), 0, XEN_PAGE_SIZE);
    memset(g->tx_ring, 0, XEN_PAGE_SIZE);
    memset(g->rx_ring, 0, XEN_PAGE_SIZE);
    ring_init(g->tx_ring, start);
    ring_init(g->rx_ring, start);
    g->tx_prod = g->tx_cons = g->rx_prod = g->rx_cons = start;
}

uint8_t *ng_page(struct netif_guest *g, uint32_t pfn)
{
    return gm_pfn(&g->gm, pfn);
}

struct xen_sring_header *ng_tx_header(struct netif_guest *g)
{
    return (struct xen_sring_header *)g->tx_ring;
}

struct xen_sring_header *ng_rx_header(struct netif_guest *g)
{
    return (struct xen_sring_header *)g->rx_ring;
}

static volatile struct grant_entry_v1 *entry(struct netif_guest *g, uint32_t gref)
{
    return (volatile struct grant_entry_v1 *)gm_frame(&g->gm, NG_TABLE_MFN) + gref;
}

void ng_grant(struct netif_guest *g, uint32_t gref, uint32_t pfn, uint16_t domid,
              uint16_t flags)
{
    entry(g, gref)->frame = NG_GUEST_MFN(pfn);
    entry(g, gref)->domid = domid;
    __atomic_store_n(&entry(g, gref)->flags, flags, __ATOMIC_RELEASE);
}

uint16_t ng_grant_flags(struct netif_guest *g, uint32_t gref)
{
    return entry(g, gref)->flags;
}

static uint8_t *tx_slot(struct netif_guest *g, uint32_t idx)
{
    return g->tx_ring + HEADER + (idx % NETIF_TX_RING_SLOTS) * TX_SLOT;
}

static uint8_t *rx_slot(struct netif_guest *g, uint32_t idx)
{
    return g->rx_ring + HEADER + (idx % NETIF_RX_RING_SLOTS) * RX_SLOT;
}

void ng_tx_raw(struct netif_guest *g, const uint8_t slot[12])
{
    memcpy(tx_slot(g, g->tx_prod++), slot, TX_SLOT);
}

void ng_tx_request(struct netif_guest *g, grant_ref_t gref, uint16_t offset,
                   uint16_t flags, uint16_t id, uint16_t size)
{
    struct netif_tx_request r = { .gref = gref, .offset = offset, .flags = flags,
                                  .id = id, .size = size };

    ng_tx_raw(g, (const uint8_t *)&r);
}

void ng_tx_extra(struct netif_guest *g, uint8_t type, uint8_t flags)
{
    union netif_tx_sring_entry e;

    memset(&e, 0xa5, sizeof(e));   /* a body perch must not look at */
    e.extra.type = type;
    e.extra.flags = flags;
    ng_tx_raw(g, (const uint8_t *)&e);
}

void ng_tx_publish(struct netif_guest *g)
{
    __atomic_store_n(&ng_tx_header(g)->req_prod, g->tx_prod, __ATOMIC_RELEASE);
}

/* The response at *cons of a ring, if the back end has published it. */
static bool response(uint8_t *ring, size_t slot_bytes, uint32_t *cons, void *out,
                     size_t n)
{
    const struct xen_sring_header *h = (const struct xen_sring_header *)ring;

    if (*cons == __atomic_load_n(&h->rsp_prod, __ATOMIC_ACQUIRE))
        return false;
    memcpy(out, ring + HEADER + (*cons)++ % 256 * slot_bytes, n);
    return true;
}

bool ng_tx_response(struct netif_guest *g, struct netif_tx_response *out)
{
    return response(g->tx_ring, TX_SLOT, &g->tx_cons, out, sizeof(*out));
}

void ng_rx_post(struct netif_guest *g, uint16_t id, grant_ref_t gref)
{
    struct netif_rx_request r = { .id = id, .gref = gref };

    memcpy(rx_slot(g, g->rx_prod++), &r, sizeof(r));
    __atomic_store_n(&ng_rx_header(g)->req_prod, g->rx_prod, __ATOMIC_RELEASE);
}

bool ng_rx_response(struct netif_guest *g, struct netif_rx_response *out)
{
    return response(g->rx_ring, RX_SLOT, &g->rx_cons, out, sizeof(*out));
}
