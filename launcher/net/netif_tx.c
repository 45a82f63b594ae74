/* The network card's tx ring: packets off it, assembled, sent on, answered. See netif.h. */
#include "netif.h"

#include <string.h>

#include "net_csum.h"
#include "net_link.h"
#include "netif_packet.h"

/* Every packet a front end can describe fits what a link carries. */
_Static_assert(XEN_NETIF_MAX_TX_SIZE <= NET_LINK_MAX_FRAME, "tx packet larger than a link frame");

static void respond_one(struct netif *n, uint16_t id, int16_t status)
{
    struct netif_tx_response rsp = { .id = id, .status = status };

    back_ring_respond(&n->tx, &rsp, sizeof(rsp));
}

/* Every slot of the packet is answered, in order: the first request, its
 * extras (NULL: there is nothing to say of them), the other pieces. */
static void respond(struct netif *n, const struct netif_packet *p, int16_t status)
{
    respond_one(n, p->pieces[0].id, status);
    for (unsigned i = 0; i < p->nextras; i++)
        respond_one(n, 0, NETIF_RSP_NULL);
    for (unsigned i = 1; i < p->npieces; i++)
        respond_one(n, p->pieces[i].id, status);
}

/* Copy the pieces into n->frame, each page taken only for its copy.
 * False if the guest did not grant one of them to be read. */
static bool gather(struct netif *n, const struct netif_packet *p)
{
    size_t at = 0;

    for (unsigned i = 0; i < p->npieces; i++) {
        const struct netif_piece *pc = &p->pieces[i];
        const char *why;
        const uint8_t *page = grant_take(n->cfg.gt, pc->gref, false, &why);

        if (!page)
            return false;
        memcpy(n->frame + at, page + pc->offset, pc->size);
        grant_release(n->cfg.gt, pc->gref, false);
        at += pc->size;
    }
    return true;
}

/* Send the packet on; its responses' status. A runt shorter than an
 * Ethernet header is Linux netback's error too. */
static int16_t transmit(struct netif *n, const struct netif_packet *p)
{
    if (p->len < NET_ETH_HLEN || !gather(n, p)) {
        n->counts.tx_errors++;
        return NETIF_RSP_ERROR;
    }
    if ((p->flags & NETTXF_csum_blank) && !net_csum_fill(n->frame, p->len)) {
        n->counts.tx_dropped++;   /* as netback drops what it cannot sum */
        return NETIF_RSP_OKAY;
    }
    n->cfg.send(n->cfg.arg, n->frame, p->len);
    n->counts.tx_packets++;
    return NETIF_RSP_OKAY;
}

/* Take one packet's slots (avail are published), send it, answer it.
 * Returns the slots it took, or -1 with e if it is malformed. */
static long one_packet(struct netif *n, long avail, struct error *e)
{
    struct netif_packet p;
    union netif_tx_sring_entry slot;
    int rc;

    netif_packet_start(&p);
    do {
        if (p.nslots == avail)
            return fail(e, "tx packet runs past req_prod (%ld slots published)", avail);
        back_ring_take(&n->tx, &slot);
        rc = netif_packet_add(&p, &slot, e);
    } while (rc == NETIF_PACKET_MORE);
    if (rc < 0)
        return -1;
    respond(n, &p, transmit(n, &p));
    return (long)p.nslots;
}

static long broken(struct netif *n, struct error *e)
{
    n->broken = true;
    n->problem = *e;
    return -1;
}

long netif_tx_kick(struct netif *n, struct error *e)
{
    long packets = 0;

    /* The rx ring is looked at too: a guest that breaks it is found
     * when it notifies, not only when a frame comes for it. */
    if (n->broken || netif_rx_posted(n) < 0) {
        *e = n->problem;
        return -1;
    }
    do {
        long avail = back_ring_waiting(&n->tx, e);

        if (avail < 0)
            return broken(n, e);
        while (avail > 0) {
            long used = one_packet(n, avail, e);

            if (used < 0)
                return broken(n, e);
            avail -= used;
            packets++;
        }
    } while (back_ring_rearm(&n->tx));
    return packets;
}
