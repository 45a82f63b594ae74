/* A split driver's shared ring, the back end's side: slots across granted pages, indices checked at every load. */
#include "back_ring.h"

#include <string.h>

#include "../base/ring_index.h"

#define HEADER_BYTES sizeof(struct xen_sring_header)

static volatile struct xen_sring_header *header(const struct back_ring *r)
{
    return (volatile struct xen_sring_header *)r->pages[0];
}

/* Where slot `idx` starts, as a byte offset into the guest's run of pages. */
static size_t slot_offset(const struct back_ring *r, uint32_t idx)
{
    return HEADER_BYTES + (size_t)(idx & (r->size - 1)) * r->slot_bytes;
}

/* Copy n bytes from offset `off` of the ring into out, or from in into
 * the ring, page by page (a slot may straddle two pages that are not
 * adjacent in the Launcher). */
static void copy(const struct back_ring *r, size_t off, uint8_t *out,
                 const uint8_t *in, size_t n)
{
    while (n) {
        size_t in_page = XEN_PAGE_SIZE - off % XEN_PAGE_SIZE;
        size_t chunk = n < in_page ? n : in_page;
        uint8_t *p = r->pages[off / XEN_PAGE_SIZE] + off % XEN_PAGE_SIZE;

        if (out) {
            memcpy(out, p, chunk);
            out += chunk;
        } else {
            memcpy(p, in, chunk);
            in += chunk;
        }
        off += chunk;
        n -= chunk;
    }
}

int back_ring_attach(struct back_ring *r, const char *name, void *const pages[],
                     unsigned npages, size_t slot_bytes, struct error *e)
{
    uint32_t req_prod, rsp_prod;

    if (!npages || npages > BACK_RING_MAX_PAGES || !slot_bytes ||
        slot_bytes > npages * XEN_PAGE_SIZE - HEADER_BYTES)
        return fail(e, "%s ring of %u pages and %zu-byte slots", name, npages,
                    slot_bytes);
    memset(r, 0, sizeof(*r));
    r->name = name;
    r->npages = npages;
    for (unsigned i = 0; i < npages; i++)
        r->pages[i] = pages[i];
    r->slot_bytes = slot_bytes;
    r->size = XEN_RING_SLOTS(npages * XEN_PAGE_SIZE, slot_bytes);
    req_prod = ring_load_index(&header(r)->req_prod);
    rsp_prod = ring_load_index(&header(r)->rsp_prod);
    if (!ring_span_ok(req_prod, rsp_prod, r->size))
        return fail(e, "%s ring index corrupted at attach (req_prod %u, "
                    "rsp_prod %u)", name, req_prod, rsp_prod);
    r->req_cons = r->rsp_prod_pvt = r->rsp_prod = rsp_prod;
    return 0;
}

long back_ring_waiting(struct back_ring *r, struct error *e)
{
    uint32_t prod = ring_load_index(&header(r)->req_prod);

    /* At most a ring of requests between the oldest unanswered one and
     * req_prod, and req_prod not behind what we took. */
    if (!ring_span_ok(prod, r->rsp_prod_pvt, r->size) ||
        prod - r->rsp_prod_pvt < back_ring_unanswered(r))
        return fail(e, "%s ring index corrupted (req_prod %u, req_cons %u, "
                    "rsp_prod %u, ring of %u)", r->name, prod, r->req_cons,
                    r->rsp_prod_pvt, r->size);
    return (long)(prod - r->req_cons);
}

void back_ring_take(struct back_ring *r, void *out)
{
    copy(r, slot_offset(r, r->req_cons), out, NULL, r->slot_bytes);
    r->req_cons++;
}

void back_ring_respond(struct back_ring *r, const void *rsp, size_t n)
{
    copy(r, slot_offset(r, r->rsp_prod_pvt), NULL, rsp, n);
    r->rsp_prod_pvt++;
}

bool back_ring_push(struct back_ring *r)
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

bool back_ring_rearm(struct back_ring *r)
{
    if (ring_load_index(&header(r)->req_prod) != r->req_cons)
        return true;
    ring_store_index(&header(r)->req_event, r->req_cons + 1);
    ring_full_barrier();
    return ring_load_index(&header(r)->req_prod) != r->req_cons;
}
