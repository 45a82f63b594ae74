/*
 * blk: perch's disk back end (launcher/disk/vbd.c, blkif*.c) driven by a front
 * end of the guest's own (frontend.c), honestly and not. One boot per
 * case; tests/guests/blk.sh checks perch's status and lines and what the
 * disk file holds afterwards.
 *
 *   (no attack)   write, flush, read back; 11 segments; a full ring; an
 *                 indirect request; discard; the last sector. On a
 *                 read-only disk: reads work, writes, flushes and
 *                 discards are refused.
 *   attack=NAME   one wrong request (each answered ERROR or EOPNOTSUPP,
 *                 then a good read: the back end still serves), a corrupt
 *                 ring (perch stops the guest), a hostile xenstore client,
 *                 or an event channel that is not the guest's to give.
 */
#include "frontend.h"

#include "../../abi/xen/io/xenbus.h"
#include "xenbus.h"

const char guest_name[] = "blk";

/* Sectors the honest run writes (blk.sh writes the same reference). */
#define S_SIMPLE   16u     /* 8 sectors */
#define S_MULTI    64u     /* 73 sectors, 11 segments */
#define S_INDIRECT 256u    /* 32 pages: 256 sectors */
#define S_DISCARD  1024u   /* 8 written, the first 4 discarded */
#define INDIRECT_SEGS 32u

static int status_of(union blkif_sring_entry *e)
{
    return blk_do(e, NULL);
}

/* ---- Honest I/O ------------------------------------------------------------ */

static void test_write_read(void)
{
    union blkif_sring_entry e;
    int st;

    blk_pattern(blk_data[0], S_SIMPLE, 8);
    blk_rw(&e, BLKIF_OP_WRITE, S_SIMPLE);
    blk_seg(&e, BLK_GREF_DATA(0), 0, 7);
    check_eq("write", status_of(&e), BLKIF_RSP_OKAY);
    blk_rw(&e, BLKIF_OP_FLUSH_DISKCACHE, 0);
    check_eq("flush", status_of(&e), BLKIF_RSP_OKAY);
    memset(blk_data[1], 0xee, 4096);
    blk_rw(&e, BLKIF_OP_READ, S_SIMPLE);
    blk_seg(&e, BLK_GREF_DATA(1), 0, 7);
    st = status_of(&e);
    check("read_back", st == BLKIF_RSP_OKAY && blk_holds(blk_data[1], S_SIMPLE, 8),
          "status %d, data %s", st, st ? "-" : "differs");
}

/* 11 segments, each a different part of its page; read back as 10. */
static void test_multi_segment(void)
{
    union blkif_sring_entry e;
    unsigned total = 0;
    int st;
    bool same;

    blk_rw(&e, BLKIF_OP_WRITE, S_MULTI);
    for (unsigned i = 0; i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++) {
        unsigned first = i % 3, last = 7 - i % 2;

        blk_pattern(blk_data[2 + i] + first * 512, S_MULTI + total, last - first + 1);
        blk_seg(&e, BLK_GREF_DATA(2 + i), first, last);
        total += last - first + 1;
    }
    st = status_of(&e);
    check("multi_segment_write", st == BLKIF_RSP_OKAY && total == 73,
          "status %d, %u sectors", st, total);
    blk_rw(&e, BLKIF_OP_READ, S_MULTI);
    for (unsigned i = 0; i < 10; i++) {
        memset(blk_data[20 + i], 0xee, 4096);
        blk_seg(&e, BLK_GREF_DATA(20 + i), 0, i < 9 ? 7 : 0);
    }
    st = status_of(&e);
    same = true;
    for (unsigned i = 0; i < 10; i++)
        same = same && blk_holds(blk_data[20 + i], S_MULTI + 8 * i, i < 9 ? 8 : 1);
    check("multi_segment_read", st == BLKIF_RSP_OKAY && same, "status %d, data %s",
          st, same ? "same" : "differs");
}

/* A whole ring of reads, published at once with one event. */
static void test_full_ring(void)
{
    union blkif_sring_entry e;
    struct blkif_response r;
    unsigned ok = 0, got = 0;

    for (unsigned i = 0; i < BLK_RING_SLOTS; i++) {
        blk_rw(&e, BLKIF_OP_READ, S_SIMPLE + i % 8);
        blk_seg(&e, BLK_GREF_DATA(i), 0, 0);
        blk_queue(&e);
    }
    blk_publish();
    while (got < BLK_RING_SLOTS && blk_response(&r, 5000)) {
        got++;
        ok += r.status == BLKIF_RSP_OKAY;
    }
    for (unsigned i = 0; i < BLK_RING_SLOTS && ok == BLK_RING_SLOTS; i++)
        if (!blk_holds(blk_data[i], S_SIMPLE + i % 8, 1))
            ok = 0;
    check("full_ring", got == BLK_RING_SLOTS && ok == BLK_RING_SLOTS,
          "%u responses, %u OKAY with the right data", got, ok);
}

