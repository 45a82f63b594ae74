/* The block back end's I/O engine: requests off the ring into io_uring, completions back as responses. */
#include "blkif.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* A request between being taken and being answered. */
struct slot {
    struct blkif_req req;
    struct blkif_seg *segs;
    struct iovec *iov;
    unsigned taken;          /* segs[0..taken) hold a page of the guest */
    unsigned sqes;           /* completions still to come */
    int16_t status;
};

struct blkif {
    struct blkif_config cfg;
    struct blkif_limits lim;
    struct back_ring ring;
    struct blkif_engine *eng;    /* borrowed while attached; NULL before */
    struct slot *slots;
    unsigned nslots, *free, nfree;
    unsigned queued;         /* SQEs prepared, not yet submitted */
    bool drain_next;         /* a barrier was queued: what follows waits */
    bool broken, closing;
    const char *last_refusal;
};

/* A completion's user_data: the slot, and whether it moves data (its
 * result is then the bytes moved, else 0 for success). */
#define UD_DATA 1u

static unsigned seg_room(const struct blkif_config *cfg)
{
    return cfg->max_indirect_segments > BLKIF_MAX_SEGMENTS_PER_REQUEST
           ? cfg->max_indirect_segments : BLKIF_MAX_SEGMENTS_PER_REQUEST;
}

static int check_config(const struct blkif_config *cfg, struct error *e)
{
    if (cfg->ring_order > BLKIF_MAX_RING_ORDER)
        return fail(e, "blkif: ring of 2^%u pages, at most 2^%u",
                    cfg->ring_order, BLKIF_MAX_RING_ORDER);
    for (unsigned i = 0; i < 1u << cfg->ring_order; i++)
        if (!cfg->ring_pages[i])
            return fail(e, "blkif: ring page %u missing", i);
    if (cfg->max_indirect_segments > BLKIF_MAX_INDIRECT_SEGMENTS)
        return fail(e, "blkif: %u indirect segments, at most %u",
                    cfg->max_indirect_segments, BLKIF_MAX_INDIRECT_SEGMENTS);
    if (cfg->sectors > INT64_MAX / BLKIF_SECTOR_BYTES)
        return fail(e, "blkif: disk of %llu sectors is too large",
                    (unsigned long long)cfg->sectors);
    if (!cfg->grants.take || !cfg->grants.release || !cfg->notify)
        return fail(e, "blkif: grant or notify callback missing");
    return 0;
}

/* One slot per ring slot: no more requests than that can be unanswered. */
static int alloc_slots(struct blkif *b, struct error *e)
{
    unsigned room = seg_room(&b->cfg);

    b->nslots = b->ring.size;
    b->slots = calloc(b->nslots, sizeof(*b->slots));
    b->free = calloc(b->nslots, sizeof(*b->free));
    if (!b->slots || !b->free)
        return fail(e, "blkif: out of memory");
    for (unsigned i = 0; i < b->nslots; i++) {
        b->slots[i].segs = calloc(room, sizeof(struct blkif_seg));
        b->slots[i].iov = calloc(room, sizeof(struct iovec));
        if (!b->slots[i].segs || !b->slots[i].iov)
            return fail(e, "blkif: out of memory");
        b->free[b->nfree++] = b->nslots - 1 - i;
    }
    return 0;
}

/* Open, serving no other ring, nothing of an earlier one still out (it
 * is sized for the largest ring, so always big enough). */
static int check_engine(const struct blkif_engine *eng, struct error *e)
{
    if (!eng || !eng->up)
        return fail(e, "blkif: no I/O engine");
    if (eng->attached)
        return fail(e, "blkif: I/O engine already serves a ring");
    if (eng->spoiled)
        return fail(e, "blkif: I/O engine lost track of earlier I/O");
    return 0;
}

/* A completion count left from the last ring means nothing now. */
static void attach_engine(struct blkif *b, struct blkif_engine *eng)
{
    uint64_t stale;

    if (read(eng->efd, &stale, sizeof(stale)) < 0) {
        /* EAGAIN: nothing left */
    }
    eng->attached = true;
    b->eng = eng;
}

struct blkif *blkif_open(const struct blkif_config *cfg, struct blkif_engine *eng,
                         struct error *e)
{
    struct blkif *b;

    if (check_config(cfg, e) < 0 || check_engine(eng, e) < 0)
        return NULL;
    b = calloc(1, sizeof(*b));
    if (!b) {
        fail(e, "blkif: out of memory");
        return NULL;
    }
    b->cfg = *cfg;
    b->lim = (struct blkif_limits){
        .sectors = cfg->sectors, .read_only = cfg->read_only,
        .discard = cfg->discard,
        .max_indirect_segments = cfg->max_indirect_segments,
    };
    if (back_ring_attach(&b->ring, "blkif", cfg->ring_pages, 1u << cfg->ring_order,
                         sizeof(union blkif_sring_entry), e) < 0 ||
        alloc_slots(b, e) < 0) {
        blkif_close(b);
        return NULL;
    }
    attach_engine(b, eng);
    return b;
}

