/*
 * The block back end's data path for one disk: the requests a Xen-PV
 * guest's blkfront puts on its shared ring, served from a file or block
 * device with io_uring, off the vCPU thread.
 *
 * The xenbus side (the xenstore keys of abi/xen/io/blkif.h, the state
 * machine, mapping ring-ref) is the integrator's: it hands over the ring's
 * pages as Launcher pointers, a way to take the guest's grants, the disk
 * and a way to raise the event channel, and the disk's I/O engine
 * (blkif_engine.h), made before the sandbox. One thread, the device's,
 * makes every call: blkif_kick() when the guest's event arrives,
 * blkif_complete() when blkif_completion_fd() is readable; poll() waits
 * on both.
 *
 * Reads and writes go straight between the disk and the granted pages (the
 * Launcher maps all guest memory: no copies). A flush or barrier waits for
 * every request before it and is answered only once fdatasync() has
 * succeeded; a failed I/O is answered BLKIF_RSP_ERROR, never OKAY.
 */
#ifndef PERCH_BLKIF_H
#define PERCH_BLKIF_H

#include <stdbool.h>
#include <stdint.h>

#include "blkif_engine.h"
#include "blkif_request.h"
#include "../xenbus/back_ring.h"
#include "../base/error.h"

/* Linux's blkback takes up to 2^4 pages: 512 slots. */
#define BLKIF_MAX_RING_ORDER 4
#define BLKIF_MAX_RING_PAGES (1u << BLKIF_MAX_RING_ORDER)
_Static_assert(BLKIF_MAX_RING_PAGES <= BACK_RING_MAX_PAGES, "blkif ring pages");

struct blkif_config {
    void *ring_pages[BLKIF_MAX_RING_PAGES];   /* 2^ring_order of them */
    unsigned ring_order;                      /* the front end's ring-page-order */
    struct blkif_grants grants;
    int fd;                   /* the disk: stays the caller's to close */
    uint64_t sectors;         /* its size in 512-byte sectors ("sectors") */
    bool read_only;           /* WRITE, FLUSH, DISCARD refused */
    bool discard;             /* advertised feature-discard: punch holes */
    unsigned max_indirect_segments;   /* advertised; 0 to BLKIF_MAX_INDIRECT_SEGMENTS */
    void (*notify)(void *arg);        /* raise the event channel to the guest */
    void *notify_arg;
};

struct blkif;

/* Attach to the ring, submitting through eng (open, and serving no other
 * ring). NULL with the reason if the configuration is impossible, the
 * ring is corrupt already, or the engine is not free. */
struct blkif *blkif_open(const struct blkif_config *cfg, struct blkif_engine *eng,
                         struct error *e);

/* The guest notified: take every request it has published, answer the
 * invalid ones at once and start the rest. Returns how many were taken,
 * or -1 with the reason if the ring is corrupt (the guest is broken: stop
 * it) or the I/O engine failed; after -1, every call fails again. */
long blkif_kick(struct blkif *b, struct error *e);

/* Readable when I/O has completed (an eventfd: blkif_complete() empties it). */
int blkif_completion_fd(const struct blkif *b);

/* Answer every request whose I/O has completed, releasing its pages, and
 * notify the guest if it asked. Returns how many were answered. */
long blkif_complete(struct blkif *b);

/* Requests started and not yet answered. */
unsigned blkif_in_flight(const struct blkif *b);

/* Every request in flight finished and answered, its response published
 * (a hold for `perch save`: no request is half served). */
void blkif_settle(struct blkif *b);

/* Why the last refused request was refused (a fixed string), or NULL. */
const char *blkif_last_refusal(const struct blkif *b);

/* Wait for the I/O in flight, release its pages without answering (the
 * ring may be going away) and free everything but the engine, which is
 * free for the next blkif_open(). NULL is fine. */
void blkif_close(struct blkif *b);

#endif
