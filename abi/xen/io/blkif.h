/*
 * Block devices (Xen 4.17's public/io/blkif.h, as x86-64 Linux lays it out
 * for "x86_64-abi"): the front end (xen-blkfront) puts requests on a shared
 * ring (io/ring.h) and grants the back end the pages they read from or
 * write into; the back end answers each with a response carrying the
 * request's id.
 *
 * Every request begins with the same 24 bytes: operation, a byte and a u16
 * whose meaning depends on it, 4 bytes of padding, the guest's id (at 8 in
 * all forms, so even a request the back end cannot parse can be answered)
 * and the first sector. Sectors are 512 bytes whatever sector-size says.
 */
#ifndef PERCH_ABI_XEN_IO_BLKIF_H
#define PERCH_ABI_XEN_IO_BLKIF_H

#include "ring.h"
#include "../grant_table.h"

#define BLKIF_OP_READ            0
#define BLKIF_OP_WRITE           1
#define BLKIF_OP_WRITE_BARRIER   2  /* all earlier requests first; "feature-barrier" */
#define BLKIF_OP_FLUSH_DISKCACHE 3  /* make completed writes durable; "feature-flush-cache" */
#define BLKIF_OP_DISCARD         5  /* "feature-discard" */
#define BLKIF_OP_INDIRECT        6  /* segments in granted pages; "feature-max-indirect-segments" */

#define BLKIF_RSP_EOPNOTSUPP (-2)
#define BLKIF_RSP_ERROR      (-1)
#define BLKIF_RSP_OKAY         0

#define BLKIF_SECTOR_BYTES 512u
#define BLKIF_SECTORS_PER_PAGE 8u    /* so last_sect is at most 7 */
#define BLKIF_MAX_SEGMENTS_PER_REQUEST 11
#define BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST 8

#define BLKIF_DISCARD_SECURE 1u      /* discard's flag; only with "discard-secure" */

/* The back end's xenstore keys (under backend/vbd/<dom>/<dev>/) and the
 * front end's (under device/vbd/<dev>/) that the data path depends on. */
#define BLKIF_KEY_SECTORS          "sectors"        /* disk size, 512-byte units */
#define BLKIF_KEY_SECTOR_SIZE      "sector-size"    /* logical block, bytes */
#define BLKIF_KEY_INFO             "info"           /* VDISK_* bits */
#define BLKIF_KEY_FLUSH_CACHE      "feature-flush-cache"
#define BLKIF_KEY_BARRIER          "feature-barrier"
#define BLKIF_KEY_DISCARD          "feature-discard"
#define BLKIF_KEY_MAX_INDIRECT     "feature-max-indirect-segments"
#define BLKIF_KEY_MAX_RING_ORDER   "max-ring-page-order"
#define BLKIF_KEY_RING_REF         "ring-ref"       /* one page; "ring-ref%u" for more */
#define BLKIF_KEY_RING_PAGE_ORDER  "ring-page-order"
#define BLKIF_KEY_EVENT_CHANNEL    "event-channel"
#define BLKIF_KEY_PROTOCOL         "protocol"
#define BLKIF_PROTOCOL_X86_64      "x86_64-abi"

#define VDISK_CDROM     0x1
#define VDISK_REMOVABLE 0x2
#define VDISK_READONLY  0x4

#ifndef __ASSEMBLER__

/* One page's part of a transfer: sectors first_sect..last_sect (inclusive)
 * of the page behind gref. */
struct blkif_request_segment {
    grant_ref_t gref;
    uint8_t first_sect, last_sect;
    uint8_t pad[2];
};
_Static_assert(sizeof(struct blkif_request_segment) == 8, "blkif_request_segment");

/* How many segments an indirect page holds. */
#define BLKIF_SEGS_PER_INDIRECT_PAGE \
    (XEN_PAGE_SIZE / sizeof(struct blkif_request_segment))

/* READ, WRITE, WRITE_BARRIER, FLUSH_DISKCACHE: up to 11 segments inline.
 * The largest request, so the one that sizes a ring slot. */
struct blkif_request {
    uint8_t operation;
    uint8_t nr_segments;
    uint16_t handle;
    uint32_t pad;
    uint64_t id;
    uint64_t sector_number;
    struct blkif_request_segment seg[BLKIF_MAX_SEGMENTS_PER_REQUEST];
};
_Static_assert(sizeof(struct blkif_request) == 112, "blkif_request");
_Static_assert(offsetof(struct blkif_request, id) == 8, "blkif_request.id");
_Static_assert(offsetof(struct blkif_request, sector_number) == 16, "blkif_request.sector");
_Static_assert(offsetof(struct blkif_request, seg) == 24, "blkif_request.seg");

struct blkif_request_discard {
    uint8_t operation;
    uint8_t flag;                /* BLKIF_DISCARD_SECURE */
    uint16_t handle;
    uint32_t pad;
    uint64_t id;
    uint64_t sector_number;
    uint64_t nr_sectors;
};
_Static_assert(sizeof(struct blkif_request_discard) == 32, "blkif_request_discard");
_Static_assert(offsetof(struct blkif_request_discard, nr_sectors) == 24, "discard.nr_sectors");

/* INDIRECT: a READ or WRITE whose nr_segments segments fill the pages
 * behind indirect_grefs, 512 to a page. */
struct blkif_request_indirect {
    uint8_t operation;
    uint8_t indirect_op;
    uint16_t nr_segments;
    uint32_t pad;
    uint64_t id;
    uint64_t sector_number;
    uint16_t handle;
    uint16_t pad2;
    grant_ref_t indirect_grefs[BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST];
    uint32_t pad3;
};
_Static_assert(sizeof(struct blkif_request_indirect) == 64, "blkif_request_indirect");
_Static_assert(offsetof(struct blkif_request_indirect, nr_segments) == 2, "indirect.nr_segments");
_Static_assert(offsetof(struct blkif_request_indirect, handle) == 24, "indirect.handle");
_Static_assert(offsetof(struct blkif_request_indirect, indirect_grefs) == 28, "indirect.grefs");

/* operation echoes the request's (an INDIRECT request's indirect_op:
 * Linux's blkfront checks it). */
struct blkif_response {
    uint64_t id;
    uint8_t operation;
    uint8_t pad;
    int16_t status;
    uint32_t pad2;
};
_Static_assert(sizeof(struct blkif_response) == 16, "blkif_response");
_Static_assert(offsetof(struct blkif_response, status) == 10, "blkif_response.status");

/* A ring slot holds either. */
union blkif_sring_entry {
    struct blkif_request req;
    struct blkif_request_discard discard;
    struct blkif_request_indirect indirect;
    struct blkif_response rsp;
};
_Static_assert(sizeof(union blkif_sring_entry) == 112, "blkif_sring_entry");

/* 32 slots in one page; a ring of 2^order pages has 32 << order. */
#define BLKIF_RING_SLOTS(pages) \
    XEN_RING_SLOTS((pages) * XEN_PAGE_SIZE, sizeof(union blkif_sring_entry))
_Static_assert(BLKIF_RING_SLOTS(1) == 32, "blkif ring of one page");

#endif /* !__ASSEMBLER__ */

#endif
