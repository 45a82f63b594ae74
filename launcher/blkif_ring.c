/* A block device's shared ring: slots across granted pages, indices checked at every load. */
#include "blkif_ring.h"

#include <string.h>

#include "ring_index.h"

#define HEADER_BYTES sizeof(struct xen_sring_header)
#define SLOT_BYTES sizeof(union blkif_sring_entry)

static volatile struct xen_sring_header *header(const struct blkif_ring *r)
{
    return (volatile struct xen_sring_header *)r->pages[0];
}

/* Where slot `idx` starts, as a byte offset into the guest's run of pages. */
static size_t slot_offset(const struct blkif_ring *r, uint32_t idx)
{
    return HEADER_BYTES + (size_t)(idx & (r->size - 1)) * SLOT_BYTES;
}

/* Copy n bytes between buf and offset `off` of the ring, page by page (a
 * slot may straddle two pages that are not adjacent in the Launcher). */
static void copy(const struct blkif_ring *r, size_t off, void *buf, size_t n,
                 bool to_ring)
{
    uint8_t *b = buf;

    while (n) {
        size_t in_page = XEN_PAGE_SIZE - off % XEN_PAGE_SIZE;
        size_t chunk = n < in_page ? n : in_page;
        uint8_t *p = r->pages[off / XEN_PAGE_SIZE] + off % XEN_PAGE_SIZE;

        memcpy(to_ring ? p : b, to_ring ? b : p, chunk);
        b += chunk;
        off += chunk;
        n -= chunk;
    }
}

int blkif_ring_attach(struct blkif_ring *r, void *const pages[], unsigned order,
                      struct error *e)
{
    uint32_t req_prod, rsp_prod;

    if (order > BLKIF_MAX_RING_ORDER)
        return fail(e, "blkif ring of 2^%u pages: at most 2^%u", order,
                    BLKIF_MAX_RING_ORDER);
    memset(r, 0, sizeof(*r));
    r->npages = 1u << order;
    for (unsigned i = 0; i < r->npages; i++)
        r->pages[i] = pages[i];
    r->size = BLKIF_RING_SLOTS(r->npages);
    req_prod = ring_load_index(&header(r)->req_prod);
    rsp_prod = ring_load_index(&header(r)->rsp_prod);
    if (!ring_span_ok(req_prod, rsp_prod, r->size))
        return fail(e, "blkif ring index corrupted at attach (req_prod %u, "
                    "rsp_prod %u)", req_prod, rsp_prod);
    r->req_cons = r->rsp_prod_pvt = r->rsp_prod = rsp_prod;
    return 0;
}

long blkif_ring_waiting(struct blkif_ring *r, struct error *e)
{
    uint32_t prod = ring_load_index(&header(r)->req_prod);

    /* At most a ring of requests between the oldest unanswered one and
     * req_prod, and req_prod not behind what we took. */
    if (!ring_span_ok(prod, r->rsp_prod_pvt, r->size) ||
        prod - r->rsp_prod_pvt < blkif_ring_unanswered(r))
        return fail(e, "blkif ring index corrupted (req_prod %u, req_cons %u, "
                    "rsp_prod %u, ring of %u)", prod, r->req_cons,
                    r->rsp_prod_pvt, r->size);
    return (long)(prod - r->req_cons);
}

void blkif_ring_take(struct blkif_ring *r, union blkif_sring_entry *out)
{
    copy(r, slot_offset(r, r->req_cons), out, sizeof(*out), false);
    r->req_cons++;
}

void blkif_ring_respond(struct blkif_ring *r, uint64_t id, uint8_t operation,
                        int16_t status)
{
    struct blkif_response rsp = { .id = id, .operation = operation,
                                  .status = status };

    copy(r, slot_offset(r, r->rsp_prod_pvt), &rsp, sizeof(rsp), true);
    r->rsp_prod_pvt++;
}

bool blkif_ring_push(struct blkif_ring *r)
{
    uint32_t old = r->rsp_prod;   /* ours, not the page's: the guest may scribble */

    if (old == r->rsp_prod_pvt)
        return false;
    r->rsp_prod = r->rsp_prod_pvt;
    ring_store_index(&header(r)->rsp_prod, r->rsp_prod);
    ring_full_barrier();
    return ring_event_due(old, r->rsp_prod,
                          ring_load_index(&header(r)->rsp_event));
}

bool blkif_ring_rearm(struct blkif_ring *r)
{
    if (ring_load_index(&header(r)->req_prod) != r->req_cons)
        return true;
    ring_store_index(&header(r)->req_event, r->req_cons + 1);
    ring_full_barrier();
    return ring_load_index(&header(r)->req_prod) != r->req_cons;
}
