/* libFuzzer harness of the block back end's ring and request checks (back_ring.c, blkif_request.c), without the I/O. */
#include "fuzz.h"

#include "../../launcher/xenbus/back_ring.h"
#include "../../launcher/disk/blkif_request.h"

/* The input: a flags byte (bit 0 read-only, bit 1 discard, bits 2-3 the
 * ring's order, up to 2), the advertised indirect segments (2 bytes), the
 * disk's sectors (8), which of 8 data pages are granted and which the
 * device may write (1 byte each), a 64-byte pattern tiled over the data
 * pages (indirect lists come from there), the number of rounds (1 byte, at
 * most 4) and a req_prod for each (4 bytes each), then the ring's bytes,
 * header first. */
#define DATA_PAGES 8
#define MAX_ORDER 2
#define MAX_ROUNDS 4

static uint8_t ring[1u << MAX_ORDER][XEN_PAGE_SIZE];
static uint8_t data[DATA_PAGES][XEN_PAGE_SIZE];
static uint8_t granted, writable;
static int outstanding[DATA_PAGES];
static struct blkif_seg segs[BLKIF_MAX_INDIRECT_SEGMENTS];

static void *take(void *arg, uint32_t gref, bool device_writes, const char **why)
{
    (void)arg;
    if (gref >= DATA_PAGES || !(granted >> gref & 1) ||
        (device_writes && !(writable >> gref & 1))) {
        *why = "refused";
        return NULL;
    }
    outstanding[gref]++;
    return data[gref];
}

static void release(void *arg, uint32_t gref, bool device_writes)
{
    (void)arg;
    (void)device_writes;
    FUZZ_ASSERT(gref < DATA_PAGES && outstanding[gref] > 0);
    outstanding[gref]--;
}

static const struct blkif_grants grants = { take, release, NULL };

/* What an accepted request must be, whatever the bytes were. */
static void check_accepted(const union blkif_sring_entry *in, const struct blkif_req *r,
                           const struct blkif_limits *lim)
{
    uint64_t bytes = 0;
    unsigned most = in->req.operation == BLKIF_OP_INDIRECT
                    ? lim->max_indirect_segments : BLKIF_MAX_SEGMENTS_PER_REQUEST;

    FUZZ_ASSERT(r->id == in->req.id);
    FUZZ_ASSERT(r->nseg <= most);
    FUZZ_ASSERT(r->kind == BLKIF_KIND_READ || !lim->read_only);
    FUZZ_ASSERT(r->kind != BLKIF_KIND_DISCARD || lim->discard);
    FUZZ_ASSERT(r->nseg || r->kind == BLKIF_KIND_FLUSH || r->kind == BLKIF_KIND_DISCARD);
    for (unsigned i = 0; i < r->nseg; i++) {
        FUZZ_ASSERT(segs[i].bytes && segs[i].bytes % BLKIF_SECTOR_BYTES == 0);
        FUZZ_ASSERT(segs[i].offset % BLKIF_SECTOR_BYTES == 0);
        FUZZ_ASSERT(segs[i].offset + segs[i].bytes <= XEN_PAGE_SIZE);
        bytes += segs[i].bytes;
    }
    if (r->kind != BLKIF_KIND_DISCARD)
        FUZZ_ASSERT(bytes == r->nr_sectors * BLKIF_SECTOR_BYTES);
    if (r->nr_sectors)
        FUZZ_ASSERT(r->nr_sectors <= lim->sectors &&
                    r->sector <= lim->sectors - r->nr_sectors);
}

static void one(struct back_ring *br, const struct blkif_limits *lim)
{
    union blkif_sring_entry in;
    struct blkif_response rsp;
    struct blkif_req r;
    const char *why = NULL;
    int16_t status;

    back_ring_take(br, &in);
    status = blkif_request_parse(&in, lim, &grants, &r, segs, &why);
    for (unsigned g = 0; g < DATA_PAGES; g++)
        FUZZ_ASSERT(outstanding[g] == 0);    /* indirect pages given back */
    if (status == BLKIF_RSP_OKAY)
        check_accepted(&in, &r, lim);
    else
        FUZZ_ASSERT(why && (status == BLKIF_RSP_ERROR || status == BLKIF_RSP_EOPNOTSUPP));
    rsp = (struct blkif_response){ .id = r.id, .operation = r.rsp_op, .status = status };
    back_ring_respond(br, &rsp, sizeof(rsp));
}