static void release_pages(struct blkif *b, struct slot *s)
{
    bool device_writes = s->req.kind == BLKIF_KIND_READ;

    for (unsigned i = 0; i < s->taken; i++)
        b->cfg.grants.release(b->cfg.grants.arg, s->segs[i].gref, device_writes);
    s->taken = 0;
}

static void respond(struct blkif *b, const struct slot *s)
{
    struct blkif_response rsp = { .id = s->req.id, .operation = s->req.rsp_op,
                                  .status = s->status };

    back_ring_respond(&b->ring, &rsp, sizeof(rsp));
}

/* The request is done with: its pages go back, its answer on the ring. */
static void finish(struct blkif *b, struct slot *s)
{
    release_pages(b, s);
    if (!b->closing)
        respond(b, s);
    b->free[b->nfree++] = (unsigned)(s - b->slots);
}

static void refuse(struct blkif *b, struct slot *s, int16_t status, const char *why)
{
    s->status = status;
    b->last_refusal = why;
    finish(b, s);
}

/* Take every data page, for the device to write into on a read. */
static bool take_pages(struct blkif *b, struct slot *s, const char **why)
{
    bool device_writes = s->req.kind == BLKIF_KIND_READ;

    for (s->taken = 0; s->taken < s->req.nseg; s->taken++) {
        const struct blkif_seg *g = &s->segs[s->taken];
        uint8_t *page = b->cfg.grants.take(b->cfg.grants.arg, g->gref,
                                           device_writes, why);

        if (!page)
            return false;
        s->iov[s->taken] = (struct iovec){ page + g->offset, g->bytes };
    }
    return true;
}

/* Room for a request's n SQEs, submitting what was prepared if need be
 * (the queue holds two per slot, so there always is room then). */
static bool room_for(struct blkif *b, unsigned n)
{
    if (io_uring_sq_space_left(&b->eng->uring) < n) {
        io_uring_submit(&b->eng->uring);
        b->queued = 0;
    }
    return io_uring_sq_space_left(&b->eng->uring) >= n;
}

static struct io_uring_sqe *next_sqe(struct blkif *b, struct slot *s, bool data)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&b->eng->uring);

    io_uring_sqe_set_data64(sqe, (uint64_t)(s - b->slots) << 1 | (data ? UD_DATA : 0));
    s->sqes++;
    b->queued++;
    return sqe;
}

/* The request's SQEs: one, or a flush's write linked to its fdatasync
 * (which then runs only if the write succeeded). A flush drains: it
 * starts once every earlier SQE has completed. A barrier also holds back
 * what follows until its fdatasync is done (drain_next). */
static bool queue_io(struct blkif *b, struct slot *s)
{
    const struct blkif_req *r = &s->req;
    off_t off = (off_t)(r->sector * BLKIF_SECTOR_BYTES);
    bool flush = r->kind == BLKIF_KIND_FLUSH;
    bool drain = r->drain || b->drain_next;
    struct io_uring_sqe *sqe;

    if (!room_for(b, flush && r->nseg ? 2 : 1))
        return false;
    b->drain_next = r->barrier;
    if (r->kind == BLKIF_KIND_DISCARD) {
        sqe = next_sqe(b, s, false);
        io_uring_prep_fallocate(sqe, b->cfg.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                off, (off_t)(r->nr_sectors * BLKIF_SECTOR_BYTES));
    } else if (r->nseg) {
        sqe = next_sqe(b, s, true);
        if (r->kind == BLKIF_KIND_READ)
            io_uring_prep_readv(sqe, b->cfg.fd, s->iov, r->nseg, off);
        else
            io_uring_prep_writev(sqe, b->cfg.fd, s->iov, r->nseg, off);
        sqe->flags |= flush ? IOSQE_IO_LINK : 0;
    } else {
        sqe = NULL;
    }
    if (sqe && drain)
        sqe->flags |= IOSQE_IO_DRAIN;
    if (flush) {
        struct io_uring_sqe *sync = next_sqe(b, s, false);

        io_uring_prep_fsync(sync, b->cfg.fd, IORING_FSYNC_DATASYNC);
        if (!sqe)
            sync->flags |= IOSQE_IO_DRAIN;
    }
    return true;
}

