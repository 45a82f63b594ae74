/* The xenbus side every back end shares. See xenbus_backend.h. */
#include "xenbus_backend.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/xen/io/xenbus.h"
#include "../vm/lines.h"

int xenbus_backend_put(struct xenbus_backend *xb, const char *dir, const char *key,
                       const char *fmt, ...)
{
    char path[160], value[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(value, sizeof(value), fmt, ap);
    va_end(ap);
    snprintf(path, sizeof(path), "%s/%s", dir, key);
    return xenstore_write(xb->env->xs, path, value, strlen(value));
}

bool xenbus_backend_read(struct xenbus_backend *xb, const char *key, char *buf,
                         size_t size)
{
    char path[160];
    size_t len;

    snprintf(path, sizeof(path), "%s/%s", xb->fe, key);
    return !xenstore_read(xb->env->xs, path, buf, size, &len);
}

bool xenbus_backend_number(struct xenbus_backend *xb, const char *key, uint64_t *out)
{
    char value[32], *end;

    if (!xenbus_backend_read(xb, key, value, sizeof(value)) ||
        value[0] < '0' || value[0] > '9')
        return false;
    *out = strtoull(value, &end, 10);
    return *end == 0;
}

static void set_state(struct xenbus_backend *xb, enum xenbus_state s)
{
    xenbus_backend_put(xb, xb->be, "state", "%d", s);
}

/* What Xen's xenbus_dev_fatal does: the reason in the back end's "error"
 * node, the device closed. The guest goes on, without this device. */
static void device_failed(struct xenbus_backend *xb, const char *why)
{
    xenbus_backend_put(xb, xb->be, "error", "%s", why);
    fprintf(stderr, "perch: %s: the guest's front end: %s; the %s is closed\n",
            xb->name, why, xb->ops->what);
    set_state(xb, XenbusStateClosing);
    xb->phase = XENBUS_BACKEND_CLOSED;
}

static void release_rings(struct xenbus_backend *xb)
{
    for (unsigned i = 0; i < xb->rings_taken; i++)
        grant_release(xb->env->gt, xb->ring_refs[i], true);
    xb->rings_taken = 0;
}

static const char *take_rings(struct xenbus_backend *xb)
{
    const char *why = NULL;

    for (unsigned i = 0; i < xb->nr_rings; i++) {
        xb->ring_pages[i] = grant_take(xb->env->gt, xb->ring_refs[i], true, &why);
        if (!xb->ring_pages[i]) {
            release_rings(xb);
            return why;
        }
        xb->rings_taken++;
    }
    return NULL;
}

/* The data path stopped, then the rings it ran on given back. */
static void disconnect(struct xenbus_backend *xb)
{
    xb->ops->stop(xb->dev);
    release_rings(xb);
}

/* Initialised (or Connected): the rings taken, the Host asked for the port. */
static void start_connect(struct xenbus_backend *xb)
{
    const char *why = xb->ops->read_keys(xb->dev, &xb->port);

    if (!why)
        why = take_rings(xb);
    if (why) {
        device_failed(xb, why);
        return;
    }
    xb->phase = XENBUS_BACKEND_CONNECTING;
    lines_connect(xb->env->shared, xb->env->vm, xb->line, xb->port);
}

/* The Host answered: the port is the device's line, or it was not one the
 * guest allocated for domain 0. */
static int finish_connect(struct xenbus_backend *xb, struct error *e)
{
    if (!lines_connected(xb->env->shared, xb->line, xb->port)) {
        disconnect(xb);
        device_failed(xb, "event-channel is not a port for domain 0");
        return 0;
    }
    if (xb->ops->start(xb->dev, e)) {
        disconnect(xb);
        return -1;
    }
    xb->phase = XENBUS_BACKEND_CONNECTED;
    set_state(xb, XenbusStateConnected);
    return 0;
}

static void frontend_changed(void *arg, const char *path)
{
    struct xenbus_backend *xb = arg;
    uint64_t state;

    (void)path;
    if (!xenbus_backend_number(xb, "state", &state))
        return;
    switch (state) {
    case XenbusStateInitialised:
    case XenbusStateConnected:
        if (xb->phase == XENBUS_BACKEND_WAITING)
            start_connect(xb);
        break;
    /* Closing is answered Closing, and only Closed with Closed: a Linux
     * that is shutting down waits to read Closing from the back end. */
    case XenbusStateClosing:
    case XenbusStateClosed:
        disconnect(xb);
        xb->phase = XENBUS_BACKEND_CLOSED;
        set_state(xb, (enum xenbus_state)state);
        break;
    case XenbusStateInitialising:
        if (xb->phase == XENBUS_BACKEND_CLOSED) {   /* the front end starts again */
            xb->phase = XENBUS_BACKEND_WAITING;
            set_state(xb, XenbusStateInitWait);
        }
        break;
    default:
        break;
    }
}

int xenbus_backend_notified(struct xenbus_backend *xb, struct error *e)
{
    if (xb->phase == XENBUS_BACKEND_CONNECTING)
        return finish_connect(xb, e);
    return xb->phase == XENBUS_BACKEND_CONNECTED;
}

void xenbus_backend_close(struct xenbus_backend *xb)
{
    if (xb->ops)   /* a device set up before the one that failed */
        disconnect(xb);
}

int xenbus_backend_init(struct xenbus_backend *xb, const struct backend_env *env,
                        const struct xenbus_backend_ops *ops, void *dev,
                        const char *name, uint32_t id, unsigned line)
{
    struct xenstore *xs = env->xs;
    int rc = 0;

    *xb = (struct xenbus_backend){
        .env = env, .ops = ops, .dev = dev, .name = name, .line = line,
    };
    snprintf(xb->fe, sizeof(xb->fe), "/local/domain/%u/device/%s/%" PRIu32,
             env->domid, ops->kind, id);
    snprintf(xb->be, sizeof(xb->be), "/local/domain/0/backend/%s/%u/%" PRIu32,
             ops->kind, env->domid, id);
    rc |= xenstore_mkdir(xs, xb->fe);
    rc |= xenstore_set_perms(xs, xb->fe, env->domid, XS_ACCESS_READ);
    rc |= xenstore_mkdir(xs, xb->be);
    rc |= xenstore_set_perms(xs, xb->be, 0, XS_ACCESS_READ);
    rc |= xenbus_backend_put(xb, xb->fe, "backend", "%s", xb->be);
    rc |= xenbus_backend_put(xb, xb->fe, "backend-id", "0");
    rc |= xenbus_backend_put(xb, xb->fe, "state", "%d", XenbusStateInitialising);
    rc |= xenbus_backend_put(xb, xb->be, "frontend", "%s", xb->fe);
    rc |= xenbus_backend_put(xb, xb->be, "frontend-id", "%u", env->domid);
    rc |= xenbus_backend_put(xb, xb->be, "online", "1");
    return rc ? -1 : 0;
}

int xenbus_backend_start(struct xenbus_backend *xb)
{
    char state[96];

    snprintf(state, sizeof(state), "%s/state", xb->fe);
    set_state(xb, XenbusStateInitWait);
    return xenstore_watch_local(xb->env->xs, state, frontend_changed, xb) ? -1 : 0;
}
