/*
 * The blk guest's front end (frontend.h): the xenbus handshake with the
 * vbd back end and the shared ring, as Linux's xen-blkfront does them.
 */
#include "frontend.h"

#include "../../abi/xen/io/xenbus.h"
#include "xenbus.h"

struct blk_disk disk;

static uint8_t ring_page[4096] __attribute__((aligned(4096)));
static union blkif_sring_entry *const slots =
    (union blkif_sring_entry *)(ring_page + sizeof(struct xen_sring_header));
static struct rt_ring ring;
static uint64_t next_id = 1;

uint8_t blk_data[BLK_DATA_PAGES][4096] __attribute__((aligned(4096)));
uint8_t blk_indirect_page[4096] __attribute__((aligned(4096)));

/* ---- xenstore ---------------------------------------------------------- */

bool blk_probe(void)
{
    char path[160], watch[160];
    const char *err;

    fmt_snprintf(path, sizeof(path), "%s/backend", BLK_FE);
    err = rt_xs_read(path, disk.be, sizeof(disk.be));
    if (!check("xs_read_backend", !err, "%s: %s", path, err))
        return false;
    disk.sectors = rt_xenbus_read_u64(disk.be, BLKIF_KEY_SECTORS, 0);
    disk.info = (unsigned)rt_xenbus_read_u64(disk.be, BLKIF_KEY_INFO, 0);
    disk.max_indirect = (unsigned)rt_xenbus_read_u64(disk.be, BLKIF_KEY_MAX_INDIRECT, 0);
    disk.discard = rt_xenbus_read_u64(disk.be, BLKIF_KEY_DISCARD, 0) == 1;
    disk.flush = rt_xenbus_read_u64(disk.be, BLKIF_KEY_FLUSH_CACHE, 0) == 1;
    printk("blk: back end %s: %lu sectors, info %u, indirect %u, discard %d, flush %d\n",
           disk.be, (unsigned long)disk.sectors, disk.info, disk.max_indirect,
           disk.discard, disk.flush);
    fmt_snprintf(watch, sizeof(watch), "%s/state", disk.be);
    err = rt_xs_watch(watch, "be");
    return check("xs_watch_backend_state", !err, "%s", err) &&
           check("disk_sectors", disk.sectors > 0, "sectors is 0 or absent");
}

/* The ring and its port, then the keys, then state 3 (Initialised). */
int blk_connect(uint32_t port_to_write)
{
    const char *err;
    int s = rt_xenbus_frontend_start(disk.be, &disk.port);

    if (s != XenbusStateInitWait)
        return s;
    rt_ring_reset(&ring, ring_page, disk.port);
    rt_gnttab_grant(BLK_GREF_RING, 0, rt_virt_to_mfn(ring_page), false);
    err = rt_xenbus_printf(BLK_FE, BLKIF_KEY_RING_REF, "%u", BLK_GREF_RING);
    if (!err)
        err = rt_xenbus_printf(BLK_FE, BLKIF_KEY_EVENT_CHANNEL, "%u",
                               port_to_write ? port_to_write : disk.port);
    if (!err)
        err = rt_xenbus_printf(BLK_FE, BLKIF_KEY_PROTOCOL, "%s", BLKIF_PROTOCOL_X86_64);
    if (!err)
        err = rt_xenbus_printf(BLK_FE, "state", "%d", XenbusStateInitialised);
    if (err) {
        test_fail("frontend_keys", "xs_write: %s", err);
        return -1;
    }
    return rt_xenbus_wait_state(disk.be, XenbusStateConnected, XenbusStateClosing, 5000);
}

bool blk_restart(void)
{
    const char *err = rt_xenbus_printf(BLK_FE, "state", "%d", XenbusStateInitialising);

    return !err;
}

/* ---- The ring ------------------------------------------------------------ */

void blk_publish(void)
{
    rt_ring_push(&ring);
}

uint64_t blk_queue(union blkif_sring_entry *e)
{
    e->req.id = next_id++;
    memcpy(&slots[ring.req_prod_pvt++ % BLK_RING_SLOTS], e, sizeof(*e));
    return e->req.id;
}

volatile struct xen_sring_header *blk_sring(void)
{
    return ring.sring;
}

bool blk_response(struct blkif_response *out, uint64_t ms)
{
    if (!rt_ring_wait_response(&ring, ms))
        return false;
    memcpy(out, &slots[ring.rsp_cons++ % BLK_RING_SLOTS].rsp, sizeof(*out));
    return true;
}

int blk_do(union blkif_sring_entry *e, uint8_t *rsp_op)
{
    struct blkif_response r;
    uint64_t id = blk_queue(e);

    blk_publish();
    if (!blk_response(&r, 5000))
        return BLK_NO_RESPONSE;
    if (r.id != id)
        return BLK_WRONG_ID;
    if (rsp_op)
        *rsp_op = r.operation;
    return r.status;
}

/* ---- Requests ------------------------------------------------------------- */

void blk_rw(union blkif_sring_entry *e, uint8_t op, uint64_t sector)
{
    memset(e, 0, sizeof(*e));
    e->req.operation = op;
    e->req.handle = (uint16_t)BLK_DEVID;
    e->req.sector_number = sector;
}

void blk_seg(union blkif_sring_entry *e, grant_ref_t gref, unsigned first, unsigned last)
{
    struct blkif_request_segment *s = &e->req.seg[e->req.nr_segments++];

    s->gref = gref;
    s->first_sect = (uint8_t)first;
    s->last_sect = (uint8_t)last;
}

void blk_grant_data(void)
{
    for (unsigned i = 0; i < BLK_DATA_PAGES; i++)
        rt_gnttab_grant(BLK_GREF_DATA(i), 0, rt_virt_to_mfn(blk_data[i]), false);
    rt_gnttab_grant(BLK_GREF_INDIRECT, 0, rt_virt_to_mfn(blk_indirect_page), true);
}

/* The pattern every written sector holds: its number, 32 times, in
 * 16-byte lines "s%07u:blkpat\n" (tests/guests/blk.sh builds the same). */
void blk_pattern(uint8_t *buf, uint64_t sector, unsigned nsect)
{
    for (unsigned s = 0; s < nsect; s++)
        for (unsigned l = 0; l < 32; l++) {
            char line[17];

            fmt_snprintf(line, sizeof(line), "s%07lu:blkpat\n", (unsigned long)(sector + s));
            memcpy(buf + s * 512 + l * 16, line, 16);
        }
}

bool blk_holds(const uint8_t *buf, uint64_t sector, unsigned nsect)
{
    static uint8_t want[512];

    for (unsigned s = 0; s < nsect; s++) {
        blk_pattern(want, sector + s, 1);
        if (memcmp(buf + s * 512, want, 512))
            return false;
    }
    return true;
}
