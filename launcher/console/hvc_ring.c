/* The hvc0 ring console's indices, checked at every use (the guest owns the page). */
#include "hvc_ring.h"

#include <stdio.h>

#include "../base/ring_index.h"

void hvc_ring_init(struct hvc_ring *r, void *page)
{
    r->page = page;
    r->out_cons = 0;
    r->in_prod = 0;
}

void hvc_ring_resume(struct hvc_ring *r, void *page)
{
    r->page = page;
    r->out_cons = ring_load_index(&r->page->out_cons);
    r->in_prod = ring_load_index(&r->page->in_prod);
}

int hvc_ring_read(struct hvc_ring *r, uint8_t *buf, char *problem,
                  size_t problem_size)
{
    uint32_t prod = ring_load_index(&r->page->out_prod);
    uint32_t used = prod - r->out_cons;

    if (!ring_span_ok(prod, r->out_cons, XENCONS_OUT_BYTES)) {
        snprintf(problem, problem_size, "hvc0 console ring index corrupted "
                 "(out_prod %u, out_cons %u)", prod, r->out_cons);
        return -1;
    }
    for (uint32_t i = 0; i < used; i++)
        buf[i] = r->page->out[(r->out_cons + i) % XENCONS_OUT_BYTES];
    r->out_cons = prod;
    ring_store_index(&r->page->out_cons, r->out_cons);
    return (int)used;
}

long hvc_ring_write(struct hvc_ring *r, const uint8_t *bytes, size_t n,
                    char *problem, size_t problem_size)
{
    uint32_t cons = ring_load_index(&r->page->in_cons);
    uint32_t queued = r->in_prod - cons;
    size_t room;

    if (!ring_span_ok(r->in_prod, cons, XENCONS_IN_BYTES)) {
        snprintf(problem, problem_size, "hvc0 console ring index corrupted "
                 "(in_prod %u, in_cons %u)", r->in_prod, cons);
        return -1;
    }
    room = XENCONS_IN_BYTES - queued;
    if (n > room)
        n = room;
    for (size_t i = 0; i < n; i++)
        r->page->in[(r->in_prod + i) % XENCONS_IN_BYTES] = (char)bytes[i];
    r->in_prod += (uint32_t)n;
    ring_store_index(&r->page->in_prod, r->in_prod);
    return (long)n;
}

uint32_t hvc_ring_input_queued(const struct hvc_ring *r)
{
    uint32_t queued = r->in_prod - ring_load_index(&r->page->in_cons);

    return queued > XENCONS_IN_BYTES ? 0 : queued;
}
