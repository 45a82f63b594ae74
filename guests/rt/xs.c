/* A xenstore client on the start_info ring (xs.h). */
#include "xs.h"

#include "events.h"
#include "rt.h"

#define XS_WAIT_MS 5000

volatile struct xenstore_domain_interface *rt_xs_ring;
uint32_t rt_xs_port;
volatile unsigned rt_xs_watch_events;
static uint32_t last_req_id;   /* bss: guests without xenstore keep no data segment */

/* The message being read: header and payload, gathered across the ring. */
static uint8_t msg[sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX + 1];

bool rt_xs_init(const struct start_info *si)
{
    const uint64_t *p2m = (const uint64_t *)si->mfn_list;

    rt_xs_port = si->store_evtchn;
    for (uint64_t pfn = 0; pfn < si->nr_pages; pfn++) {
        if (p2m[pfn] == si->store_mfn) {
            rt_xs_ring = (volatile struct xenstore_domain_interface *)(RT_VIRT_BASE + pfn * 4096);
            return rt_xs_port && rt_evtchn_unmask(rt_xs_port) == 0;
        }
    }
    return false;
}

static bool req_room(void *arg)
{
    (void)arg;
    return rt_xs_ring->req_prod - rt_xs_ring->req_cons < XENSTORE_RING_SIZE;
}

static bool rsp_waiting(void *arg)
{
    (void)arg;
    return rt_xs_ring->rsp_prod != rt_xs_ring->rsp_cons;
}

bool rt_xs_send_raw(const void *bytes, uint32_t n)
{
    const uint8_t *b = bytes;

    while (n) {
        uint32_t prod = rt_xs_ring->req_prod;
        uint32_t room = XENSTORE_RING_SIZE - (prod - rt_xs_ring->req_cons);
        uint32_t k = n < room ? n : room;

        if (room > XENSTORE_RING_SIZE)
            return false;
        for (uint32_t i = 0; i < k; i++)
            rt_xs_ring->req[MASK_XENSTORE_IDX(prod + i)] = (char)b[i];
        __atomic_store_n(&rt_xs_ring->req_prod, prod + k, __ATOMIC_RELEASE);
        rt_evtchn_send(rt_xs_port);
        b += k;
        n -= k;
        if (n && !rt_wait(req_room, NULL, XS_WAIT_MS))
            return false;
    }
    return true;
}

/* n more bytes of the message into msg[have..]; false on a timeout. */
static bool take(uint32_t have, uint32_t n, uint64_t ms)
{
    while (n) {
        uint32_t cons = rt_xs_ring->rsp_cons;
        uint32_t avail = __atomic_load_n(&rt_xs_ring->rsp_prod, __ATOMIC_ACQUIRE) - cons;
        uint32_t k = n < avail ? n : avail;

        if (avail > XENSTORE_RING_SIZE)
            return false;
        for (uint32_t i = 0; i < k; i++)
            msg[have + i] = (uint8_t)rt_xs_ring->rsp[MASK_XENSTORE_IDX(cons + i)];
        __atomic_store_n(&rt_xs_ring->rsp_cons, cons + k, __ATOMIC_RELEASE);
        if (k)
            rt_evtchn_send(rt_xs_port);     /* the server may wait for room */
        have += k;
        n -= k;
        if (n && !rt_wait(rsp_waiting, NULL, ms))
            return false;
    }
    return true;
}

/* The next whole message into msg[]; false if none came in `ms`. */
static bool read_msg(struct xsd_sockmsg *h, uint64_t ms)
{
    if (!rt_wait(rsp_waiting, NULL, ms) || !take(0, sizeof(*h), XS_WAIT_MS))
        return false;
    memcpy(h, msg, sizeof(*h));
    if (h->len > XENSTORE_PAYLOAD_MAX || !take(sizeof(*h), h->len, XS_WAIT_MS))
        return false;
    msg[sizeof(*h) + h->len] = 0;
    if (h->type == XS_WATCH_EVENT)
        rt_xs_watch_events++;
    return true;
}

const char *rt_xs_request(uint32_t type, const void *payload, uint32_t len,
                          char *reply, uint32_t size, uint32_t *reply_len)
{
    struct xsd_sockmsg h = { .type = type, .req_id = ++last_req_id, .len = len };
    const char *body = (const char *)msg + sizeof(h);

    if (!rt_xs_send_raw(&h, sizeof(h)) || !rt_xs_send_raw(payload, len))
        return "ring";
    do {
        if (!read_msg(&h, XS_WAIT_MS))
            return "timeout";
    } while (h.type == XS_WATCH_EVENT);
    if (h.type == XS_ERROR)
        return h.len ? body : "EIO";   /* body stays until the next call */
    if (reply && size) {
        uint32_t n = h.len < size - 1 ? h.len : size - 1;

        memcpy(reply, body, n);
        reply[n] = 0;
        if (reply_len)
            *reply_len = n;
    }
    return NULL;
}

const char *rt_xs_read(const char *path, char *buf, uint32_t size)
{
    return rt_xs_request(XS_READ, path, (uint32_t)strlen(path) + 1, buf, size, NULL);
}

/* XS_WRITE's payload: path\0 then the value's bytes. */
const char *rt_xs_write(const char *path, const char *value)
{
    static char payload[XENSTORE_PAYLOAD_MAX];
    uint32_t p = (uint32_t)strlen(path) + 1, v = (uint32_t)strlen(value);

    if (p + v > sizeof(payload))
        return "E2BIG";
    memcpy(payload, path, p);
    memcpy(payload + p, value, v);
    return rt_xs_request(XS_WRITE, payload, p + v, NULL, 0, NULL);
}

const char *rt_xs_watch(const char *path, const char *token)
{
    char payload[256];
    uint32_t p = (uint32_t)strlen(path) + 1, t = (uint32_t)strlen(token) + 1;

    if (p + t > sizeof(payload))
        return "E2BIG";
    memcpy(payload, path, p);
    memcpy(payload + p, token, t);
    return rt_xs_request(XS_WATCH, payload, p + t, NULL, 0, NULL);
}

bool rt_xs_wait_event(uint64_t ms)
{
    unsigned before = rt_xs_watch_events;
    struct xsd_sockmsg h;

    while (rt_xs_watch_events == before && read_msg(&h, ms))
        ;
    return rt_xs_watch_events != before;
}
