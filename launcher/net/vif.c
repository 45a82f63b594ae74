/* The --net card as a Xen virtual network interface: the xenbus side. See vif.h. */
#include "vif.h"

#include <string.h>

#include "../vm/lines.h"

/* The only card: vif 0, Linux's eth0. */
#define VIF_HANDLE 0

/* A locally administered address, the one QEMU gives a guest on user
 * networking; slirp learns it from the guest's own frames. */
#define VIF_MAC "52:54:00:12:34:56"

enum { TX, RX };

static const char *const ring_keys[2] = { NETIF_KEY_TX_RING_REF, NETIF_KEY_RX_RING_REF };

/* put(v, fe or be, key, fmt, ...): a node in one of the card's directories. */
#define put(v, dir, ...) xenbus_backend_put(&(v)->xb, (v)->xb.dir, __VA_ARGS__)

/* ---- The rings and the data path ------------------------------------------ */

static void raise_line(void *arg)
{
    struct vif *v = arg;

    lines_raise(v->xb.env->shared, v->xb.env->vm, v->xb.line);
}

static void send_frame(void *arg, const uint8_t *frame, size_t len)
{
    struct vif *v = arg;

    net_link_send(v->link, frame, len);
}

/* Frames that come while the front end is not connected meet no card. */
static void deliver(void *arg, const uint8_t *frame, size_t len)
{
    struct vif *v = arg;

    if (v->running)
        netif_rx_deliver(&v->netif, frame, len);
}

/* What the front end must have written before it connects: its two
 * rings, its one event channel, and that it takes frames by copy. NULL or
 * why not. */
static const char *read_keys(void *arg, uint32_t *port_out)
{
    struct vif *v = arg;
    uint64_t ref, port, copy = 0, sg = 0;

    v->xb.nr_rings = 2;
    for (unsigned i = TX; i <= RX; i++) {
        if (!xenbus_backend_number(&v->xb, ring_keys[i], &ref) || ref > UINT32_MAX)
            return i == TX ? "no tx-ring-ref" : "no rx-ring-ref";
        v->xb.ring_refs[i] = (grant_ref_t)ref;
    }
    if (!xenbus_backend_number(&v->xb, NETIF_KEY_EVENT_CHANNEL, &port) || port > UINT32_MAX)
        return "no event-channel";
    if (!xenbus_backend_number(&v->xb, NETIF_KEY_REQUEST_RX_COPY, &copy) || copy != 1)
        return "no request-rx-copy (perch offers no other receive path)";
    v->rx_sg = xenbus_backend_number(&v->xb, NETIF_KEY_FEATURE_SG, &sg) && sg == 1;
    *port_out = (uint32_t)port;
    return NULL;
}

/* The Host connected the port: the data path, on the rings taken. */
static int start_netif(void *arg, struct error *e)
{
    struct vif *v = arg;
    struct netif_config cfg = {
        .tx_ring = v->xb.ring_pages[TX], .rx_ring = v->xb.ring_pages[RX],
        .gt = v->xb.env->gt, .rx_sg = v->rx_sg,
        .send = send_frame, .notify = raise_line, .arg = v,
    };

    if (netif_open(&v->netif, &cfg, e))
        return -1;
    v->running = true;
    /* A ring that was served before (a restored guest's) may hold frames
     * to send already, whose notification came before this start. */
    return netif_tx_kick(&v->netif, e) < 0 ? -1 : 0;
}

static void stop_netif(void *arg)
{
    struct vif *v = arg;

    v->running = false;
}

static const struct xenbus_backend_ops vif_ops = {
    .kind = "vif", .what = "network card",
    .read_keys = read_keys, .start = start_netif, .stop = stop_netif,
};

int vif_notified(struct vif *v, struct error *e)
{
    int rc = xenbus_backend_notified(&v->xb, e);

    if (rc <= 0)
        return rc;
    return netif_tx_kick(&v->netif, e) < 0 ? -1 : 0;
}

int vif_flush(struct vif *v, struct error *e)
{
    return v->running ? netif_flush(&v->netif, e) : 0;
}

void vif_close(struct vif *v)
{
    if (v->link)
        net_link_attach(v->link, NULL, NULL);
    xenbus_backend_close(&v->xb);
}

/* ---- The nodes --------------------------------------------------------------- */

/* What libxl and netback write for a PV vif, beside what every device
 * has. No GSO: a 64 KiB TCP segment would have to be cut into frames the
 * link takes, which perch does not do; no IPv6 checksum offload either
 * (net_csum.h fills IPv4's only). */
static int write_nodes(struct vif *v)
{
    int rc = 0;

    rc |= put(v, fe, NETIF_KEY_HANDLE, "%d", VIF_HANDLE);
    rc |= put(v, fe, NETIF_KEY_MAC, VIF_MAC);
    rc |= put(v, be, NETIF_KEY_HANDLE, "%d", VIF_HANDLE);
    rc |= put(v, be, NETIF_KEY_MAC, VIF_MAC);
    rc |= put(v, be, "type", "vif");
    rc |= put(v, be, NETIF_KEY_FEATURE_SG, "1");
    rc |= put(v, be, NETIF_KEY_RX_COPY, "1");
    rc |= put(v, be, NETIF_KEY_RX_FLIP, "0");
    rc |= put(v, be, NETIF_KEY_GSO_TCPV4, "0");
    return rc;
}

int vif_init(struct vif *v, const struct backend_env *env, unsigned line,
             struct net_link *link, struct error *e)
{
    memset(v, 0, sizeof(*v));
    v->link = link;
    if (xenbus_backend_init(&v->xb, env, &vif_ops, v, "vif0", VIF_HANDLE, line) ||
        write_nodes(v) || xenbus_backend_start(&v->xb))
        return fail(e, "vif0: cannot write its xenstore nodes");
    net_link_attach(link, deliver, v);
    return 0;
}
