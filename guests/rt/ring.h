/*
 * The front end's side of a shared ring (abi/xen/io/ring.h), whatever its
 * slots hold: the private request producer, the response consumer, and
 * the notification rules of Xen's ring macros (publish the index, then
 * notify only if the back end's req_event lies in what was just
 * published; ask for an event before the last look for responses).
 */
#ifndef PERCH_RT_RING_H
#define PERCH_RT_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/io/ring.h"

struct rt_ring {
    volatile struct xen_sring_header *sring;
    RING_IDX req_prod_pvt;     /* requests written, not yet published */
    RING_IDX rsp_cons;         /* responses taken */
    uint32_t port;             /* the device's event channel */
};

/* A zeroed ring page with both events asked for at index 1. */
void rt_ring_reset(struct rt_ring *r, void *page, uint32_t port);

/* req_prod = req_prod_pvt, and the event if the back end asked for it. */
void rt_ring_push(struct rt_ring *r);

/* True once a response waits at rsp_cons (read it after this returns),
 * false if none came in `ms`. */
bool rt_ring_wait_response(struct rt_ring *r, uint64_t ms);

#endif
