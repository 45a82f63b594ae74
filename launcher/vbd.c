/* One --disk as a Xen virtual block device: the xenbus side. See vbd.h. */
#include "vbd.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../abi/xen/io/xenbus.h"
#include "lines.h"

/* Linux's xvd major is 202, 16 minors a disk (Xen's vbd numbering). */
#define XVD_DEVID(i) ((202u << 8) | ((i) << 4))

/* What the back end offers: every indirect segment blkif takes, and rings
 * of up to 2^BLKIF_MAX_RING_ORDER pages. */
#define VBD_MAX_INDIRECT BLKIF_MAX_INDIRECT_SEGMENTS

/* dir/key = the formatted value, as domain 0. */
static int put(struct vbd *v, const char *dir, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int put(struct vbd *v, const char *dir, const char *key, const char *fmt, ...)
{
    char path[160], value[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    snprintf(path, sizeof(path), "%s/%s", dir, key);
    return xenstore_write(v->env->xs, path, value, strlen(value));
}

/* The front end's dir/key as a number; false if absent or not one. */
static bool get_number(struct vbd *v, const char *key, uint64_t *out)
{
    char path[160], value[32], *end;
    size_t len;

    snprintf(path, sizeof(path), "%s/%s", v->fe, key);
    if (xenstore_read(v->env->xs, path, value, sizeof(value), &len) || !len)
        return false;
    *out = strtoull(value, &end, 10);
    return *end == 0 && value[0] >= '0' && value[0] <= '9';
}

static void set_state(struct vbd *v, enum xenbus_state s)
{
    put(v, v->be, "state", "%d", s);
}

/* What Xen's xenbus_dev_fatal does: the reason in the back end's "error"
 * node, the device closed. The guest goes on, without this disk. */
static void device_failed(struct vbd *v, const char *why)
{
    put(v, v->be, "error", "%s", why);
    fprintf(stderr, "perch: %s: the guest's front end: %s; the disk is closed\n",
            v->name, why);
    set_state(v, XenbusStateClosing);
}

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

    lines_raise(v->env->shared, v->env->vm, v->line);
}

static void release_rings(struct vbd *v)
{
    for (unsigned i = 0; i < v->rings_taken; i++)
        grant_release(v->env->gt, v->ring_refs[i], true);
    v->rings_taken = 0;
}

/* ring-ref, or ring-page-order and ring-ref0..N: the grants of the ring's
 * pages. Returns NULL or why not. */
static const char *read_rings(struct vbd *v)
{
    uint64_t order = 0, ref;
    char key[24];

    if (get_number(v, BLKIF_KEY_RING_PAGE_ORDER, &order) && order > BLKIF_MAX_RING_ORDER)
        return "ring-page-order is larger than max-ring-page-order";
    v->ring_order = (unsigned)order;
    for (unsigned i = 0; i < 1u << v->ring_order; i++) {
        if (order == 0)
            snprintf(key, sizeof(key), "%s", BLKIF_KEY_RING_REF);
        else
            snprintf(key, sizeof(key), "%s%u", BLKIF_KEY_RING_REF, i);
        if (!get_number(v, key, &ref) || ref > UINT32_MAX)
            return "no ring-ref";
        v->ring_refs[i] = (grant_ref_t)ref;
    }
    return NULL;
}

/* Initialised: take the ring's pages and ask the Host for the port. */
static void start_connect(struct vbd *v)
{
    char protocol[32];
    size_t len;
    uint64_t port;
    const char *why = read_rings(v);
    char path[160];

    snprintf(path, sizeof(path), "%s/%s", v->fe, BLKIF_KEY_PROTOCOL);
    if (!why && !xenstore_read(v->env->xs, path, protocol, sizeof(protocol), &len) &&
        strcmp(protocol, BLKIF_PROTOCOL_X86_64))
        why = "a protocol other than x86_64-abi";
    if (!why && (!get_number(v, BLKIF_KEY_EVENT_CHANNEL, &port) || port > UINT32_MAX))
        why = "no event-channel";
    for (unsigned i = 0; !why && i < 1u << v->ring_order; i++) {
        v->ring_pages[i] = grant_take(v->env->gt, v->ring_refs[i], true, &why);
        if (!v->ring_pages[i])
            break;
        v->rings_taken++;
    }
    if (why) {
        release_rings(v);
        device_failed(v, why);
        v->phase = VBD_CLOSED;
        return;
    }
    v->port = (uint32_t)port;
    v->phase = VBD_CONNECTING;
    lines_connect(v->env->shared, v->env->vm, v->line, v->port);
}

/* The Host answered: the port is the disk's line, or it was not one the
 * guest allocated for domain 0. */
static int finish_connect(struct vbd *v, struct error *e)
{
    struct blkif_config cfg = {
        .ring_order = v->ring_order,
        .grants = { take_grant, release_grant, v->env->gt },
        .fd = v->disk->fd, .sectors = v->disk->sectors,
        .read_only = v->disk->readonly, .discard = !v->disk->readonly,
        .max_indirect_segments = VBD_MAX_INDIRECT,
        .notify = raise_line, .notify_arg = v,
    };
    if (!lines_connected(v->env->shared, v->line, v->port)) {
        release_rings(v);
        device_failed(v, "event-channel is not a port for domain 0");
        v->phase = VBD_CLOSED;
        return 0;
    }
    memcpy(cfg.ring_pages, v->ring_pages, sizeof(cfg.ring_pages));
    v->blkif = blkif_open(&cfg, &v->engine, e);
    if (!v->blkif) {
        release_rings(v);
        return -1;
    }
    v->phase = VBD_CONNECTED;
    set_state(v, XenbusStateConnected);
    return 0;
}

static void disconnect(struct vbd *v)
{
    if (v->blkif) {
        blkif_close(v->blkif);
        v->blkif = NULL;
    }
    release_rings(v);
}

/* ---- Following the front end ----------------------------------------------- */

static void frontend_changed(void *arg, const char *path)
{
    struct vbd *v = arg;
    uint64_t state;

    (void)path;
    if (!get_number(v, "state", &state))
        return;
    switch (state) {
    case XenbusStateInitialised:
    case XenbusStateConnected:
        if (v->phase == VBD_WAITING)
            start_connect(v);
        break;
    /* Closing is answered Closing, and only Closed with Closed: a Linux
     * that is shutting down waits to read Closing from the back end. */
    case XenbusStateClosing:
        disconnect(v);
        v->phase = VBD_CLOSED;
        set_state(v, XenbusStateClosing);
        break;
    case XenbusStateClosed:
        disconnect(v);
        v->phase = VBD_CLOSED;
        set_state(v, XenbusStateClosed);
        break;
    case XenbusStateInitialising:
        if (v->phase == VBD_CLOSED) {   /* the front end starts again */
            v->phase = VBD_WAITING;
            set_state(v, XenbusStateInitWait);
        }
        break;
    default:
        break;
    }
}

int vbd_notified(struct vbd *v, struct error *e)
{
    if (v->phase == VBD_CONNECTING)
        return finish_connect(v, e);
    if (v->phase == VBD_CONNECTED && blkif_kick(v->blkif, e) < 0)
        return -1;
    return 0;
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

void vbd_close(struct vbd *v)
{
    disconnect(v);
    blkif_engine_close(&v->engine);
}

/* ---- The nodes --------------------------------------------------------------- */

/* What libxl writes for a PV disk, in the two directories: each made and
 * given its owner first, so the nodes in it inherit that (the front end's
 * are the guest's to write, the back end's the guest's to read). */
static int write_nodes(struct vbd *v)
{
    const struct disk *d = v->disk;
    uint16_t dom = v->env->domid;
    int rc = 0;

    rc |= xenstore_mkdir(v->env->xs, v->fe);
    rc |= xenstore_set_perms(v->env->xs, v->fe, dom, XS_ACCESS_READ);
    rc |= xenstore_mkdir(v->env->xs, v->be);
    rc |= xenstore_set_perms(v->env->xs, v->be, 0, XS_ACCESS_READ);
    rc |= put(v, v->fe, "backend", "%s", v->be);
    rc |= put(v, v->fe, "backend-id", "0");
    rc |= put(v, v->fe, "virtual-device", "%" PRIu32, v->devid);
    rc |= put(v, v->fe, "device-type", "disk");
    rc |= put(v, v->fe, "state", "%d", XenbusStateInitialising);
    rc |= put(v, v->be, "frontend", "%s", v->fe);
    rc |= put(v, v->be, "frontend-id", "%u", dom);
    rc |= put(v, v->be, "online", "1");
    rc |= put(v, v->be, "removable", "0");
    rc |= put(v, v->be, "bootable", "1");
    rc |= put(v, v->be, "dev", "%s", v->name);
    rc |= put(v, v->be, "type", "file");
    rc |= put(v, v->be, "mode", "%s", d->readonly ? "r" : "w");
    rc |= put(v, v->be, "params", "%s", d->path);
    rc |= put(v, v->be, BLKIF_KEY_SECTORS, "%" PRIu64, d->sectors);
    rc |= put(v, v->be, BLKIF_KEY_SECTOR_SIZE, "%d", DISK_SECTOR_BYTES);
    rc |= put(v, v->be, "physical-sector-size", "%d", DISK_SECTOR_BYTES);
    rc |= put(v, v->be, BLKIF_KEY_INFO, "%d", d->readonly ? VDISK_READONLY : 0);
    rc |= put(v, v->be, BLKIF_KEY_FLUSH_CACHE, "%d", !d->readonly);
    rc |= put(v, v->be, BLKIF_KEY_DISCARD, "%d", !d->readonly);
    rc |= put(v, v->be, "discard-granularity", "%d", DISK_SECTOR_BYTES);
    rc |= put(v, v->be, "discard-alignment", "0");
    rc |= put(v, v->be, BLKIF_KEY_MAX_INDIRECT, "%d", VBD_MAX_INDIRECT);
    rc |= put(v, v->be, BLKIF_KEY_MAX_RING_ORDER, "%d", BLKIF_MAX_RING_ORDER);
    rc |= put(v, v->be, "state", "%d", XenbusStateInitWait);
    return rc;
}

int vbd_init(struct vbd *v, const struct vbd_env *env, unsigned index,
             const struct disk *disk, struct error *e)
{
    char state[96];

    memset(v, 0, sizeof(*v));
    v->env = env;
    v->disk = disk;
    v->line = PERCH_LINE_FIRST_DEVICE + index;
    v->devid = XVD_DEVID(index);
    disk_name(index, v->name);
    snprintf(v->fe, sizeof(v->fe), "/local/domain/%u/device/vbd/%" PRIu32, env->domid, v->devid);
    snprintf(v->be, sizeof(v->be), "/local/domain/0/backend/vbd/%u/%" PRIu32, env->domid,
             v->devid);
    snprintf(state, sizeof(state), "%s/state", v->fe);
    if (blkif_engine_open(&v->engine, e))
        return -1;
    if (write_nodes(v) || xenstore_watch_local(env->xs, state, frontend_changed, v))
        return fail(e, "%s: cannot write its xenstore nodes", v->name);
    return 0;
}
