/* Checking a block request's private copy: operation, segments, sectors, the disk's settings. */
#include "blkif_request.h"

#include <string.h>

static int16_t refuse(int16_t status, const char *reason, const char **why)
{
    *why = reason;
    return status;
}

/* A segment's sectors must lie within its page, first to last. */
static bool segment(const struct blkif_request_segment *s, struct blkif_seg *out,
                    uint64_t *sectors)
{
    if (s->first_sect > s->last_sect || s->last_sect >= BLKIF_SECTORS_PER_PAGE)
        return false;
    out->gref = s->gref;
    out->offset = (uint16_t)(s->first_sect * BLKIF_SECTOR_BYTES);
    out->bytes = (uint16_t)((s->last_sect - s->first_sect + 1) * BLKIF_SECTOR_BYTES);
    *sectors += s->last_sect - s->first_sect + 1u;
    return true;
}

/* Sectors [sector, sector + n) on the disk, without overflow. */
static bool on_disk(uint64_t sector, uint64_t n, const struct blkif_limits *lim)
{
    return n <= lim->sectors && sector <= lim->sectors - n;
}

/* What every request checks last: the sectors (none for a bare flush,
 * whose sector_number means nothing), and writing at all. */
static int16_t transfer(struct blkif_req *out, const struct blkif_limits *lim,
                        const char **why)
{
    if (out->nr_sectors && !on_disk(out->sector, out->nr_sectors, lim))
        return refuse(BLKIF_RSP_ERROR, "sectors beyond the disk", why);
    if (out->kind != BLKIF_KIND_READ && lim->read_only)
        return refuse(BLKIF_RSP_ERROR, "write to a read-only disk", why);
    return BLKIF_RSP_OKAY;
}

/* READ, WRITE, WRITE_BARRIER, FLUSH_DISKCACHE: segments in the slot. */
static int16_t direct(const struct blkif_request *rq, const struct blkif_limits *lim,
                      struct blkif_req *out, struct blkif_seg *segs, const char **why)
{
    unsigned n = rq->nr_segments;

    if (n == 0 && out->kind != BLKIF_KIND_FLUSH)
        return refuse(BLKIF_RSP_ERROR, "no segments", why);
    if (n > BLKIF_MAX_SEGMENTS_PER_REQUEST)
        return refuse(BLKIF_RSP_ERROR, "more than 11 segments", why);
    for (unsigned i = 0; i < n; i++)
        if (!segment(&rq->seg[i], &segs[i], &out->nr_sectors))
            return refuse(BLKIF_RSP_ERROR, "segment's sectors outside its page", why);
    out->nseg = n;
    out->sector = rq->sector_number;
    return transfer(out, lim, why);
}

/* One indirect page's descriptors, each copied out once before it is
 * checked. */
static bool indirect_page(const struct blkif_grants *g, grant_ref_t gref,
                          unsigned first, unsigned n, struct blkif_req *out,
                          struct blkif_seg *segs, const char **why)
{
    const char *grant_why = "not granted";
    const uint8_t *page = g->take(g->arg, gref, false, &grant_why);
    bool ok = true;

    if (!page) {
        *why = grant_why;
        return false;
    }
    for (unsigned i = 0; i < n && ok; i++) {
        struct blkif_request_segment s;

        memcpy(&s, page + i * sizeof(s), sizeof(s));
        ok = segment(&s, &segs[first + i], &out->nr_sectors);
    }
    g->release(g->arg, gref, false);
    if (!ok)
        *why = "segment's sectors outside its page";
    return ok;
}

static int16_t indirect(const struct blkif_request_indirect *rq,
                        const struct blkif_limits *lim,
                        const struct blkif_grants *g, struct blkif_req *out,
                        struct blkif_seg *segs, const char **why)
{
    unsigned n = rq->nr_segments;

    if (rq->indirect_op != BLKIF_OP_READ && rq->indirect_op != BLKIF_OP_WRITE)
        return refuse(BLKIF_RSP_ERROR, "indirect request neither read nor write", why);
    out->kind = rq->indirect_op == BLKIF_OP_READ ? BLKIF_KIND_READ : BLKIF_KIND_WRITE;
    if (n == 0 || n > lim->max_indirect_segments ||
        n > BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST * BLKIF_SEGS_PER_INDIRECT_PAGE)
        return refuse(BLKIF_RSP_ERROR, "indirect segments not 1 to the advertised most", why);
    for (unsigned done = 0, p = 0; done < n; p++) {
        unsigned chunk = n - done < BLKIF_SEGS_PER_INDIRECT_PAGE
                         ? n - done : BLKIF_SEGS_PER_INDIRECT_PAGE;

        if (!indirect_page(g, rq->indirect_grefs[p], done, chunk, out, segs, why))
            return BLKIF_RSP_ERROR;
        done += chunk;
    }
    out->nseg = n;
    out->sector = rq->sector_number;
    return transfer(out, lim, why);
}

static int16_t discard(const struct blkif_request_discard *rq,
                       const struct blkif_limits *lim, struct blkif_req *out,
                       const char **why)
{
    if (!lim->discard)
        return refuse(BLKIF_RSP_EOPNOTSUPP, "discard not advertised", why);
    if (rq->flag & BLKIF_DISCARD_SECURE)
        return refuse(BLKIF_RSP_EOPNOTSUPP, "secure discard not advertised", why);
    out->sector = rq->sector_number;
    out->nr_sectors = rq->nr_sectors;
    return transfer(out, lim, why);
}

int16_t blkif_request_parse(const union blkif_sring_entry *in,
                            const struct blkif_limits *lim,
                            const struct blkif_grants *grants,
                            struct blkif_req *out, struct blkif_seg *segs,
                            const char **why)
{
    memset(out, 0, sizeof(*out));
    out->id = in->req.id;
    out->rsp_op = in->req.operation;
    switch (in->req.operation) {
    case BLKIF_OP_READ:
        out->kind = BLKIF_KIND_READ;
        return direct(&in->req, lim, out, segs, why);
    case BLKIF_OP_WRITE:
        out->kind = BLKIF_KIND_WRITE;
        return direct(&in->req, lim, out, segs, why);
    case BLKIF_OP_WRITE_BARRIER:
        out->barrier = true;
        /* fall through */
    case BLKIF_OP_FLUSH_DISKCACHE:
        out->kind = BLKIF_KIND_FLUSH;
        out->drain = true;
        return direct(&in->req, lim, out, segs, why);
    case BLKIF_OP_DISCARD:
        out->kind = BLKIF_KIND_DISCARD;
        return discard(&in->discard, lim, out, why);
    case BLKIF_OP_INDIRECT:
        out->rsp_op = in->indirect.indirect_op;
        return indirect(&in->indirect, lim, grants, out, segs, why);
    default:
        return refuse(BLKIF_RSP_EOPNOTSUPP, "unknown operation", why);
    }
}
