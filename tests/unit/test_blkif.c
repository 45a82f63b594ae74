/*
 * Unit tests of the block back end (launcher/blkif*.c) against a fake
 * guest in plain memory: ring pages and data pages as separate heap
 * objects (AddressSanitizer watches their edges), a grant table behind the
 * callbacks that counts every take and release, and a temporary file as
 * the disk; one I/O engine (blkif_engine.c) serves every ring in turn, as
 * it does a front end that reconnects. Each hostile case proves one check.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#include "../../launcher/disk/blkif.h"
#include "../../launcher/disk/blkif_engine.h"

#define PAGE 4096u
#define NPAGES 64                  /* data pages the guest may grant */
#define DISK_SECTORS 2048u         /* 1 MiB */

static uint8_t *ring_pages[BLKIF_MAX_RING_PAGES];
static unsigned ring_order;
static uint8_t *data[NPAGES];
static bool granted[NPAGES], device_may_write[NPAGES];
static int takes[NPAGES], releases[NPAGES];
static int disk = -1;
static char disk_path[64];
static struct blkif_engine engine;
static struct blkif *be;
static int notified;
static uint32_t req_prod, rsp_cons;     /* the front end's own indices */
static struct error err;

static void *take(void *arg, uint32_t gref, bool device_writes, const char **why)
{
    (void)arg;
    if (gref >= NPAGES || !granted[gref]) {
        *why = "gref not granted";
        return NULL;
    }
    if (device_writes && !device_may_write[gref]) {
        *why = "gref granted read-only";
        return NULL;
    }
    takes[gref]++;
    return data[gref];
}

static void release(void *arg, uint32_t gref, bool device_writes)
{
    (void)arg;
    (void)device_writes;
    releases[gref]++;
}

static void notify(void *arg)
{
    (void)arg;
    notified++;
}

static struct xen_sring_header *sring(void)
{
    return (struct xen_sring_header *)ring_pages[0];
}

static uint32_t ring_slots(void)
{
    return BLKIF_RING_SLOTS(1u << ring_order);
}

/* The front end's view of the ring: one run of bytes over the pages. */
static void ring_bytes(uint32_t idx, void *buf, size_t n, bool to_ring)
{
    size_t off = sizeof(struct xen_sring_header) +
                 (size_t)(idx % ring_slots()) * sizeof(union blkif_sring_entry);

    for (size_t i = 0; i < n; i++, off++) {
        uint8_t *p = &ring_pages[off / PAGE][off % PAGE];

        if (to_ring)
            *p = ((uint8_t *)buf)[i];
        else
            ((uint8_t *)buf)[i] = *p;
    }
}

static void close_all(void)
{
    blkif_close(be);
    be = NULL;
    for (unsigned i = 0; i < BLKIF_MAX_RING_PAGES; i++) {
        free(ring_pages[i]);
        ring_pages[i] = NULL;
    }
    if (disk >= 0)
        close(disk);
    disk = -1;
}

/* A fresh guest (ring of 2^order pages, its indices at `start`, every data
 * page granted writable) and disk (sector s holds bytes (s * 7 + i) & 0xff). */
static struct blkif_config fresh(unsigned order, uint32_t start)
{
    struct blkif_config cfg = {
        .ring_order = order, .fd = -1, .sectors = DISK_SECTORS,
        .grants = { take, release, NULL }, .notify = notify,
        .max_indirect_segments = BLKIF_MAX_INDIRECT_SEGMENTS, .discard = true,
    };
    uint8_t sector[512];

    close_all();
    ring_order = order;
    for (unsigned i = 0; i < 1u << order; i++)
        cfg.ring_pages[i] = ring_pages[i] = calloc(1, PAGE);
    sring()->req_prod = sring()->rsp_prod = start;
    sring()->req_event = sring()->rsp_event = start + 1;   /* SHARED_RING_INIT */
    req_prod = rsp_cons = start;
    for (unsigned i = 0; i < NPAGES; i++) {
        if (!data[i])
            data[i] = malloc(PAGE);
        memset(data[i], 0xee, PAGE);
        granted[i] = device_may_write[i] = true;
        takes[i] = releases[i] = 0;
    }
    strcpy(disk_path, "/tmp/perch-blkif-XXXXXX");
    disk = mkstemp(disk_path);
    unlink(disk_path);
    for (unsigned s = 0; s < DISK_SECTORS; s++) {
        for (unsigned i = 0; i < sizeof(sector); i++)
            sector[i] = (uint8_t)(s * 7 + i);
        if (pwrite(disk, sector, sizeof(sector), (off_t)s * 512) != (ssize_t)sizeof(sector))
            abort();
    }
    cfg.fd = disk;
    notified = 0;
    err.msg[0] = '\0';
    return cfg;
}