static void indirect_rw(union blkif_sring_entry *e, uint8_t op, uint64_t sector,
                        unsigned nseg)
{
    struct blkif_request_segment *segs = (struct blkif_request_segment *)blk_indirect_page;

    memset(e, 0, sizeof(*e));
    e->indirect.operation = BLKIF_OP_INDIRECT;
    e->indirect.indirect_op = op;
    e->indirect.nr_segments = (uint16_t)nseg;
    e->indirect.sector_number = sector;
    e->indirect.handle = (uint16_t)BLK_DEVID;
    e->indirect.indirect_grefs[0] = BLK_GREF_INDIRECT;
    memset(blk_indirect_page, 0, 4096);
    for (unsigned i = 0; i < nseg; i++)
        segs[i] = (struct blkif_request_segment){ .gref = BLK_GREF_DATA(i),
                                                  .first_sect = 0, .last_sect = 7 };
}

static void test_indirect(void)
{
    union blkif_sring_entry e;
    uint8_t op = 0xff;
    int st;
    bool same = true;

    if (disk.max_indirect < INDIRECT_SEGS) {
        printk("blk: no indirect test: feature-max-indirect-segments %u\n", disk.max_indirect);
        return;
    }
    for (unsigned i = 0; i < INDIRECT_SEGS; i++)
        blk_pattern(blk_data[i], S_INDIRECT + 8 * i, 8);
    indirect_rw(&e, BLKIF_OP_WRITE, S_INDIRECT, INDIRECT_SEGS);
    st = blk_do(&e, &op);
    check("indirect_write", st == BLKIF_RSP_OKAY && op == BLKIF_OP_WRITE,
          "status %d, operation %u (want the indirect_op, 1)", st, op);
    for (unsigned i = 0; i < INDIRECT_SEGS; i++)
        memset(blk_data[i], 0xee, 4096);
    indirect_rw(&e, BLKIF_OP_READ, S_INDIRECT, INDIRECT_SEGS);
    st = blk_do(&e, &op);
    for (unsigned i = 0; i < INDIRECT_SEGS; i++)
        same = same && blk_holds(blk_data[i], S_INDIRECT + 8 * i, 8);
    check("indirect_read", st == BLKIF_RSP_OKAY && op == BLKIF_OP_READ && same,
          "status %d, operation %u, data %s", st, op, same ? "same" : "differs");
}

static void test_discard(void)
{
    union blkif_sring_entry e;
    static const uint8_t zeros[2048];
    int st;

    if (!disk.discard) {
        printk("blk: no discard test: feature-discard is not 1\n");
        return;
    }
    blk_pattern(blk_data[0], S_DISCARD, 8);
    blk_rw(&e, BLKIF_OP_WRITE, S_DISCARD);
    blk_seg(&e, BLK_GREF_DATA(0), 0, 7);
    check_eq("discard_prepare", status_of(&e), BLKIF_RSP_OKAY);
    memset(&e, 0, sizeof(e));
    e.discard.operation = BLKIF_OP_DISCARD;
    e.discard.sector_number = S_DISCARD;
    e.discard.nr_sectors = 4;
    check_eq("discard", status_of(&e), BLKIF_RSP_OKAY);
    memset(blk_data[1], 0xee, 4096);
    blk_rw(&e, BLKIF_OP_READ, S_DISCARD);
    blk_seg(&e, BLK_GREF_DATA(1), 0, 7);
    st = status_of(&e);
    check("discard_reads_zeros", st == BLKIF_RSP_OKAY &&
          !memcmp(blk_data[1], zeros, sizeof(zeros)) &&
          blk_holds(blk_data[1] + 2048, S_DISCARD + 4, 4), "status %d, data differs", st);
}

