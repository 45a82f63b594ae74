/*
 * What a block request asks for, decided from the back end's private copy
 * of it (back_ring_take()): an operation the back end knows, segments
 * within their pages, sectors within the disk, and nothing the disk's
 * settings forbid. As in Linux's blkback, a request that fails any check
 * is answered with an error status and the guest carries on; only a
 * corrupt ring (back_ring.h) stops it.
 */
#ifndef PERCH_BLKIF_REQUEST_H
#define PERCH_BLKIF_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/io/blkif.h"

/* What Linux's blkback advertises as feature-max-indirect-segments: 256
 * segments, 1 MiB, in one indirect page. */
#define BLKIF_MAX_INDIRECT_SEGMENTS 256

/* How the back end reaches pages the guest granted: the integrator's grant
 * table. take() gives the 4 KiB page behind gref, for the device to read
 * (device_writes false) or to write into; NULL and *why if the guest did
 * not grant it so. Every page taken is released, with the same flag. */
struct blkif_grants {
    void *(*take)(void *arg, uint32_t gref, bool device_writes, const char **why);
    void (*release)(void *arg, uint32_t gref, bool device_writes);
    void *arg;
};

/* The disk, as the back end advertised it. */
struct blkif_limits {
    uint64_t sectors;                 /* 512-byte sectors */
    bool read_only;
    bool discard;                     /* feature-discard */
    unsigned max_indirect_segments;   /* 0: no indirect requests */
};

enum blkif_kind {
    BLKIF_KIND_READ,
    BLKIF_KIND_WRITE,
    BLKIF_KIND_FLUSH,     /* write the segments if any, then fdatasync */
    BLKIF_KIND_DISCARD,
};

/* One page's share of a transfer. */
struct blkif_seg {
    grant_ref_t gref;
    uint16_t offset, bytes;   /* within the page: offset + bytes <= 4096 */
};

struct blkif_req {
    uint64_t id;              /* echoed in the response */
    uint8_t rsp_op;           /* the response's operation */
    enum blkif_kind kind;
    bool drain;               /* only after every earlier request is done */
    bool barrier;             /* and every later one only after it */
    uint64_t sector, nr_sectors;
    unsigned nseg;            /* segments put in the caller's array */
};

/* Decide what the request in `in` asks for, filling *out and segs[] (room
 * for BLKIF_MAX_SEGMENTS_PER_REQUEST and for lim->max_indirect_segments).
 * An indirect request's pages are taken, copied from once and released
 * here. Returns BLKIF_RSP_OKAY, or the status to answer with (*why: the
 * check that failed); out->id and out->rsp_op are set either way. */
int16_t blkif_request_parse(const union blkif_sring_entry *in,
                            const struct blkif_limits *lim,
                            const struct blkif_grants *grants,
                            struct blkif_req *out, struct blkif_seg *segs,
                            const char **why);

#endif