static bool open_be(const struct blkif_config *cfg)
{
    be = blkif_open(cfg, &engine, &err);
    if (!be)
        printf("blkif_open: %s\n", err.msg);
    return be != NULL;
}

static bool setup(void)
{
    struct blkif_config cfg = fresh(0, 0);

    return open_be(&cfg);
}

/* The front end publishes a request (RING_PUSH_REQUESTS). */
static void push(const void *req, size_t n)
{
    union blkif_sring_entry e;

    memset(&e, 0, sizeof(e));
    memcpy(&e, req, n);
    ring_bytes(req_prod, &e, sizeof(e), true);
    req_prod++;
    __atomic_store_n(&sring()->req_prod, req_prod, __ATOMIC_RELEASE);
}

static void rw(uint8_t op, uint64_t id, uint64_t sector, unsigned nseg,
               const struct blkif_request_segment *seg)
{
    struct blkif_request r = { .operation = op, .nr_segments = (uint8_t)nseg,
                               .id = id, .sector_number = sector };

    /* a slot holds 11: a request claiming more carries only those */
    memcpy(r.seg, seg, (nseg < 11 ? nseg : 11) * sizeof(*seg));
    push(&r, sizeof(r));
}

static struct blkif_request_segment seg(uint32_t gref, uint8_t first, uint8_t last)
{
    return (struct blkif_request_segment){ .gref = gref, .first_sect = first,
                                           .last_sect = last };
}

/* Kick, then answer everything in flight (a few seconds at the most). */
static long kick_and_settle(void)
{
    long n = blkif_kick(be, &err);
    struct pollfd p = { .fd = blkif_completion_fd(be), .events = POLLIN };

    while (n >= 0 && blkif_in_flight(be) && poll(&p, 1, 5000) == 1)
        blkif_complete(be);
    return n;
}

/* The next response, as the front end takes it. */
static struct blkif_response response(void)
{
    struct blkif_response r = { .status = 99 };

    if (rsp_cons != __atomic_load_n(&sring()->rsp_prod, __ATOMIC_ACQUIRE))
        ring_bytes(rsp_cons++, &r, sizeof(r), false);
    return r;
}

static bool disk_holds(uint64_t sector, const uint8_t *bytes, size_t n)
{
    static uint8_t buf[256 * 1024];

    return n <= sizeof(buf) && pread(disk, buf, n, (off_t)(sector * 512)) == (ssize_t)n &&
           memcmp(buf, bytes, n) == 0;
}

static bool pattern_at(const uint8_t *p, uint64_t sector, unsigned nsect)
{
    for (unsigned s = 0; s < nsect; s++)
        for (unsigned i = 0; i < 512; i++)
            if (p[s * 512 + i] != (uint8_t)((sector + s) * 7 + i))
                return false;
    return true;
}

static bool grants_balanced(void)
{
    for (unsigned i = 0; i < NPAGES; i++)
        if (takes[i] != releases[i])
            return false;
    return true;
}

#define EXPECT_RSP(id_, op_, status_)                                      \
    do {                                                                   \
        struct blkif_response r_ = response();                             \
        CHECK(r_.id == (id_));                                             \
        CHECK(r_.operation == (op_));                                      \
        CHECK(r_.status == (status_));                                     \
    } while (0)

/* ---- the data path ---- */