/* One round: the guest's req_prod, then what blkif_kick() does with it
 * (answering at once, as if every I/O were done). False once corrupt. */
static bool round(struct back_ring *br, uint32_t prod, const struct blkif_limits *lim)
{
    struct error e;
    long n;
    bool corrupt = prod - br->req_cons > br->size;   /* all answered: cons == rsp */

    ((struct xen_sring_header *)ring[0])->req_prod = prod;
    n = back_ring_waiting(br, &e);
    FUZZ_ASSERT((n < 0) == corrupt);
    if (n < 0) {
        FUZZ_ASSERT(fuzz_one_line(e.msg));
        return false;
    }
    for (long i = 0; i < n; i++)
        one(br, lim);
    FUZZ_ASSERT(back_ring_unanswered(br) == 0);
    back_ring_push(br);
    FUZZ_ASSERT(((struct xen_sring_header *)ring[0])->rsp_prod == br->rsp_prod_pvt);
    FUZZ_ASSERT(!back_ring_rearm(br));
    FUZZ_ASSERT(((struct xen_sring_header *)ring[0])->req_event == br->req_cons + 1);
    return true;
}

/* dst[0 .. size) as pat repeated (zeros if pat is empty), by copies that
 * double: a byte loop here would be most of each run's time (every
 * comparison in it traced). */
static void tile(uint8_t *dst, size_t size, const uint8_t *pat, size_t n)
{
    size_t done;

    if (!n) {
        memset(dst, 0, size);
        return;
    }
    done = n < size ? n : size;
    memcpy(dst, pat, done);
    while (done < size) {
        size_t more = done < size - done ? done : size - done;

        memcpy(dst + done, dst, more);
        done += more;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    struct fuzz_in in = { bytes, size };
    unsigned flags = (unsigned)fuzz_uint(&in, 1), order = (flags >> 2 & 3) % (MAX_ORDER + 1);
    struct blkif_limits lim = {
        .read_only = flags & 1, .discard = flags & 2,
        .max_indirect_segments = (unsigned)(fuzz_uint(&in, 2) % (BLKIF_MAX_INDIRECT_SEGMENTS + 1)),
        .sectors = fuzz_uint(&in, 8),
    };
    void *pages[1u << MAX_ORDER];
    uint32_t prods[MAX_ROUNDS];
    unsigned rounds;
    const uint8_t *p;
    size_t n;
    struct back_ring br;
    struct error e;

    granted = (uint8_t)fuzz_uint(&in, 1);
    writable = (uint8_t)fuzz_uint(&in, 1);
    p = fuzz_bytes(&in, 64, &n);
    for (unsigned g = 0; g < DATA_PAGES; g++)
        tile(data[g], XEN_PAGE_SIZE, p, n);
    rounds = (unsigned)fuzz_uint(&in, 1) % MAX_ROUNDS + 1;
    for (unsigned r = 0; r < rounds; r++)
        prods[r] = (uint32_t)fuzz_uint(&in, 4);
    memset(ring, 0, sizeof(ring));
    p = fuzz_bytes(&in, sizeof(ring[0]) << order, &n);
    memcpy(ring, p, n);                  /* the pages lie end to end */
    for (unsigned i = 0; i < 1u << order; i++)
        pages[i] = ring[i];
    if (back_ring_attach(&br, "blkif", pages, 1u << order, sizeof(union blkif_sring_entry), &e) < 0) {
        FUZZ_ASSERT(fuzz_one_line(e.msg));
        return 0;
    }
    FUZZ_ASSERT(br.size == 32u << order);
    for (unsigned r = 0; r < rounds && round(&br, prods[r], &lim); r++)
        ;
    return 0;
}