/* The disk's last sector, from the last sector of a page. */
static void test_last_sector(void)
{
    union blkif_sring_entry e;
    uint64_t last = disk.sectors - 1;
    int st;

    blk_pattern(blk_data[0] + 7 * 512, last, 1);
    blk_rw(&e, BLKIF_OP_WRITE, last);
    blk_seg(&e, BLK_GREF_DATA(0), 7, 7);
    check_eq("last_sector_write", status_of(&e), BLKIF_RSP_OKAY);
    memset(blk_data[1], 0xee, 4096);
    blk_rw(&e, BLKIF_OP_READ, last);
    blk_seg(&e, BLK_GREF_DATA(1), 3, 3);
    st = status_of(&e);
    check("last_sector_read", st == BLKIF_RSP_OKAY && blk_holds(blk_data[1] + 3 * 512, last, 1),
          "status %d", st);
}

/* What the honest run wrote is there; nothing that changes the disk is
 * allowed. */
static void test_read_only(void)
{
    union blkif_sring_entry e;
    int st;

    check("ro_info", disk.info & VDISK_READONLY, "info %u", disk.info);
    blk_rw(&e, BLKIF_OP_READ, S_SIMPLE);
    blk_seg(&e, BLK_GREF_DATA(1), 0, 7);
    st = status_of(&e);
    check("ro_read", st == BLKIF_RSP_OKAY && blk_holds(blk_data[1], S_SIMPLE, 8),
          "status %d (the honest run's sectors 16-23 expected)", st);
    memset(blk_data[0], 'X', 4096);
    blk_rw(&e, BLKIF_OP_WRITE, S_SIMPLE);
    blk_seg(&e, BLK_GREF_DATA(0), 0, 7);
    check_eq("ro_write_refused", status_of(&e), BLKIF_RSP_ERROR);
    blk_rw(&e, BLKIF_OP_FLUSH_DISKCACHE, 0);
    check_eq("ro_flush_refused", status_of(&e), BLKIF_RSP_ERROR);
    memset(&e, 0, sizeof(e));
    e.discard.operation = BLKIF_OP_DISCARD;
    e.discard.sector_number = S_SIMPLE;
    e.discard.nr_sectors = 8;
    st = status_of(&e);
    check("ro_discard_refused", st == BLKIF_RSP_ERROR || st == BLKIF_RSP_EOPNOTSUPP,
          "status %d", st);
}

/* ---- Hostile requests ---------------------------------------------------------- */

/* A good read afterwards: the back end still serves the ring. */
static void still_serves(const char *name)
{
    union blkif_sring_entry e;

    blk_rw(&e, BLKIF_OP_READ, 0);
    blk_seg(&e, BLK_GREF_DATA(39), 0, 7);
    check_eq(name, status_of(&e), BLKIF_RSP_OKAY);
}

/* A write of 8 sectors of 'B' bytes from data page 0 at `sector`, through
 * `gref` with first..last: the file must not change whatever happens. */
static int bad_write(uint64_t sector, grant_ref_t gref, unsigned first, unsigned last)
{
    union blkif_sring_entry e;

    memset(blk_data[0], 'B', 4096);
    blk_rw(&e, BLKIF_OP_WRITE, sector);
    blk_seg(&e, gref, first, last);
    return status_of(&e);
}

