/* One --disk as a Xen virtual block device: the xenbus side. See vbd.h. */
#include "vbd.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../vm/lines.h"

/* Linux's xvd major is 202, 16 minors a disk (Xen's vbd numbering). */
#define XVD_DEVID(i) ((202u << 8) | ((i) << 4))

/* What the back end offers: every indirect segment blkif takes, and rings
 * of up to 2^BLKIF_MAX_RING_ORDER pages. */
#define VBD_MAX_INDIRECT BLKIF_MAX_INDIRECT_SEGMENTS

/* put(v, fe or be, key, fmt, ...): a node in one of the disk's directories. */
#define put(v, dir, ...) xenbus_backend_put(&(v)->xb, (v)->xb.dir, __VA_ARGS__)

/* ---- The ring and the data path ------------------------------------------ */

static void *take_grant(void *arg, uint32_t gref, bool device_writes, const char **why)
{
    return grant_take(arg, gref, device_writes, why);
}

static void release_grant(void *arg, uint32_t gref, bool device_writes)
{
    grant_release(arg, gref, device_writes);
}

static void raise_line(void *arg)
{
    struct vbd *v = arg;

    lines_raise(v->xb.env->shared, v->xb.env->vm, v->xb.line);
}

/* ring-ref, or ring-page-order and ring-ref0..N: the grants of the ring's
 * pages. Returns NULL or why not. */
static const char *read_rings(struct vbd *v)
{
    uint64_t order = 0, ref;
    char key[24];

    if (xenbus_backend_number(&v->xb, BLKIF_KEY_RING_PAGE_ORDER, &order) &&
        order > BLKIF_MAX_RING_ORDER)
        return "ring-page-order is larger than max-ring-page-order";
    v->ring_order = (unsigned)order;
    v->xb.nr_rings = 1u << v->ring_order;
    for (unsigned i = 0; i < v->xb.nr_rings; i++) {
        if (order == 0)
            snprintf(key, sizeof(key), "%s", BLKIF_KEY_RING_REF);
        else
            snprintf(key, sizeof(key), "%s%u", BLKIF_KEY_RING_REF, i);
        if (!xenbus_backend_number(&v->xb, key, &ref) || ref > UINT32_MAX)
            return "no ring-ref";
        v->xb.ring_refs[i] = (grant_ref_t)ref;
    }
    return NULL;
}

/* The front end is ready: its ring's grants and its port. */
static const char *read_keys(void *arg, uint32_t *port_out)
{
    struct vbd *v = arg;
    char protocol[32];
    uint64_t port;
    const char *why = read_rings(v);

    if (!why && xenbus_backend_read(&v->xb, BLKIF_KEY_PROTOCOL, protocol, sizeof(protocol)) &&
        strcmp(protocol, BLKIF_PROTOCOL_X86_64))
        why = "a protocol other than x86_64-abi";
    if (!why && (!xenbus_backend_number(&v->xb, BLKIF_KEY_EVENT_CHANNEL, &port) ||
                 port > UINT32_MAX))
        why = "no event-channel";
    if (!why)
        *port_out = (uint32_t)port;
    return why;
}

/* The Host connected the port: the data path, on the rings taken. */
static int start_blkif(void *arg, struct error *e)
{
    struct vbd *v = arg;
    struct blkif_config cfg = {
        .ring_order = v->ring_order,
        .grants = { take_grant, release_grant, v->xb.env->gt },
        .fd = v->disk->fd, .sectors = v->disk->sectors,
        .read_only = v->disk->readonly, .discard = !v->disk->readonly,
        .max_indirect_segments = VBD_MAX_INDIRECT,
        .notify = raise_line, .notify_arg = v,
    };

    memcpy(cfg.ring_pages, v->xb.ring_pages, sizeof(cfg.ring_pages));
    v->blkif = blkif_open(&cfg, &v->engine, e);
    /* A ring that was served before (a restored guest's) may hold
     * requests already, whose notification came before this start. */
    return v->blkif && blkif_kick(v->blkif, e) >= 0 ? 0 : -1;
}

static void stop_blkif(void *arg)
{
    struct vbd *v = arg;

    if (v->blkif) {
        blkif_close(v->blkif);
        v->blkif = NULL;
    }
}

static const struct xenbus_backend_ops vbd_ops = {
    .kind = "vbd", .what = "disk",
    .read_keys = read_keys, .start = start_blkif, .stop = stop_blkif,
};

int vbd_notified(struct vbd *v, struct error *e)
{
    int rc = xenbus_backend_notified(&v->xb, e);

    if (rc <= 0)
        return rc;
    return blkif_kick(v->blkif, e) < 0 ? -1 : 0;
}

int vbd_completion_fd(const struct vbd *v)
{
    return v->blkif ? blkif_completion_fd(v->blkif) : -1;
}

void vbd_complete(struct vbd *v)
{
    if (v->blkif)
        blkif_complete(v->blkif);
}

void vbd_settle(struct vbd *v)
{
    if (v->blkif)
        blkif_settle(v->blkif);
}

void vbd_close(struct vbd *v)
{
    xenbus_backend_close(&v->xb);
    blkif_engine_close(&v->engine);
}

/* ---- The nodes --------------------------------------------------------------- */

/* What libxl writes for a PV disk, beside what every device has. */
static int write_nodes(struct vbd *v)
{
    const struct disk *d = v->disk;
    int rc = 0;

    rc |= put(v, fe, "virtual-device", "%" PRIu32, v->devid);
    rc |= put(v, fe, "device-type", "disk");
    rc |= put(v, be, "removable", "0");
    rc |= put(v, be, "bootable", "1");
    rc |= put(v, be, "dev", "%s", v->name);
    rc |= put(v, be, "type", "file");
    rc |= put(v, be, "mode", "%s", d->readonly ? "r" : "w");
    rc |= put(v, be, "params", "%s", d->path);
    rc |= put(v, be, BLKIF_KEY_SECTORS, "%" PRIu64, d->sectors);
    rc |= put(v, be, BLKIF_KEY_SECTOR_SIZE, "%d", DISK_SECTOR_BYTES);
    rc |= put(v, be, "physical-sector-size", "%d", DISK_SECTOR_BYTES);
    rc |= put(v, be, BLKIF_KEY_INFO, "%d", d->readonly ? VDISK_READONLY : 0);
    rc |= put(v, be, BLKIF_KEY_FLUSH_CACHE, "%d", !d->readonly);
    rc |= put(v, be, BLKIF_KEY_DISCARD, "%d", !d->readonly);
    rc |= put(v, be, "discard-granularity", "%d", DISK_SECTOR_BYTES);
    rc |= put(v, be, "discard-alignment", "0");
    rc |= put(v, be, BLKIF_KEY_MAX_INDIRECT, "%d", VBD_MAX_INDIRECT);
    rc |= put(v, be, BLKIF_KEY_MAX_RING_ORDER, "%d", BLKIF_MAX_RING_ORDER);
    return rc;
}

int vbd_init(struct vbd *v, const struct backend_env *env, unsigned index,
             const struct disk *disk, struct error *e)
{
    memset(v, 0, sizeof(*v));
    v->disk = disk;
    v->devid = XVD_DEVID(index);
    disk_name(index, v->name);
    if (blkif_engine_open(&v->engine, e))
        return -1;
    if (xenbus_backend_init(&v->xb, env, &vbd_ops, v, v->name, v->devid,
                            PERCH_LINE_FIRST_DEVICE + index) ||
        write_nodes(v) || xenbus_backend_start(&v->xb))
        return fail(e, "%s: cannot write its xenstore nodes", v->name);
    return 0;
}
