/* One tx packet's slots, checked as they come. See netif_packet.h. */
#include "netif_packet.h"

#include <string.h>

enum want { WANT_FIRST, WANT_EXTRA, WANT_PIECE };

void netif_packet_start(struct netif_packet *p)
{
    memset(p, 0, sizeof(*p));
    p->want = WANT_FIRST;
}

static int within_page(const struct netif_piece *piece, struct error *e)
{
    if (piece->offset + piece->size > XEN_PAGE_SIZE)
        return fail(e, "tx piece beyond its page (offset %u, size %u)",
                    piece->offset, piece->size);
    return 0;
}

/* Every piece is in: the first's own bytes are what the others leave. */
static int finish(struct netif_packet *p, struct error *e)
{
    p->pieces[0].size = (uint16_t)(p->len - p->rest);
    return within_page(&p->pieces[0], e) ? -1 : NETIF_PACKET_DONE;
}

/* After the first request or the last extra: pieces, if the first said so. */
static int after_header(struct netif_packet *p, struct error *e)
{
    if (!(p->flags & NETTXF_more_data))
        return finish(p, e);
    p->want = WANT_PIECE;
    return NETIF_PACKET_MORE;
}

static int first(struct netif_packet *p, const struct netif_tx_request *req,
                 struct error *e)
{
    p->flags = req->flags;
    p->len = req->size;
    p->pieces[0] = (struct netif_piece){ .gref = req->gref, .offset = req->offset,
                                         .id = req->id };
    p->npieces = 1;
    if (p->flags & NETTXF_extra_info) {
        p->want = WANT_EXTRA;
        return NETIF_PACKET_MORE;
    }
    return after_header(p, e);
}

static int extra(struct netif_packet *p, const struct netif_extra_info *x,
                 struct error *e)
{
    if (x->type == XEN_NETIF_EXTRA_TYPE_NONE || x->type >= XEN_NETIF_EXTRA_TYPE_MAX)
        return fail(e, "tx extra-info of unknown type %u", x->type);
    p->nextras++;
    if (x->flags & XEN_NETIF_EXTRA_FLAG_MORE)
        return NETIF_PACKET_MORE;
    return after_header(p, e);
}

static int piece(struct netif_packet *p, const struct netif_tx_request *req,
                 struct error *e)
{
    struct netif_piece *pc = &p->pieces[p->npieces];

    *pc = (struct netif_piece){ .gref = req->gref, .offset = req->offset,
                                .size = req->size, .id = req->id };
    if (within_page(pc, e))
        return -1;
    if (p->rest + pc->size > p->len)
        return fail(e, "tx packet of %u bytes whose pieces after the first hold %u",
                    p->len, p->rest + pc->size);
    p->rest += pc->size;
    p->npieces++;
    return req->flags & NETTXF_more_data ? NETIF_PACKET_MORE : finish(p, e);
}

int netif_packet_add(struct netif_packet *p, const union netif_tx_sring_entry *slot,
                     struct error *e)
{
    if (p->nslots == XEN_NETBK_LEGACY_SLOTS_MAX)
        return fail(e, "tx packet of more than %d slots", XEN_NETBK_LEGACY_SLOTS_MAX);
    p->nslots++;
    switch (p->want) {
    case WANT_FIRST:
        return first(p, &slot->req, e);
    case WANT_EXTRA:
        return extra(p, &slot->extra, e);
    default:
        return piece(p, &slot->req, e);
    }
}
