/*
 * The back end's side of a block device's shared ring (io/blkif.h): one to
 * 2^BLKIF_MAX_RING_ORDER granted pages that the guest sees as one run of
 * memory, so a 112-byte slot may straddle two of the Launcher's pages.
 *
 * As with hvc_ring.h, the Launcher keeps the indices it owns (req_cons,
 * the responses' producer) and checks req_prod, the one the guest owns, at
 * every load: it may never be more than a ring ahead of the oldest request
 * not yet answered, nor behind what was already taken. A request is copied
 * out of its slot once, and only the copy is looked at.
 */
#ifndef PERCH_BLKIF_RING_H
#define PERCH_BLKIF_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "../abi/xen/io/blkif.h"
#include "error.h"

/* Linux's blkback takes up to 2^4 pages: 512 slots. */
#define BLKIF_MAX_RING_ORDER 4
#define BLKIF_MAX_RING_PAGES (1u << BLKIF_MAX_RING_ORDER)

struct blkif_ring {
    uint8_t *pages[BLKIF_MAX_RING_PAGES];
    unsigned npages;
    uint32_t size;            /* slots: 32 << order */
    uint32_t req_cons;        /* ours: the next request to take */
    uint32_t rsp_prod_pvt;    /* ours: responses written */
    uint32_t rsp_prod;        /* ours: responses published */
};

/* Attach to the 2^order pages the front end initialised (Linux's
 * SHARED_RING_INIT). It may be a ring an earlier back end served: carry on
 * from its rsp_prod. -1 if order is too large or the indices are corrupt. */
int blkif_ring_attach(struct blkif_ring *r, void *const pages[], unsigned order,
                      struct error *e);

/* Requests the guest has published and we have not taken; -1 with the
 * reason if its req_prod is impossible (the ring is corrupt). */
long blkif_ring_waiting(struct blkif_ring *r, struct error *e);

/* Copy the request at req_cons out of the ring and move past it. */
void blkif_ring_take(struct blkif_ring *r, union blkif_sring_entry *out);

/* Requests taken and not yet answered. */
static inline uint32_t blkif_ring_unanswered(const struct blkif_ring *r)
{
    return r->req_cons - r->rsp_prod_pvt;
}

/* Write a response into the next free slot (not yet visible). */
void blkif_ring_respond(struct blkif_ring *r, uint64_t id, uint8_t operation,
                        int16_t status);

/* Publish the responses written so far; true if the guest asked to be
 * notified of them (Xen's RING_PUSH_RESPONSES_AND_CHECK_NOTIFY). */
bool blkif_ring_push(struct blkif_ring *r);

/* Nothing left to take: ask the guest to notify us of its next request,
 * then look once more, so one published meanwhile is not missed. True if
 * there is more to take (Xen's RING_FINAL_CHECK_FOR_REQUESTS). */
bool blkif_ring_rearm(struct blkif_ring *r);

#endif
