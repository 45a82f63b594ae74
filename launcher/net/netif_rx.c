/* The network card's rx ring: frames copied into the pages the guest posted. See netif.h. */
#include "netif.h"

#include <string.h>

#include "net_link.h"

/* The largest frame a link brings takes a chain netfront accepts. */
_Static_assert((NET_LINK_MAX_FRAME + XEN_PAGE_SIZE - 1) / XEN_PAGE_SIZE <= XEN_NETIF_NR_SLOTS_MIN,
               "a link frame needs more rx pages than netfront takes");

static void respond(struct netif *n, uint16_t id, uint16_t flags, int16_t status)
{
    struct netif_rx_response rsp = { .id = id, .flags = flags, .status = status };

    back_ring_respond(&n->rx, &rsp, sizeof(rsp));
}

/* Copy one page's share of the frame into the next posted page and answer
 * it in the request's own slot (netfront looks for it there), chained to
 * the next if more follows. False if the guest did not grant the page
 * writable: that answer is NETIF_RSP_ERROR, and ends the chain. */
static bool fill_one(struct netif *n, const uint8_t *data, size_t bytes, bool more)
{
    struct netif_rx_request req;
    const char *why;
    uint8_t *page;

    back_ring_take(&n->rx, &req);
    page = grant_take(n->cfg.gt, req.gref, true, &why);
    if (!page) {
        respond(n, req.id, 0, NETIF_RSP_ERROR);
        return false;
    }
    memcpy(page, data, bytes);
    grant_release(n->cfg.gt, req.gref, true);
    respond(n, req.id, more ? NETRXF_more_data : 0, (int16_t)bytes);
    return true;
}

long netif_rx_posted(struct netif *n)
{
    long avail;

    if (n->broken)
        return -1;
    avail = back_ring_waiting(&n->rx, &n->problem);
    if (avail < 0)
        n->broken = true;
    return avail;
}

/* No checksum flag is set: the guest checks what it receives itself, as
 * it would from a wire. */
void netif_rx_deliver(struct netif *n, const uint8_t *frame, size_t len)
{
    size_t pages = (len + XEN_PAGE_SIZE - 1) / XEN_PAGE_SIZE;
    long avail = netif_rx_posted(n);

    if (!len || avail < (long)pages || (pages > 1 && !n->cfg.rx_sg)) {
        n->counts.rx_dropped++;
        return;
    }
    for (size_t at = 0; at < len; at += XEN_PAGE_SIZE) {
        size_t bytes = len - at < XEN_PAGE_SIZE ? len - at : XEN_PAGE_SIZE;

        if (!fill_one(n, frame + at, bytes, at + bytes < len)) {
            n->counts.rx_errors++;
            return;
        }
    }
    n->counts.rx_packets++;
}
