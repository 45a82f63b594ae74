/* The front end's side of a shared ring (ring.h). */
#include "ring.h"

#include "events.h"
#include "rt.h"

void rt_ring_reset(struct rt_ring *r, void *page, uint32_t port)
{
    memset(page, 0, XEN_PAGE_SIZE);
    r->sring = page;
    r->sring->req_event = r->sring->rsp_event = 1;
    r->req_prod_pvt = r->rsp_cons = 0;
    r->port = port;
}

void rt_ring_push(struct rt_ring *r)
{
    RING_IDX old = r->sring->req_prod, new = r->req_prod_pvt;

    __atomic_thread_fence(__ATOMIC_RELEASE);    /* the requests before the index */
    r->sring->req_prod = new;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* the index before req_event */
    if ((RING_IDX)(new - r->sring->req_event) < (RING_IDX)(new - old))
        rt_evtchn_send(r->port);
}

static bool response_waiting(void *arg)
{
    struct rt_ring *r = arg;

    return r->sring->rsp_prod != r->rsp_cons;
}

bool rt_ring_wait_response(struct rt_ring *r, uint64_t ms)
{
    /* RING_FINAL_CHECK_FOR_RESPONSES: ask for the event, then look. */
    r->sring->rsp_event = r->rsp_cons + 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!rt_wait(response_waiting, r, ms))
        return false;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);    /* the index before the slots */
    rt_event_take(r->port);
    return true;
}