static void read_fills_granted_pages(void)
{
    struct blkif_request_segment s[2] = { seg(0, 0, 7), seg(1, 2, 3) };

    CHECK(setup());
    rw(BLKIF_OP_READ, 0x1122334455667788ull, 10, 2, s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(0x1122334455667788ull, BLKIF_OP_READ, BLKIF_RSP_OKAY);
    CHECK(pattern_at(data[0], 10, 8));
    CHECK(pattern_at(data[1] + 1024, 18, 2));
    CHECK(data[1][1023] == 0xee && data[1][2048] == 0xee);   /* nothing else */
    CHECK(takes[0] == 1 && takes[1] == 1 && grants_balanced());
    CHECK(notified == 1);
    CHECK(blkif_in_flight(be) == 0);
}

static void write_reaches_the_file(void)
{
    struct blkif_request_segment s[3] = { seg(2, 0, 7), seg(3, 7, 7), seg(4, 0, 0) };
    uint8_t want[10 * 512];

    CHECK(setup());
    memset(data[2], 0xa1, PAGE);
    memset(data[3], 0xb2, PAGE);
    memset(data[4], 0xc3, PAGE);
    memset(want, 0xa1, 8 * 512);
    memset(want + 8 * 512, 0xb2, 512);
    memset(want + 9 * 512, 0xc3, 512);
    rw(BLKIF_OP_WRITE, 7, 100, 3, s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(7, BLKIF_OP_WRITE, BLKIF_RSP_OKAY);
    CHECK(disk_holds(100, want, sizeof(want)));
    CHECK(grants_balanced());
}

/* Several requests in one kick, answered in any order, one notification
 * at least; a read needs pages the device may write. */
static void batch_of_requests(void)
{
    struct blkif_request_segment s;

    CHECK(setup());
    for (unsigned i = 0; i < 8; i++) {
        s = seg(i, 0, 7);
        rw(BLKIF_OP_READ, 100 + i, i * 8, 1, &s);
    }
    CHECK(kick_and_settle() == 8);
    for (unsigned i = 0; i < 8; i++) {
        struct blkif_response r = response();

        CHECK(r.status == BLKIF_RSP_OKAY && r.id >= 100 && r.id < 108);
        CHECK(pattern_at(data[r.id - 100], (r.id - 100) * 8, 8));
    }
    CHECK(notified >= 1);
    CHECK(grants_balanced());
}

/* A flush is answered after the writes before it, and only OKAY once
 * fdatasync succeeded. */
static void flush_follows_the_writes(void)
{
    struct blkif_request_segment s;
    struct blkif_request flush = { .operation = BLKIF_OP_FLUSH_DISKCACHE, .id = 99 };

    CHECK(setup());
    for (unsigned i = 0; i < 6; i++) {
        memset(data[i], 0x30 + i, PAGE);
        s = seg(i, 0, 7);
        rw(BLKIF_OP_WRITE, i, 200 + i * 8, 1, &s);
    }
    push(&flush, sizeof(flush));
    CHECK(kick_and_settle() == 7);
    for (unsigned i = 0; i < 6; i++) {
        struct blkif_response r = response();

        CHECK(r.id < 6 && r.status == BLKIF_RSP_OKAY);
    }
    EXPECT_RSP(99, BLKIF_OP_FLUSH_DISKCACHE, BLKIF_RSP_OKAY);
    for (unsigned i = 0; i < 6; i++) {
        uint8_t want[PAGE];

        memset(want, 0x30 + i, PAGE);
        CHECK(disk_holds(200 + i * 8, want, PAGE));
    }
}

/* A barrier's data is written, then made durable; the write after it
 * waits for it. */
static void barrier_with_data(void)
{
    struct blkif_request_segment s = seg(5, 0, 7);
    uint8_t want[PAGE];

    CHECK(setup());
    memset(data[5], 0x55, PAGE);
    memset(data[6], 0x66, PAGE);
    rw(BLKIF_OP_WRITE_BARRIER, 1, 300, 1, &s);
    s = seg(6, 0, 7);
    rw(BLKIF_OP_WRITE, 2, 300, 1, &s);    /* the same sectors: must land last */
    CHECK(kick_and_settle() == 2);
    EXPECT_RSP(1, BLKIF_OP_WRITE_BARRIER, BLKIF_RSP_OKAY);
    EXPECT_RSP(2, BLKIF_OP_WRITE, BLKIF_RSP_OKAY);
    memset(want, 0x66, PAGE);
    CHECK(disk_holds(300, want, PAGE));
    CHECK(grants_balanced());
}

static void discard(uint64_t id, uint64_t sector, uint64_t n, uint8_t flag)
{
    struct blkif_request_discard d = { .operation = BLKIF_OP_DISCARD, .flag = flag,
                                       .id = id, .sector_number = sector,
                                       .nr_sectors = n };

    push(&d, sizeof(d));
}

static void discard_punches_a_hole(void)
{
    struct blkif_response r;
    struct stat before, after;
    uint8_t zeros[64 * 1024] = { 0 };

    CHECK(setup());
    fsync(disk);
    CHECK(fstat(disk, &before) == 0);
    discard(5, 256, 128, 0);   /* 64 KiB at 128 KiB */
    CHECK(kick_and_settle() == 1);
    r = response();
    CHECK(r.id == 5 && r.operation == BLKIF_OP_DISCARD);
    if (r.status == BLKIF_RSP_EOPNOTSUPP) {
        printf("SKIP discard_punches_a_hole: the file system cannot punch holes\n");
        return;
    }
    CHECK(r.status == BLKIF_RSP_OKAY);
    CHECK(disk_holds(256, zeros, sizeof(zeros)));
    CHECK(fstat(disk, &after) == 0);
    CHECK(after.st_size == before.st_size);         /* KEEP_SIZE */
    CHECK(lseek(disk, 0, SEEK_HOLE) <= 256 * 512);  /* a hole where it was */
    CHECK(after.st_blocks < before.st_blocks);
}

/* No sectors: nothing to do, and OKAY. */
static void empty_discard_is_okay(void)
{
    CHECK(setup());
    discard(6, 0, 0, 0);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(6, BLKIF_OP_DISCARD, BLKIF_RSP_OKAY);
}

static void discard_refused_unless_advertised(void)
{
    struct blkif_config cfg = fresh(0, 0);

    cfg.discard = false;
    CHECK(open_be(&cfg));
    discard(1, 0, 8, 0);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(1, BLKIF_OP_DISCARD, BLKIF_RSP_EOPNOTSUPP);
    CHECK(setup());
    discard(2, 0, 8, BLKIF_DISCARD_SECURE);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(2, BLKIF_OP_DISCARD, BLKIF_RSP_EOPNOTSUPP);
    discard(3, DISK_SECTORS - 4, 8, 0);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(3, BLKIF_OP_DISCARD, BLKIF_RSP_ERROR);
}

/* ---- indirect requests ---- */

/* nseg segments, sector by sector, in the indirect page behind gref 63
 * (segment i: one sector of page i % 40, at i / 40). */
static void indirect(uint8_t op, uint64_t id, uint64_t sector, unsigned nseg,
                     uint32_t igref)
{
    struct blkif_request_indirect r = { .operation = BLKIF_OP_INDIRECT,
                                        .indirect_op = op, .nr_segments = (uint16_t)nseg,
                                        .id = id, .sector_number = sector };
    struct blkif_request_segment *list = (struct blkif_request_segment *)data[63];

    for (unsigned i = 0; i < nseg && i < BLKIF_SEGS_PER_INDIRECT_PAGE; i++)
        list[i] = seg(i % 40, (uint8_t)(i / 40), (uint8_t)(i / 40));
    r.indirect_grefs[0] = igref;
    push(&r, sizeof(r));
}

static void indirect_read_and_write(void)
{
    uint8_t want[200 * 512];

    CHECK(setup());
    device_may_write[63] = false;       /* the device only reads the list */
    indirect(BLKIF_OP_READ, 1, 500, 200, 63);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(1, BLKIF_OP_READ, BLKIF_RSP_OKAY);   /* indirect_op, as blkfront checks */
    for (unsigned i = 0; i < 200; i++)
        CHECK(pattern_at(data[i % 40] + (i / 40) * 512, 500 + i, 1));
    CHECK(takes[63] == 1 && grants_balanced());

    for (unsigned i = 0; i < 200; i++) {
        memset(data[i % 40] + (i / 40) * 512, (uint8_t)i, 512);
        memset(want + i * 512, (uint8_t)i, 512);
    }
    indirect(BLKIF_OP_WRITE, 2, 700, 200, 63);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(2, BLKIF_OP_WRITE, BLKIF_RSP_OKAY);
    CHECK(disk_holds(700, want, sizeof(want) / 2));
    CHECK(disk_holds(800, want + sizeof(want) / 2, sizeof(want) / 2));
    CHECK(grants_balanced());
}

static void indirect_hostile(void)
{
    struct blkif_config cfg = fresh(0, 0);

    cfg.max_indirect_segments = 32;
    CHECK(open_be(&cfg));
    indirect(BLKIF_OP_READ, 1, 0, 33, 63);         /* more than advertised */
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(1, BLKIF_OP_READ, BLKIF_RSP_ERROR);
    CHECK_CONTAINS(blkif_last_refusal(be), "indirect segments");
    indirect(BLKIF_OP_READ, 2, 0, 0, 63);          /* none */
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(2, BLKIF_OP_READ, BLKIF_RSP_ERROR);
    granted[62] = false;
    indirect(BLKIF_OP_READ, 3, 0, 8, 62);          /* list page not granted */
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(3, BLKIF_OP_READ, BLKIF_RSP_ERROR);
    CHECK_CONTAINS(blkif_last_refusal(be), "not granted");
    indirect(BLKIF_OP_FLUSH_DISKCACHE, 4, 0, 8, 63);   /* neither read nor write */
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(4, BLKIF_OP_FLUSH_DISKCACHE, BLKIF_RSP_ERROR);
    ((struct blkif_request_segment *)data[63])[5].last_sect = 8;
    {
        struct blkif_request_indirect r = { .operation = BLKIF_OP_INDIRECT,
                                            .indirect_op = BLKIF_OP_WRITE,
                                            .nr_segments = 8, .id = 5 };
        push(&r, sizeof(r));    /* gref 0's list, with a bad segment 5 */
        for (unsigned i = 0; i < 8; i++)
            ((struct blkif_request_segment *)data[0])[i] = seg(1, 0, i == 5 ? 8 : 7);
    }
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(5, BLKIF_OP_WRITE, BLKIF_RSP_ERROR);
    CHECK_CONTAINS(blkif_last_refusal(be), "outside its page");
    CHECK(grants_balanced());
    CHECK(takes[0] == 1);        /* the list page, taken and given back */
}

/* ---- a read-only disk ---- */

static void read_only_disk_refuses_writes(void)
{
    struct blkif_config cfg = fresh(0, 0);
    struct blkif_request_segment s = seg(0, 0, 7);
    struct blkif_request flush = { .operation = BLKIF_OP_FLUSH_DISKCACHE, .id = 4 };

    cfg.read_only = true;
    CHECK(open_be(&cfg));
    memset(data[0], 0x77, PAGE);
    rw(BLKIF_OP_WRITE, 1, 0, 1, &s);
    discard(2, 0, 8, 0);
    rw(BLKIF_OP_READ, 3, 8, 1, &s);
    push(&flush, sizeof(flush));
    CHECK(kick_and_settle() == 4);
    EXPECT_RSP(1, BLKIF_OP_WRITE, BLKIF_RSP_ERROR);
    EXPECT_RSP(2, BLKIF_OP_DISCARD, BLKIF_RSP_ERROR);
    CHECK_CONTAINS(blkif_last_refusal(be), "read-only");
    {
        struct blkif_response a = response(), b = response();

        CHECK((a.id == 3 && a.status == BLKIF_RSP_OKAY && b.id == 4 && b.status == BLKIF_RSP_ERROR) ||
              (a.id == 4 && a.status == BLKIF_RSP_ERROR && b.id == 3 && b.status == BLKIF_RSP_OKAY));
    }
    CHECK(pattern_at(data[0], 8, 8));                  /* the read worked */
    {
        uint8_t buf[512];

        CHECK(pread(disk, buf, 512, 0) == 512);
        CHECK(pattern_at(buf, 0, 1));                  /* the write did not */
    }
    CHECK(grants_balanced());
}

/* ---- hostile requests: each answered with an error, the guest carries on ---- */

static void refused(uint8_t op, unsigned nseg, struct blkif_request_segment *s,
                    uint64_t sector, int16_t status, const char *why)
{
    CHECK(setup());
    rw(op, 42, sector, nseg, s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(42, op, status);
    CHECK_CONTAINS(blkif_last_refusal(be), why);
    CHECK(grants_balanced());
    CHECK(blkif_in_flight(be) == 0);
    /* and the ring still works */
    s[0] = seg(0, 0, 0);
    rw(BLKIF_OP_READ, 43, 0, 1, s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(43, BLKIF_OP_READ, BLKIF_RSP_OKAY);
}

static void twelve_segments(void)
{
    struct blkif_request_segment s[12];

    for (unsigned i = 0; i < 12; i++)
        s[i] = seg(i, 0, 7);
    refused(BLKIF_OP_READ, 12, s, 0, BLKIF_RSP_ERROR, "more than 11 segments");
}

static void no_segments_read(void)
{
    struct blkif_request_segment s[1];

    refused(BLKIF_OP_READ, 0, s, 0, BLKIF_RSP_ERROR, "no segments");
}

static void first_sect_after_last(void)
{
    struct blkif_request_segment s[2] = { seg(0, 0, 7), seg(1, 5, 4) };

    refused(BLKIF_OP_WRITE, 2, s, 0, BLKIF_RSP_ERROR, "outside its page");
}

static void last_sect_8(void)
{
    struct blkif_request_segment s[1] = { seg(0, 1, 8) };

    refused(BLKIF_OP_READ, 1, s, 0, BLKIF_RSP_ERROR, "outside its page");
}

static void sector_past_the_end(void)
{
    struct blkif_request_segment s[2] = { seg(0, 0, 7), seg(1, 0, 0) };

    refused(BLKIF_OP_READ, 2, s, DISK_SECTORS - 8, BLKIF_RSP_ERROR, "beyond the disk");
}

static void sector_wrapping_around(void)
{
    struct blkif_request_segment s[1] = { seg(0, 0, 7) };

    refused(BLKIF_OP_READ, 1, s, UINT64_MAX - 3, BLKIF_RSP_ERROR, "beyond the disk");
}

/* A READ needs pages the device may write: a read-only grant is refused
 * by the callback, and the pages already taken are given back. */
static void read_into_read_only_grant(void)
{
    struct blkif_request_segment s[3] = { seg(0, 0, 7), seg(1, 0, 7), seg(2, 0, 7) };

    CHECK(setup());
    device_may_write[1] = false;
    rw(BLKIF_OP_READ, 9, 0, 3, s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(9, BLKIF_OP_READ, BLKIF_RSP_ERROR);
    CHECK_CONTAINS(blkif_last_refusal(be), "read-only");
    CHECK(takes[0] == 1 && takes[2] == 0 && grants_balanced());
    CHECK(data[0][0] == 0xee);                     /* nothing read */
    /* a write may read from it */
    rw(BLKIF_OP_WRITE, 10, 0, 3, s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(10, BLKIF_OP_WRITE, BLKIF_RSP_OKAY);
}

static void unknown_operations(void)
{
    struct blkif_request r = { .operation = 4, .id = 11 };

    CHECK(setup());
    push(&r, sizeof(r));
    r.operation = 200;
    r.id = 12;
    push(&r, sizeof(r));
    CHECK(kick_and_settle() == 2);
    EXPECT_RSP(11, 4, BLKIF_RSP_EOPNOTSUPP);
    EXPECT_RSP(12, 200, BLKIF_RSP_EOPNOTSUPP);
    CHECK_CONTAINS(blkif_last_refusal(be), "unknown operation");
}

/* The back end takes its copy once: what the guest writes into the slot
 * after it is taken changes nothing. */
static void request_copied_once(void)
{
    struct blkif_request_segment s = seg(0, 0, 7);
    struct blkif_request evil;

    CHECK(setup());
    rw(BLKIF_OP_READ, 1, 16, 1, &s);
    CHECK(blkif_kick(be, &err) == 1);
    memset(&evil, 0xff, sizeof(evil));
    ring_bytes(0, &evil, sizeof(evil), true);
    CHECK(kick_and_settle() == 0);
    EXPECT_RSP(1, BLKIF_OP_READ, BLKIF_RSP_OKAY);
    CHECK(pattern_at(data[0], 16, 8));
}

/* ---- a corrupt ring stops the guest ---- */

static void req_prod_beyond_the_ring(void)
{
    CHECK(setup());
    sring()->req_prod = ring_slots() + 1;
    CHECK(blkif_kick(be, &err) == -1);
    CHECK_CONTAINS(err.msg, "blkif ring index corrupted");
    CHECK_CONTAINS(err.msg, "req_prod 33");
    CHECK(sring()->rsp_prod == 0);      /* nothing answered */
    sring()->req_prod = 0;
    CHECK(blkif_kick(be, &err) == -1);  /* and it stays stopped */
    CHECK_CONTAINS(err.msg, "stopped");
}

static void req_prod_moved_back(void)
{
    struct blkif_request_segment s = seg(0, 0, 7);

    CHECK(setup());
    rw(BLKIF_OP_READ, 1, 0, 1, &s);
    rw(BLKIF_OP_READ, 2, 0, 1, &s);
    CHECK(blkif_kick(be, &err) == 2);
    sring()->req_prod = 1;
    CHECK(blkif_kick(be, &err) == -1);
    CHECK_CONTAINS(err.msg, "req_prod 1, req_cons 2");
}

/* Exactly a ring of requests is fine. */
static void full_ring(void)
{
    struct blkif_request_segment s = seg(0, 0, 0);

    CHECK(setup());
    for (unsigned i = 0; i < 32; i++)
        rw(BLKIF_OP_READ, i, i, 1, &s);
    CHECK(kick_and_settle() == 32);
    for (unsigned i = 0; i < 32; i++)
        CHECK(response().status == BLKIF_RSP_OKAY);
    CHECK(grants_balanced());
}

static void corrupt_at_open(void)
{
    struct blkif_config cfg = fresh(0, 0);

    sring()->req_prod = 40;
    CHECK(!blkif_open(&cfg, &engine, &err));
    CHECK_CONTAINS(err.msg, "corrupted at attach");
    cfg = fresh(0, 0);
    cfg.ring_order = 5;
    CHECK(!blkif_open(&cfg, &engine, &err));
    CHECK_CONTAINS(err.msg, "at most 2^4");
    cfg.ring_order = 0;
    cfg.max_indirect_segments = 4096;
    CHECK(!blkif_open(&cfg, &engine, &err));
    CHECK_CONTAINS(err.msg, "indirect segments");
}

/* ---- the event-index protocol ---- */

/* The guest is notified only when rsp_event falls among the responses
 * just published; and the back end asks for the next request. */
static void notify_follows_rsp_event(void)
{
    struct blkif_request_segment s = seg(0, 0, 0);

    CHECK(setup());
    sring()->rsp_event = 3;                 /* "tell me at the third" */
    rw(BLKIF_OP_READ, 1, 0, 1, &s);
    CHECK(kick_and_settle() == 1);
    CHECK(notified == 0);
    rw(BLKIF_OP_READ, 2, 0, 1, &s);
    CHECK(kick_and_settle() == 1);
    CHECK(notified == 0);
    rw(BLKIF_OP_READ, 3, 0, 1, &s);
    CHECK(kick_and_settle() == 1);
    CHECK(notified == 1);
    CHECK(sring()->rsp_prod == 3);
    CHECK(sring()->req_event == 4);         /* req_cons + 1 */
    rw(BLKIF_OP_READ, 4, 0, 1, &s);         /* rsp_event stays 3: behind */
    CHECK(kick_and_settle() == 1);
    CHECK(notified == 1);
    /* refused requests notify by the same rule */
    sring()->rsp_event = 5;
    rw(BLKIF_OP_READ, 5, UINT64_MAX, 1, &s);
    CHECK(kick_and_settle() == 1);
    CHECK(notified == 2);
}

/* A rsp_event far ahead, or a scribbled rsp_prod: the back end trusts its
 * own count of what it published. */
static void scribbled_rsp_prod_ignored(void)
{
    struct blkif_request_segment s = seg(0, 0, 0);

    CHECK(setup());
    rw(BLKIF_OP_READ, 1, 0, 1, &s);
    sring()->rsp_prod = 1000;
    CHECK(kick_and_settle() == 1);
    CHECK(sring()->rsp_prod == 1);
    CHECK(notified == 1);
}

/* ---- ring geometry ---- */

/* Four pages, 128 slots; slot 72 straddles pages 1 and 2; the indices
 * start where an earlier back end left them, near 2^32. */
static void multi_page_ring_and_wrap(void)
{
    struct blkif_config cfg = fresh(2, 70);
    struct blkif_request_segment s[11];

    CHECK(open_be(&cfg));
    for (unsigned i = 0; i < 5; i++) {      /* request i: pages 11i to 11i+10 */
        for (unsigned j = 0; j < 11; j++)
            s[j] = seg(i * 11 + j, 0, 7);
        rw(BLKIF_OP_READ, 70 + i, i * 88, 11, s);
    }
    CHECK(kick_and_settle() == 5);
    for (unsigned i = 0; i < 5; i++) {
        struct blkif_response r = response();

        CHECK(r.status == BLKIF_RSP_OKAY && r.id >= 70 && r.id < 75);
    }
    for (unsigned p = 0; p < 55; p++)
        CHECK(pattern_at(data[p], p * 8, 8));
    CHECK(sring()->rsp_prod == 75 && grants_balanced());

    cfg = fresh(0, UINT32_MAX - 1);
    CHECK(open_be(&cfg));
    for (unsigned i = 0; i < 4; i++)
        rw(BLKIF_OP_READ, i, 0, 1, s);
    CHECK(kick_and_settle() == 4);
    CHECK(sring()->rsp_prod == 2);
    for (unsigned i = 0; i < 4; i++)
        CHECK(response().status == BLKIF_RSP_OKAY);
}

/* Closing with I/O in flight waits for it and gives every page back. */
static void close_releases_in_flight(void)
{
    struct blkif_request_segment s[11];

    CHECK(setup());
    for (unsigned i = 0; i < 11; i++)
        s[i] = seg(i, 0, 7);
    for (unsigned i = 0; i < 10; i++)
        rw(BLKIF_OP_WRITE, i, i * 88, 11, s);
    CHECK(blkif_kick(be, &err) == 10);
    blkif_close(be);
    be = NULL;
    CHECK(grants_balanced());
}

/* ---- the engine ---- */

/* One SQE straight onto the engine's ring, its result (or -1000 if none
 * came within a few seconds). */
static int raw_sqe(void (*prep)(struct io_uring_sqe *sqe), unsigned char flags)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&engine.uring);
    struct io_uring_cqe *cqe;
    struct __kernel_timespec ts = { .tv_sec = 5 };
    int res;

    prep(sqe);
    sqe->flags |= flags;
    if (io_uring_submit(&engine.uring) != 1 ||
        io_uring_wait_cqe_timeout(&engine.uring, &cqe, &ts) != 0)
        return -1000;
    res = cqe->res;
    io_uring_cqe_seen(&engine.uring, cqe);
    return res;
}

static struct iovec raw_iov;

static void prep_nop(struct io_uring_sqe *sqe) { io_uring_prep_nop(sqe); }
static void prep_openat(struct io_uring_sqe *sqe)
{
    io_uring_prep_openat(sqe, AT_FDCWD, "/etc/passwd", O_RDONLY, 0);
}
static void prep_read(struct io_uring_sqe *sqe)
{
    io_uring_prep_read(sqe, disk, raw_iov.iov_base, (unsigned)raw_iov.iov_len, 0);
}
static void prep_readv(struct io_uring_sqe *sqe)
{
    io_uring_prep_readv(sqe, disk, &raw_iov, 1, 0);
}
static void prep_writev(struct io_uring_sqe *sqe)
{
    io_uring_prep_writev(sqe, disk, &raw_iov, 1, 512);
}
static void prep_fsync(struct io_uring_sqe *sqe)
{
    io_uring_prep_fsync(sqe, disk, IORING_FSYNC_DATASYNC);
}
static void prep_fallocate(struct io_uring_sqe *sqe)
{
    io_uring_prep_fallocate(sqe, disk, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                            4096, 4096);
}

/* Only blkif_io.c's operations and SQE flags pass; anything else
 * completes with -EACCES, and the ring takes no more registrations. */
static void engine_allows_only_blkif_io(void)
{
    struct blkif_config cfg = fresh(0, 0);
    int fallocate_res, fds[1];

    (void)cfg;
    raw_iov = (struct iovec){ data[0], 512 };
    CHECK(raw_sqe(prep_nop, 0) == -EACCES);
    CHECK(raw_sqe(prep_openat, 0) == -EACCES);
    CHECK(raw_sqe(prep_read, 0) == -EACCES);       /* READ, not READV */
    CHECK(raw_sqe(prep_readv, IOSQE_ASYNC) == -EACCES);   /* a flag not in use */
    CHECK(raw_sqe(prep_readv, IOSQE_FIXED_FILE) == -EACCES);
    CHECK(raw_sqe(prep_readv, 0) == 512);
    CHECK(pattern_at(data[0], 0, 1));
    CHECK(raw_sqe(prep_writev, IOSQE_IO_DRAIN) == 512);
    CHECK(disk_holds(1, data[0], 512));
    CHECK(raw_sqe(prep_fsync, IOSQE_IO_DRAIN) == 0);
    fallocate_res = raw_sqe(prep_fallocate, 0);
    CHECK(fallocate_res == 0 || fallocate_res == -EOPNOTSUPP);
    fds[0] = disk;
    CHECK(io_uring_register_files(&engine.uring, fds, 1) == -EACCES);
    CHECK(io_uring_register_eventfd(&engine.uring, blkif_engine_fd(&engine)) == -EACCES);
}

/* One ring at a time; the engine comes back free, with nothing of the
 * last ring's I/O left, even after a close with I/O in flight. */
static void engine_serves_one_ring_at_a_time(void)
{
    struct blkif_config cfg = fresh(0, 0);
    struct blkif_request_segment s = seg(0, 0, 7);

    CHECK(open_be(&cfg));
    CHECK(!blkif_open(&cfg, &engine, &err));
    CHECK_CONTAINS(err.msg, "already serves a ring");
    CHECK(blkif_completion_fd(be) == blkif_engine_fd(&engine));
    close_releases_in_flight();
    CHECK(!check_case_failed);
    CHECK(setup());
    rw(BLKIF_OP_READ, 1, 24, 1, &s);
    CHECK(kick_and_settle() == 1);
    EXPECT_RSP(1, BLKIF_OP_READ, BLKIF_RSP_OKAY);
    CHECK(pattern_at(data[0], 24, 8));
    CHECK(response().status == 99);     /* and nothing else */
    cfg = fresh(0, 0);
    CHECK(!blkif_open(&cfg, NULL, &err));
    CHECK_CONTAINS(err.msg, "no I/O engine");
}

int main(void)
{
    struct error e;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (blkif_engine_open(&engine, &e) < 0) {
        printf("FAIL blkif_engine_open: %s\n", e.msg);
        return 1;
    }
    RUN(read_fills_granted_pages);
    RUN(write_reaches_the_file);
    RUN(batch_of_requests);
    RUN(flush_follows_the_writes);
    RUN(barrier_with_data);
    RUN(discard_punches_a_hole);
    RUN(empty_discard_is_okay);
    RUN(discard_refused_unless_advertised);
    RUN(indirect_read_and_write);
    RUN(indirect_hostile);
    RUN(read_only_disk_refuses_writes);
    RUN(twelve_segments);
    RUN(no_segments_read);
    RUN(first_sect_after_last);
    RUN(last_sect_8);
    RUN(sector_past_the_end);
    RUN(sector_wrapping_around);
    RUN(read_into_read_only_grant);
    RUN(unknown_operations);
    RUN(request_copied_once);
    RUN(req_prod_beyond_the_ring);
    RUN(req_prod_moved_back);
    RUN(full_ring);
    RUN(corrupt_at_open);
    RUN(notify_follows_rsp_event);
    RUN(scribbled_rsp_prod_ignored);
    RUN(multi_page_ring_and_wrap);
    RUN(close_releases_in_flight);
    RUN(engine_allows_only_blkif_io);
    RUN(engine_serves_one_ring_at_a_time);
    close_all();
    blkif_engine_close(&engine);
    blkif_engine_close(&engine);        /* twice is fine */
    for (unsigned i = 0; i < NPAGES; i++)
        free(data[i]);
    return check_exit_status();
}
