/*
 * The net guest's front end (frontend.h): the xenbus handshake with the
 * vif back end and its two rings, as Linux's xen-netfront does them, with
 * every rx response checked on the way in.
 */
#include "frontend.h"

#include "../../abi/xen/io/xenbus.h"
#include "../../lib/hex.h"
#include "xenbus.h"

struct net_vif vif;
struct net_rx_stats net_rx_stats;
uint8_t net_tx_page[NET_TX_PAGES][4096] __attribute__((aligned(4096)));
struct net_rx_area net_rx __attribute__((aligned(4096)));

static uint8_t tx_ring_page[4096] __attribute__((aligned(4096)));
static uint8_t rx_ring_page[4096] __attribute__((aligned(4096)));
static union netif_tx_sring_entry *const tx_slots =
    (union netif_tx_sring_entry *)(tx_ring_page + sizeof(struct xen_sring_header));
static union netif_rx_sring_entry *const rx_slots =
    (union netif_rx_sring_entry *)(rx_ring_page + sizeof(struct xen_sring_header));
static struct rt_ring tx, rx;

/* The tx ids queued and not yet answered (an id is its slot's index). */
static bool tx_pending[NET_TX_SLOTS];

/* ---- xenstore ------------------------------------------------------------ */

/* "xx:xx:xx:xx:xx:xx", as netfront's xen_net_read_mac takes it. */
static bool parse_mac(const char *s, uint8_t mac[6])
{
    for (unsigned i = 0; i < 6; i++, s += 3) {
        int hi = hex_digit(s[0]), lo = hex_digit(hi < 0 ? 0 : s[1]);

        if (hi < 0 || lo < 0 || s[2] != (i == 5 ? '\0' : ':'))
            return false;
        mac[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

bool net_probe(void)
{
    char path[160], value[32], watch[160];
    const char *err;
    uint64_t be_id, handle;

    memset(net_rx.canary_before, NET_RX_FILL, sizeof(net_rx.canary_before));
    memset(net_rx.canary_after, NET_RX_FILL, sizeof(net_rx.canary_after));
    fmt_snprintf(path, sizeof(path), "%s/backend", NET_FE);
    err = rt_xs_read(path, vif.be, sizeof(vif.be));
    if (!check("xs_read_backend", !err, "%s: %s", path, err))
        return false;
    fmt_snprintf(path, sizeof(path), "%s/%s", NET_FE, NETIF_KEY_MAC);
    err = rt_xs_read(path, value, sizeof(value));
    if (!check("mac", !err && parse_mac(value, vif.mac), "%s: %s", path, err ? err : value))
        return false;
    be_id = rt_xenbus_read_u64(NET_FE, "backend-id", 99);
    handle = rt_xenbus_read_u64(NET_FE, "handle", 99);
    check("frontend_nodes", be_id == 0 && handle == 0, "backend-id %lu, handle %lu",
          (unsigned long)be_id, (unsigned long)handle);
    vif.sg = (unsigned)rt_xenbus_read_u64(vif.be, NETIF_KEY_FEATURE_SG, 0);
    vif.rx_copy = (unsigned)rt_xenbus_read_u64(vif.be, NETIF_KEY_RX_COPY, 0);
    vif.split = (unsigned)rt_xenbus_read_u64(vif.be, NETIF_KEY_SPLIT_EVTCHN, 0);
    vif.queues = (unsigned)rt_xenbus_read_u64(vif.be, NETIF_KEY_MAX_QUEUES, 0);
    vif.gso = (unsigned)rt_xenbus_read_u64(vif.be, NETIF_KEY_GSO_TCPV4, 0);
    printk("net: back end %s: sg %u, rx-copy %u, split %u, queues %u, gso %u; mac %s\n",
           vif.be, vif.sg, vif.rx_copy, vif.split, vif.queues, vif.gso, value);
    fmt_snprintf(watch, sizeof(watch), "%s/state", vif.be);
    err = rt_xs_watch(watch, "be");
    return check("xs_watch_backend_state", !err, "%s", err);
}

/* ---- The handshake ------------------------------------------------------- */

static void rx_post(grant_ref_t gref)
{
    unsigned slot = rx.req_prod_pvt++ % NET_RX_SLOTS;

    memset(net_rx.buf[slot], NET_RX_FILL, 4096);
    rx_slots[slot].req = (struct netif_rx_request){ .id = (uint16_t)slot, .gref = gref };
}

static void grant_buffers(void)
{
    rt_gnttab_grant(NET_GREF_TX_RING, 0, rt_virt_to_mfn(tx_ring_page), false);
    rt_gnttab_grant(NET_GREF_RX_RING, 0, rt_virt_to_mfn(rx_ring_page), false);
    for (unsigned i = 0; i < NET_TX_PAGES; i++)
        rt_gnttab_grant(NET_GREF_TX(i), 0, rt_virt_to_mfn(net_tx_page[i]), true);
    for (unsigned i = 0; i < NET_RX_SLOTS; i++)
        rt_gnttab_grant(NET_GREF_RX(i), 0, rt_virt_to_mfn(net_rx.buf[i]), false);
}

/* talk_to_netback's keys, in its order. */
static const char *write_keys(uint32_t port)
{
    const char *err = rt_xenbus_printf(NET_FE, NETIF_KEY_TX_RING_REF, "%u", NET_GREF_TX_RING);

    if (!err)
        err = rt_xenbus_printf(NET_FE, NETIF_KEY_RX_RING_REF, "%u", NET_GREF_RX_RING);
    if (!err)
        err = rt_xenbus_printf(NET_FE, NETIF_KEY_EVENT_CHANNEL, "%u", port);
    if (!err)
        err = rt_xenbus_printf(NET_FE, NETIF_KEY_REQUEST_RX_COPY, "1");
    if (!err)
        err = rt_xenbus_printf(NET_FE, NETIF_KEY_RX_NOTIFY, "1");
    if (!err)
        err = rt_xenbus_printf(NET_FE, NETIF_KEY_FEATURE_SG, "1");
    return err;
}

/* netback_changed: on the back end's InitWait, xennet_connect writes the
 * keys, posts a ring of rx buffers and kicks, then the state is 4. */
int net_connect(uint32_t port_to_write, grant_ref_t (*rx_gref)(unsigned slot))
{
    const char *err;
    int s = rt_xenbus_frontend_start(vif.be, &vif.port);

    if (s != XenbusStateInitWait)
        return s;
    rt_ring_reset(&tx, tx_ring_page, vif.port);
    rt_ring_reset(&rx, rx_ring_page, vif.port);
    memset(tx_pending, 0, sizeof(tx_pending));
    grant_buffers();
    err = write_keys(port_to_write ? port_to_write : vif.port);
    if (err) {
        test_fail("frontend_keys", "xs_write: %s", err);
        return -1;
    }
    for (unsigned i = 0; i < NET_RX_SLOTS; i++)
        rx_post(rx_gref ? rx_gref(i) : NET_GREF_RX(i));
    rt_ring_push(&rx);
    rt_evtchn_send(vif.port);
    err = rt_xenbus_printf(NET_FE, "state", "%d", XenbusStateConnected);
    if (err) {
        test_fail("frontend_state", "xs_write: %s", err);
        return -1;
    }
    return rt_xenbus_wait_state(vif.be, XenbusStateConnected, XenbusStateClosing, 5000);
}

bool net_restart(void)
{
    return !rt_xenbus_printf(NET_FE, "state", "%d", XenbusStateInitialising);
}

struct rt_ring *net_tx_ring(void)
{
    return &tx;
}

struct rt_ring *net_rx_ring(void)
{
    return &rx;
}

/* ---- tx ---------------------------------------------------------------------- */

uint16_t net_tx_queue(grant_ref_t gref, uint16_t offset, uint16_t flags, uint16_t size)
{
    uint16_t id = (uint16_t)(tx.req_prod_pvt++ % NET_TX_SLOTS);

    tx_slots[id].req = (struct netif_tx_request){
        .gref = gref, .offset = offset, .flags = flags, .id = id, .size = size,
    };
    tx_pending[id] = true;
    return id;
}

void net_tx_queue_extra(uint8_t type, uint8_t flags)
{
    union netif_tx_sring_entry *e = &tx_slots[tx.req_prod_pvt++ % NET_TX_SLOTS];

    memset(e, 0, sizeof(*e));
    e->extra.type = type;
    e->extra.flags = flags;
}

static void count_status(struct net_tx_result *r, int16_t status)
{
    if (status == NETIF_RSP_OKAY)
        r->okay++;
    else if (status == NETIF_RSP_ERROR)
        r->error++;
    else if (status == NETIF_RSP_NULL)
        r->null++;
    else
        r->other++;
}

struct net_tx_result net_tx_wait(unsigned n, uint64_t ms)
{
    struct net_tx_result r = { .ids_ok = true, .pages_intact = true };

    rt_ring_push(&tx);
    while (r.got < n && rt_ring_wait_response(&tx, ms)) {
        struct netif_tx_response rsp = tx_slots[tx.rsp_cons++ % NET_TX_SLOTS].rsp;

        r.got++;
        count_status(&r, rsp.status);
        if (rsp.status == NETIF_RSP_NULL)
            continue;                   /* an extra's: its id means nothing */
        if (rsp.id >= NET_TX_SLOTS || !tx_pending[rsp.id])
            r.ids_ok = false;
        else
            tx_pending[rsp.id] = false;
    }
    memset(tx_pending, 0, sizeof(tx_pending));   /* what went unanswered stays so */
    return r;
}

/* Where piece i of a frame goes in its page: an odd offset while it fits. */
static uint16_t piece_offset(unsigned i, unsigned size)
{
    unsigned off = (i * 37 + 2) % 128;

    return (uint16_t)(off + size <= 4096 ? off : 4096 - size);
}

struct net_tx_result net_send(const uint8_t *frame, unsigned len, unsigned nslots,
                              const grant_ref_t *grefs)
{
    unsigned rest = len / nslots, first = len - (nslots - 1) * rest, at = 0;
    uint16_t offset[NET_TX_PAGES];
    struct net_tx_result r;

    if (nslots > NET_TX_PAGES || first > 4096 || len > XEN_NETIF_MAX_TX_SIZE) {
        test_fail("net_send", "%u bytes in %u slots do not fit", len, nslots);
        return (struct net_tx_result){ 0 };
    }
    for (unsigned i = 0; i < nslots; i++) {
        unsigned size = i ? rest : first;

        offset[i] = piece_offset(i, size);
        memcpy(net_tx_page[i] + offset[i], frame + at, size);
        net_tx_queue(grefs ? grefs[i] : NET_GREF_TX(i), offset[i], i + 1 < nslots ? NETTXF_more_data : 0,
                     (uint16_t)(i ? size : len));
        at += size;
    }
    r = net_tx_wait(nslots, 2000);
    at = 0;
    for (unsigned i = 0; i < nslots; i++) {
        unsigned size = i ? rest : first;

        r.pages_intact = r.pages_intact && !memcmp(net_tx_page[i] + offset[i], frame + at, size);
        at += size;
    }
    return r;
}

/* ---- rx ------------------------------------------------------------------------ */

static void insane(const char *fmt, ...) RT_PRINTF(1, 2);
static void insane(const char *fmt, ...)
{
    va_list ap;

    if (!net_rx_stats.insane++) {
        va_start(ap, fmt);
        fmt_vsnprintf(net_rx_stats.why, sizeof(net_rx_stats.why), fmt, ap);
        va_end(ap);
    }
}

static bool all_fill(const uint8_t *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (p[i] != NET_RX_FILL)
            return false;
    return true;
}

/* The slot's buffer, back to its own gref, granted writable again (a
 * hostile case may have changed it), as the next request. */
static void repost(unsigned slot)
{
    rt_gnttab_grant(NET_GREF_RX(slot), 0, rt_virt_to_mfn(net_rx.buf[slot]), false);
    rx_post(NET_GREF_RX(slot));
}

/* The next response: its slot, checked against the request in it. */
static bool next_response(struct netif_rx_response *out, unsigned *slot, uint64_t ms)
{
    if (!rt_ring_wait_response(&rx, ms))
        return false;
    *slot = rx.rsp_cons++ % NET_RX_SLOTS;
    *out = rx_slots[*slot].rsp;
    net_rx_stats.slots++;
    return true;
}

/* Extra-info slots after a response flagged with them: valid types only. */
static void skip_extras(void)
{
    struct netif_rx_response r;
    unsigned slot;
    struct netif_extra_info x;

    do {
        if (!next_response(&r, &slot, 1000)) {
            insane("an extra-info flag with no slot after it");
            return;
        }
        memcpy(&x, &r, sizeof(x));
        if (x.type == XEN_NETIF_EXTRA_TYPE_NONE || x.type >= XEN_NETIF_EXTRA_TYPE_MAX)
            insane("rx extra-info of type %u", x.type);
        repost(slot);
    } while (x.flags & XEN_NETIF_EXTRA_FLAG_MORE);
}

/* One data response: id, bounds, flags, and the buffer around the data. */
static bool sane(const struct netif_rx_response *r, unsigned slot)
{
    const uint8_t *b = net_rx.buf[slot];
    unsigned end = (unsigned)r->offset + (unsigned)r->status;

    if (r->id != slot)
        insane("rx response id %u in slot %u", r->id, slot);
    else if (end > 4096)
        insane("rx response offset %u + size %d beyond the page", r->offset, r->status);
    else if (r->flags & ~0x1fu)
        insane("rx response flags %#x", r->flags);
    else if (!all_fill(b, r->offset) || !all_fill(b + end, 4096 - end))
        insane("rx buffer %u written outside offset %u size %d", slot, r->offset, r->status);
    else
        return true;
    return false;
}

int net_recv(uint8_t *buf, unsigned size, uint64_t ms)
{
    struct netif_rx_response r;
    unsigned slot, len = 0, slots = 0;
    int result;

    for (;;) {
        if (!next_response(&r, &slot, slots ? 1000 : ms)) {
            if (slots)
                insane("rx frame cut off after %u slots", slots);
            result = 0;
            break;
        }
        slots++;
        if (r.status < 0) {
            net_rx_stats.errors++;
            if (!all_fill(net_rx.buf[slot], 4096))
                insane("rx buffer %u written, status %d", slot, r.status);
            repost(slot);
            result = r.status;
            break;
        }
        if (sane(&r, slot) && len + (unsigned)r.status <= size)
            memcpy(buf + len, net_rx.buf[slot] + r.offset, (unsigned)r.status);
        len += (unsigned)r.status;
        repost(slot);
        if (r.flags & NETRXF_extra_info)
            skip_extras();
        if (!(r.flags & NETRXF_more_data)) {
            net_rx_stats.frames++;
            net_rx_stats.multi_slot += slots > 1;
            if (len > size || len < 14)
                insane("rx frame of %u bytes", len);
            result = len > size ? 0 : (int)len;
            break;
        }
    }
    rt_ring_push(&rx);
    return result;
}

bool net_canaries_intact(char *why, unsigned size)
{
    bool before = all_fill(net_rx.canary_before, 4096), after = all_fill(net_rx.canary_after, 4096);

    fmt_snprintf(why, size, "canary page before the rx buffers %s, after them %s",
                 before ? "intact" : "written", after ? "intact" : "written");
    return before && after;
}

unsigned net_rx_outstanding(void)
{
    return rx.req_prod_pvt - rx.rsp_cons;
}
