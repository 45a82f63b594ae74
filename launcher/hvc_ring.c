/* The hvc0 ring console's indices, checked at every use (the guest owns the page). */
#include "hvc_ring.h"

#include <stdio.h>

/* The guest's indices: loaded once each, with acquire ordering, so the
 * ring's bytes are read (or its slots reused) only after the index that
 * made them valid. */
static uint32_t load_index(volatile uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Ours: stored with release ordering, after the bytes they cover. */
static void store_index(volatile uint32_t *p, uint32_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

void hvc_ring_init(struct hvc_ring *r, void *page)
{
    r->page = page;
    r->out_cons = 0;
    r->in_prod = 0;
}

int hvc_ring_read(struct hvc_ring *r, uint8_t *buf, char *problem,
                  size_t problem_size)
{
    uint32_t prod = load_index(&r->page->out_prod);
    uint32_t used = prod - r->out_cons;

    if (used > XENCONS_OUT_BYTES) {
        snprintf(problem, problem_size, "hvc0 console ring index corrupted "
                 "(out_prod %u, out_cons %u)", prod, r->out_cons);
        return -1;
    }
    for (uint32_t i = 0; i < used; i++)
        buf[i] = r->page->out[(r->out_cons + i) % XENCONS_OUT_BYTES];
    r->out_cons = prod;
    store_index(&r->page->out_cons, r->out_cons);
    return (int)used;
}

long hvc_ring_write(struct hvc_ring *r, const uint8_t *bytes, size_t n,
                    char *problem, size_t problem_size)
{
    uint32_t cons = load_index(&r->page->in_cons);
    uint32_t queued = r->in_prod - cons;
    size_t room;

    if (queued > XENCONS_IN_BYTES) {
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
    store_index(&r->page->in_prod, r->in_prod);
    return (long)n;
}

uint32_t hvc_ring_input_queued(const struct hvc_ring *r)
{
    uint32_t queued = r->in_prod - load_index(&r->page->in_cons);

    return queued > XENCONS_IN_BYTES ? 0 : queued;
}
