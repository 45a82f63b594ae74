/*
 * The blk guest's front end (frontend.h): the xenbus handshake with the
 * vbd back end and the shared ring, as Linux's xen-blkfront does them.
 */
#include "frontend.h"

#include "../../abi/xen/io/xenbus.h"

struct blk_disk disk;

static uint8_t ring_page[4096] __attribute__((aligned(4096)));
static volatile struct xen_sring_header *const sring =
    (volatile struct xen_sring_header *)ring_page;
static union blkif_sring_entry *const slots =
    (union blkif_sring_entry *)(ring_page + sizeof(struct xen_sring_header));
static uint32_t req_prod_pvt, rsp_cons;
static uint64_t next_id = 1;

uint8_t blk_data[BLK_DATA_PAGES][4096] __attribute__((aligned(4096)));
uint8_t blk_indirect_page[4096] __attribute__((aligned(4096)));

/* ---- xenstore ---------------------------------------------------------- */

static uint64_t parse_u64(const char *s, bool *ok)
{
    uint64_t v = 0;

    *ok = *s != 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            *ok = false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    return v;
}

/* dir/key as a number; `dflt` if it is absent or not one. */
static uint64_t read_number(const char *dir, const char *key, uint64_t dflt)
{
    char path[160], value[32];
    bool ok;
    uint64_t v;

    fmt_snprintf(path, sizeof(path), "%s/%s", dir, key);
    const char *err = rt_xs_read(path, value, sizeof(value));

    if (err) {
        printk("blk: read %s: %s\n", path, err);
        return dflt;
    }
    v = parse_u64(value, &ok);
    return ok ? v : dflt;
}

static const char *write_key(const char *key, const char *fmt, ...) RT_PRINTF(2, 3);
static const char *write_key(const char *key, const char *fmt, ...)
{
    char path[160], value[64];
    va_list ap;

    va_start(ap, fmt);
    fmt_vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    fmt_snprintf(path, sizeof(path), "%s/%s", BLK_FE, key);
    return rt_xs_write(path, value);
}

int blk_backend_state(void)
{
    return (int)read_number(disk.be, "state", 0);
}

/* Until the back end's state is one of want_a/want_b (its watch fires on
 * every change) or `ms` pass; the state last seen. */
int blk_wait_backend(int want_a, int want_b, uint64_t ms)
{
    uint64_t deadline = rt_now_ns() + ms * RT_NS_PER_MS;
    int s;

    for (;;) {
        s = blk_backend_state();
        if (s == want_a || s == want_b || rt_now_ns() > deadline)
            return s;
        rt_xs_wait_event(100);
    }
}

bool blk_probe(void)
{
    char path[160], watch[160];
    const char *err;

    fmt_snprintf(path, sizeof(path), "%s/backend", BLK_FE);
    err = rt_xs_read(path, disk.be, sizeof(disk.be));
    if (!check("xs_read_backend", !err, "%s: %s", path, err))
        return false;
    disk.sectors = read_number(disk.be, BLKIF_KEY_SECTORS, 0);
    disk.info = (unsigned)read_number(disk.be, BLKIF_KEY_INFO, 0);
    disk.max_indirect = (unsigned)read_number(disk.be, BLKIF_KEY_MAX_INDIRECT, 0);
    disk.discard = read_number(disk.be, BLKIF_KEY_DISCARD, 0) == 1;
    disk.flush = read_number(disk.be, BLKIF_KEY_FLUSH_CACHE, 0) == 1;
    printk("blk: back end %s: %lu sectors, info %u, indirect %u, discard %d, flush %d\n",
           disk.be, (unsigned long)disk.sectors, disk.info, disk.max_indirect,
           disk.discard, disk.flush);
    fmt_snprintf(watch, sizeof(watch), "%s/state", disk.be);
    err = rt_xs_watch(watch, "be");
    return check("xs_watch_backend_state", !err, "%s", err) &&
           check("disk_sectors", disk.sectors > 0, "sectors is 0 or absent");
}

