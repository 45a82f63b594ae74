/*
 * The back end's side of one of Xen's split-driver shared rings
 * (io/ring.h): the block device's (1 to 16 pages, 112-byte slots) and the
 * network card's tx and rx rings (one page each, 12- and 8-byte slots).
 * The pages are granted ones the guest sees as one run of memory, so a
 * slot may straddle two of the Launcher's pages.
 *
 * As with hvc_ring.h, the Launcher keeps the indices it owns (req_cons,
 * the responses' producer) and checks req_prod, the one the guest owns, at
 * every load: it may never be more than a ring ahead of the oldest request
 * not yet answered, nor behind what was already taken. A request is copied
 * out of its slot once, and only the copy is looked at.
 */
#ifndef PERCH_BACK_RING_H
#define PERCH_BACK_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/xen/io/ring.h"
#include "../base/error.h"

/* Linux's blkback takes rings of up to 2^4 pages. */
#define BACK_RING_MAX_PAGES 16

struct back_ring {
    const char *name;         /* for the reason a corrupt ring gives */
    uint8_t *pages[BACK_RING_MAX_PAGES];
    unsigned npages;
    size_t slot_bytes;
    uint32_t size;            /* slots: a power of two */
    uint32_t req_cons;        /* ours: the next request to take */
    uint32_t rsp_prod_pvt;    /* ours: responses written */
    uint32_t rsp_prod;        /* ours: responses published */
};

/* Attach to the npages pages the front end initialised (Linux's
 * SHARED_RING_INIT), slots of slot_bytes. It may be a ring an earlier
 * back end served: carry on from its rsp_prod. -1 if the indices are
 * corrupt. */
int back_ring_attach(struct back_ring *r, const char *name, void *const pages[],
                     unsigned npages, size_t slot_bytes, struct error *e);

/* Requests the guest has published and we have not taken; -1 with the
 * reason if its req_prod is impossible (the ring is corrupt). */
long back_ring_waiting(struct back_ring *r, struct error *e);

/* Copy the request at req_cons (slot_bytes of it) out of the ring and
 * move past it. */
void back_ring_take(struct back_ring *r, void *out);

/* Requests taken and not yet answered. */
static inline uint32_t back_ring_unanswered(const struct back_ring *r)
{
    return r->req_cons - r->rsp_prod_pvt;
}

/* Write a response of n <= slot_bytes bytes into the next free slot (not
 * yet visible). */
void back_ring_respond(struct back_ring *r, const void *rsp, size_t n);

/* Publish the responses written so far; true if the guest asked to be
 * notified of them (Xen's RING_PUSH_RESPONSES_AND_CHECK_NOTIFY). */
bool back_ring_push(struct back_ring *r);

/* Nothing left to take: ask the guest to notify us of its next request,
 * then look once more, so one published meanwhile is not missed. True if
 * there is more to take (Xen's RING_FINAL_CHECK_FOR_REQUESTS). */
bool back_ring_rearm(struct back_ring *r);

#endif
