/*
 * The shared ring of Xen's split drivers (Xen 4.17's public/io/ring.h):
 * one page holding a 64-byte header and then an array of slots, each the
 * size of the larger of a request and a response.
 *
 * Indices run free (32 bits, wrapping); a slot is the index modulo the
 * number of slots, which is the largest power of two that fits. The front
 * end produces requests (req_prod) and consumes responses, the back end the
 * opposite. Each side asks to be notified when the other's producer index
 * passes its *_event value.
 */
#ifndef PERCH_ABI_XEN_IO_RING_H
#define PERCH_ABI_XEN_IO_RING_H

#include "../xen.h"

#ifndef __ASSEMBLER__

typedef uint32_t RING_IDX;

/* The start of every shared ring page; the slots follow it. */
struct xen_sring_header {
    RING_IDX req_prod, req_event;
    RING_IDX rsp_prod, rsp_event;
    uint8_t pvt[4];            /* private to the drivers (netfront, blkif) */
    uint8_t pad[44];
};
_Static_assert(sizeof(struct xen_sring_header) == 64, "xen_sring_header");
_Static_assert(offsetof(struct xen_sring_header, rsp_prod) == 8, "sring.rsp_prod");
_Static_assert(offsetof(struct xen_sring_header, pvt) == 16, "sring.pvt");

/* Largest power of two not above n (n > 0). */
#define XEN_RING_POW2_FLOOR(n) \
    (1u << (31 - __builtin_clz((uint32_t)(n))))

/* Slots of `slot_bytes` in a ring of `ring_bytes` (usually a page). */
#define XEN_RING_SLOTS(ring_bytes, slot_bytes) \
    XEN_RING_POW2_FLOOR(((ring_bytes) - sizeof(struct xen_sring_header)) / (slot_bytes))

#endif /* !__ASSEMBLER__ */

#endif