/* The ring and its port, then the keys, then state 3 (Initialised). */
int blk_connect(uint32_t port_to_write)
{
    const char *err;
    int s = blk_wait_backend(XenbusStateInitWait, XenbusStateInitWait, 5000);

    if (s != XenbusStateInitWait) {
        test_fail("backend_initwait", "back end state %d, want 2", s);
        return s;
    }
    if (!disk.port && rt_evtchn_alloc_unbound(0, &disk.port)) {
        test_fail("alloc_unbound", "EVTCHNOP_alloc_unbound(self, 0) failed");
        return -1;
    }
    rt_evtchn_unmask(disk.port);
    memset(ring_page, 0, sizeof(ring_page));
    sring->req_event = sring->rsp_event = 1;
    req_prod_pvt = rsp_cons = 0;
    rt_gnttab_grant(BLK_GREF_RING, 0, rt_virt_to_mfn(ring_page), false);
    err = write_key(BLKIF_KEY_RING_REF, "%u", BLK_GREF_RING);
    if (!err)
        err = write_key(BLKIF_KEY_EVENT_CHANNEL, "%u",
                        port_to_write ? port_to_write : disk.port);
    if (!err)
        err = write_key(BLKIF_KEY_PROTOCOL, "%s", BLKIF_PROTOCOL_X86_64);
    if (!err)
        err = write_key("state", "%d", XenbusStateInitialised);
    if (err) {
        test_fail("frontend_keys", "xs_write: %s", err);
        return -1;
    }
    return blk_wait_backend(XenbusStateConnected, XenbusStateClosing, 5000);
}

bool blk_restart(void)
{
    const char *err = write_key("state", "%d", XenbusStateInitialising);

    return !err;
}

/* ---- The ring ------------------------------------------------------------ */

void blk_publish(void)
{
    uint32_t old = sring->req_prod;

    __atomic_thread_fence(__ATOMIC_RELEASE);    /* the requests before the index */
    sring->req_prod = req_prod_pvt;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* the index before req_event */
    /* RING_PUSH_REQUESTS_AND_CHECK_NOTIFY: only if req_event is in (old, new]. */
    if ((uint32_t)(req_prod_pvt - sring->req_event) < (uint32_t)(req_prod_pvt - old))
        rt_evtchn_send(disk.port);
}

uint64_t blk_queue(union blkif_sring_entry *e)
{
    e->req.id = next_id++;
    memcpy(&slots[req_prod_pvt % BLK_RING_SLOTS], e, sizeof(*e));
    req_prod_pvt++;
    return e->req.id;
}

volatile struct xen_sring_header *blk_sring(void)
{
    return sring;
}

static bool response_waiting(void *arg)
{
    (void)arg;
    return sring->rsp_prod != rsp_cons;
}

bool blk_response(struct blkif_response *out, uint64_t ms)
{
    /* RING_FINAL_CHECK_FOR_RESPONSES: ask for the event, then look. */
    sring->rsp_event = rsp_cons + 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!rt_wait(response_waiting, NULL, ms))
        return false;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    memcpy(out, &slots[rsp_cons % BLK_RING_SLOTS].rsp, sizeof(*out));
    rsp_cons++;
    rt_event_take(disk.port);
    return true;
}

int blk_do(union blkif_sring_entry *e, uint8_t *rsp_op)
{
    struct blkif_response r;
    uint64_t id = blk_queue(e);

    blk_publish();
    if (!blk_response(&r, 5000))
        return BLK_NO_RESPONSE;
    if (r.id != id)
        return BLK_WRONG_ID;
    if (rsp_op)
        *rsp_op = r.operation;
    return r.status;
}

/* ---- Requests ------------------------------------------------------------- */

void blk_rw(union blkif_sring_entry *e, uint8_t op, uint64_t sector)
{
    memset(e, 0, sizeof(*e));
    e->req.operation = op;
    e->req.handle = (uint16_t)BLK_DEVID;
    e->req.sector_number = sector;
}

void blk_seg(union blkif_sring_entry *e, grant_ref_t gref, unsigned first, unsigned last)
{
    struct blkif_request_segment *s = &e->req.seg[e->req.nr_segments++];

    s->gref = gref;
    s->first_sect = (uint8_t)first;
    s->last_sect = (uint8_t)last;
}

void blk_grant_data(void)
{
    for (unsigned i = 0; i < BLK_DATA_PAGES; i++)
        rt_gnttab_grant(BLK_GREF_DATA(i), 0, rt_virt_to_mfn(blk_data[i]), false);
    rt_gnttab_grant(BLK_GREF_INDIRECT, 0, rt_virt_to_mfn(blk_indirect_page), true);
}

/* The pattern every written sector holds: its number, 32 times, in
 * 16-byte lines "s%07u:blkpat\n" (tests/guests/blk.sh builds the same). */
void blk_pattern(uint8_t *buf, uint64_t sector, unsigned nsect)
{
    for (unsigned s = 0; s < nsect; s++)
        for (unsigned l = 0; l < 32; l++) {
            char line[17];

            fmt_snprintf(line, sizeof(line), "s%07lu:blkpat\n", (unsigned long)(sector + s));
            memcpy(buf + s * 512 + l * 16, line, 16);
        }
}

bool blk_holds(const uint8_t *buf, uint64_t sector, unsigned nsect)
{
    static uint8_t want[512];

    for (unsigned s = 0; s < nsect; s++) {
        blk_pattern(want, sector + s, 1);
        if (memcmp(buf + s * 512, want, 512))
            return false;
    }
    return true;
}