static void attack_request(const char *a)
{
    union blkif_sring_entry e;
    uint8_t op = 0xff;
    int st;

    if (!strcmp(a, "nr_segments_12")) {
        blk_rw(&e, BLKIF_OP_WRITE, 2048);
        for (unsigned i = 0; i < 12; i++)
            blk_seg(&e, BLK_GREF_DATA(i), 0, 7);
        check_eq("nr_segments_12", status_of(&e), BLKIF_RSP_ERROR);
        blk_rw(&e, BLKIF_OP_WRITE, 2048);
        e.req.nr_segments = 255;
        check_eq("nr_segments_255", status_of(&e), BLKIF_RSP_ERROR);
        blk_rw(&e, BLKIF_OP_READ, 2048);
        check_eq("nr_segments_0", status_of(&e), BLKIF_RSP_ERROR);
    } else if (!strcmp(a, "first_gt_last")) {
        check_eq("first_gt_last", bad_write(2048, BLK_GREF_DATA(0), 5, 2), BLKIF_RSP_ERROR);
    } else if (!strcmp(a, "last_sect_8")) {
        check_eq("last_sect_8", bad_write(2048, BLK_GREF_DATA(0), 0, 8), BLKIF_RSP_ERROR);
        check_eq("last_sect_255", bad_write(2048, BLK_GREF_DATA(0), 255, 255), BLKIF_RSP_ERROR);
    } else if (!strcmp(a, "past_end")) {
        check_eq("past_end_straddle", bad_write(disk.sectors - 4, BLK_GREF_DATA(0), 0, 7),
                 BLKIF_RSP_ERROR);
        check_eq("past_end_first", bad_write(disk.sectors, BLK_GREF_DATA(0), 0, 0),
                 BLKIF_RSP_ERROR);
        check_eq("past_end_wraps", bad_write(~0ull - 3, BLK_GREF_DATA(0), 0, 7),
                 BLKIF_RSP_ERROR);
        check_eq("past_end_byte_wraps", bad_write(~0ull / 512 + 1, BLK_GREF_DATA(0), 0, 7),
                 BLKIF_RSP_ERROR);
    } else if (!strcmp(a, "gref_beyond")) {
        check_eq("gref_beyond_guest_table", bad_write(2048, RT_GNTTAB_ENTRIES + 100, 0, 7),
                 BLKIF_RSP_ERROR);
        check_eq("gref_beyond_table", bad_write(2048, 32 * 512, 0, 7), BLKIF_RSP_ERROR);
        check_eq("gref_max", bad_write(2048, 0xffffffffu, 0, 7), BLKIF_RSP_ERROR);
    } else if (!strcmp(a, "gref_ungranted")) {
        check_eq("gref_ungranted", bad_write(2048, 200, 0, 7), BLKIF_RSP_ERROR);
        rt_gnttab_grant(201, 5, rt_virt_to_mfn(blk_data[0]), false);   /* for domain 5 */
        check_eq("gref_other_domain", bad_write(2048, 201, 0, 7), BLKIF_RSP_ERROR);
    } else if (!strcmp(a, "ro_grant_read")) {
        memset(blk_data[5], 'R', 4096);
        rt_gnttab_grant(100, 0, rt_virt_to_mfn(blk_data[5]), true);
        blk_rw(&e, BLKIF_OP_READ, 0);
        blk_seg(&e, 100, 0, 7);
        st = status_of(&e);
        check("ro_grant_read", st == BLKIF_RSP_ERROR && blk_data[5][0] == 'R' &&
              blk_data[5][4095] == 'R', "status %d, page %s", st,
              blk_data[5][0] == 'R' ? "kept" : "written");
        check("ro_grant_released", rt_gnttab_end(100), "GTF_reading/writing still set: %#x",
              rt_gnttab[100].flags);
    } else if (!strcmp(a, "unknown_op")) {
        blk_rw(&e, 0x42, 0);
        blk_seg(&e, BLK_GREF_DATA(0), 0, 7);
        st = blk_do(&e, &op);
        check("unknown_op", st == BLKIF_RSP_EOPNOTSUPP && op == 0x42, "status %d, op %u", st, op);
        blk_rw(&e, 4, 0);   /* BLKIF_OP_RESERVED_1 */
        check_eq("reserved_op", status_of(&e), BLKIF_RSP_EOPNOTSUPP);
        indirect_rw(&e, BLKIF_OP_FLUSH_DISKCACHE, 2048, 1);
        check_eq("indirect_flush", status_of(&e), BLKIF_RSP_ERROR);
        indirect_rw(&e, BLKIF_OP_WRITE, 2048, disk.max_indirect + 1);
        check_eq("indirect_too_many", status_of(&e), BLKIF_RSP_ERROR);
        memset(&e, 0, sizeof(e));
        e.discard.operation = BLKIF_OP_DISCARD;
        e.discard.flag = BLKIF_DISCARD_SECURE;
        e.discard.sector_number = 2048;
        e.discard.nr_sectors = 8;
        check_eq("secure_discard", status_of(&e), BLKIF_RSP_EOPNOTSUPP);
    } else {
        test_fail("attack", "unknown attack %s", a);
        return;
    }
    still_serves("still_serves");
}

static void attack_ring(void)
{
    volatile struct xen_sring_header *s = blk_sring();

    printk("blk: req_prod far beyond the ring\n");
    s->req_prod = s->rsp_prod + 1000;
    rt_evtchn_send(disk.port);
    test_expect_stop("ring_req_prod_stopped");
}

/* ---- Hostile xenstore ---------------------------------------------------------- */

static void attack_xs_len(void)
{
    struct xsd_sockmsg h = { .type = XS_READ, .req_id = 77, .len = XENSTORE_PAYLOAD_MAX + 1 };

    printk("blk: xenstore request of %u bytes\n", h.len);
    rt_xs_send_raw(&h, sizeof(h));
    test_expect_stop("xs_len_stopped");
}