/* One request, from its private copy to its SQEs (or its answer). */
static void start(struct blkif *b, const union blkif_sring_entry *in)
{
    struct slot *s = &b->slots[b->free[--b->nfree]];
    const char *why = NULL;
    int16_t status;

    s->taken = s->sqes = 0;
    s->status = BLKIF_RSP_OKAY;
    status = blkif_request_parse(in, &b->lim, &b->cfg.grants, &s->req, s->segs, &why);
    if (status != BLKIF_RSP_OKAY)
        refuse(b, s, status, why);
    else if (s->req.kind == BLKIF_KIND_DISCARD && !s->req.nr_sectors)
        finish(b, s);
    else if (!take_pages(b, s, &why))
        refuse(b, s, BLKIF_RSP_ERROR, why ? why : "page not granted");
    else if (!queue_io(b, s))
        refuse(b, s, BLKIF_RSP_ERROR, "no room to queue the I/O");
}

static void notify_if_due(struct blkif *b)
{
    if (back_ring_push(&b->ring))
        b->cfg.notify(b->cfg.notify_arg);
}

static long broken(struct blkif *b)
{
    b->broken = true;
    return -1;
}

/* Each pass answers what it refused at once, so an honest guest sees its
 * errors even while it keeps the ring busy. */
long blkif_kick(struct blkif *b, struct error *e)
{
    long taken = 0;
    int rc;

    if (b->broken)
        return fail(e, "blkif: stopped after an earlier error");
    do {
        long n = back_ring_waiting(&b->ring, e);

        if (n < 0)
            return broken(b);
        for (long i = 0; i < n; i++) {
            union blkif_sring_entry copy;

            back_ring_take(&b->ring, &copy);
            start(b, &copy);
        }
        taken += n;
        notify_if_due(b);
    } while (back_ring_rearm(&b->ring));
    rc = b->queued ? io_uring_submit(&b->eng->uring) : 0;
    b->queued = 0;
    if (rc < 0) {
        fail(e, "blkif: io_uring_submit: %s", strerror(-rc));
        return broken(b);
    }
    return taken;
}

int blkif_completion_fd(const struct blkif *b)
{
    return blkif_engine_fd(b->eng);
}

/* What a completion says about its request. */
static void completed(struct blkif *b, const struct io_uring_cqe *cqe)
{
    uint64_t ud = io_uring_cqe_get_data64(cqe);
    struct slot *s = &b->slots[ud >> 1];
    bool ok;

    if (ud & UD_DATA)
        ok = cqe->res >= 0 &&
             (uint64_t)cqe->res == s->req.nr_sectors * BLKIF_SECTOR_BYTES;
    else
        ok = cqe->res == 0;
    if (!ok && s->status == BLKIF_RSP_OKAY)
        s->status = cqe->res == -EOPNOTSUPP && s->req.kind == BLKIF_KIND_DISCARD
                    ? BLKIF_RSP_EOPNOTSUPP : BLKIF_RSP_ERROR;
    if (--s->sqes == 0)
        finish(b, s);
}

/* Reap what has completed; how many requests that finished. */
static long reap(struct blkif *b)
{
    struct io_uring_cqe *cqe;
    unsigned before = b->nfree;

    while (io_uring_peek_cqe(&b->eng->uring, &cqe) == 0) {
        completed(b, cqe);
        io_uring_cqe_seen(&b->eng->uring, cqe);
    }
    return (long)(b->nfree - before);
}

long blkif_complete(struct blkif *b)
{
    uint64_t count;
    long done;

    if (read(b->eng->efd, &count, sizeof(count)) < 0) {
        /* EAGAIN: nothing signalled since; reap anyway */
    }
    done = reap(b);
    notify_if_due(b);
    return done;
}

unsigned blkif_in_flight(const struct blkif *b)
{
    return b->nslots - b->nfree;
}

const char *blkif_last_refusal(const struct blkif *b)
{
    return b->last_refusal;
}

/* Every SQE out (a failed submit may have left some in the queue), then
 * every completion in: the engine goes back with nothing in flight, or
 * is spoiled if that cannot be made sure. */
static void drain(struct blkif *b)
{
    struct io_uring_cqe *cqe;
    int rc = io_uring_submit(&b->eng->uring);

    while (rc >= 0 && blkif_in_flight(b)) {
        rc = io_uring_wait_cqe(&b->eng->uring, &cqe);
        if (rc == 0) {
            completed(b, cqe);
            io_uring_cqe_seen(&b->eng->uring, cqe);
        } else if (rc == -EINTR) {
            rc = 0;
        }
    }
    if (blkif_in_flight(b))
        b->eng->spoiled = true;
}

void blkif_settle(struct blkif *b)
{
    drain(b);
    notify_if_due(b);
}

void blkif_close(struct blkif *b)
{
    if (!b)
        return;
    b->closing = true;
    if (b->eng) {
        drain(b);
        b->eng->attached = false;
    }
    for (unsigned i = 0; b->slots && i < b->nslots; i++) {
        free(b->slots[i].segs);
        free(b->slots[i].iov);
    }
    free(b->slots);
    free(b->free);
    free(b);
}