static void attack_xs_req_prod(void)
{
    printk("blk: xenstore req_prod beyond the ring\n");
    rt_xs_ring->req_prod = rt_xs_ring->req_cons + 5000;
    rt_evtchn_send(rt_xs_port);
    test_expect_stop("xs_req_prod_stopped");
}

/* Thousands of watches and writes: the quotas answer the excess, the
 * events that do not fit are dropped, the guest and its disk go on. */
static void attack_xs_storm(void)
{
    unsigned ok = 0, e2big = 0, enospc = 0, other = 0;
    const char *err, *last_other = "";
    char path[48], value[16];

    for (unsigned i = 0; i < 3000; i++) {
        fmt_snprintf(path, sizeof(path), "t%u", i);
        err = rt_xs_watch("data", path);
        if (!err)
            ok++;
        else if (!strcmp(err, "E2BIG"))
            e2big++;
        else
            other++, last_other = err;
    }
    check("xs_storm_watches", ok >= 100 && ok <= 128 && e2big == 3000 - ok,
          "%u OK, %u E2BIG, %u other (%s)", ok, e2big, other, last_other);
    ok = other = 0;
    for (unsigned i = 0; i < 1500; i++) {
        fmt_snprintf(path, sizeof(path), "data/n%u", i);
        err = rt_xs_write(path, "x");
        if (!err)
            ok++;
        else if (!strcmp(err, "ENOSPC") || !strcmp(err, "E2BIG"))
            enospc++;
        else
            other++, last_other = err;
    }
    check("xs_storm_writes", ok > 500 && enospc > 0 && !other,
          "%u OK, %u ENOSPC/E2BIG, %u other (%s)", ok, enospc, other, last_other);
    printk("blk: %u watch events seen\n", rt_xs_watch_events);
    err = rt_xs_read("domid", value, sizeof(value));
    check("xs_storm_still_serves", !err && !strcmp(value, "1"), "read domid: %s",
          err ? err : value);
    still_serves("xs_storm_disk_serves");
}

/* ---- The handshake ------------------------------------------------------------------- */

/* The console's port as event-channel: refused, "error" written, the
 * device closed; then a proper handshake connects. */
static void attack_evtchn(const char *which)
{
    uint32_t port = !strcmp(which, "console") ? rt_start_info->console.domU.evtchn : 4000;
    char path[160], why[160];
    int s = blk_connect(port);

    check("evtchn_refused", s == XenbusStateClosing || s == XenbusStateClosed,
          "event-channel %u: back end state %d, want 5 or 6", port, s);
    fmt_snprintf(path, sizeof(path), "%s/error", disk.be);
    check("evtchn_error_node", !rt_xs_read(path, why, sizeof(why)) && why[0],
          "no %s", path);
    printk("blk: back end error: %s\n", why);
    if (!check("evtchn_restart", blk_restart(), "state 1 not written"))
        return;
    s = blk_connect(0);
    if (check("evtchn_reconnected", s == XenbusStateConnected, "back end state %d", s))
        still_serves("evtchn_disk_serves");
}

void guest_main(const struct start_info *si)
{
    const char *attack = cmdline_get(si, "attack");
    int s;

    if (!attack)
        attack = "none";
    if (!rt_xenbus_init(si) || !blk_probe())
        goto out;
    blk_grant_data();
    if (!strncmp(attack, "evtchn_", 7)) {
        attack_evtchn(attack + 7);
        goto out;
    }
    s = blk_connect(0);
    if (!check("connected", s == XenbusStateConnected, "back end state %d", s))
        goto out;
    if (!strcmp(attack, "none")) {
        if (disk.info & VDISK_READONLY) {
            test_read_only();
        } else {
            test_write_read();
            test_multi_segment();
            test_full_ring();
            test_indirect();
            test_discard();
            test_last_sector();
        }
    } else if (!strcmp(attack, "ring_req_prod")) {
        attack_ring();
    } else if (!strcmp(attack, "xs_len")) {
        attack_xs_len();
    } else if (!strcmp(attack, "xs_req_prod")) {
        attack_xs_req_prod();
    } else if (!strcmp(attack, "xs_storm")) {
        attack_xs_storm();
    } else {
        attack_request(attack);
    }
out:
    printk("blk: %u passed, %u failed\n", tests_passed, tests_failed);
}
