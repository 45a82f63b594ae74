/*
 * What every back end's xenbus side shares (the disk's, vbd.h, and the
 * network card's, vif.h): the device's two xenstore directories, the
 * front end's device/<kind>/<id> and the back end's
 * backend/<kind>/<dom>/<id>, made and given their owners; the front end's
 * state followed; its event channel connected to the device's back-end
 * line (lines.h) by the Host; and the states answered as Linux's back ends
 * answer them.
 *
 * The device brings its own nodes, a way to read the keys that name the
 * front end's rings and port (ops.read_keys) and its data path
 * (ops.start, ops.stop). Between the two: "Initialised" or "Connected"
 * from the front end takes the rings' pages (granted writable: the back
 * end writes its responses there) and asks the Host for the port; the Host's answer starts the data path
 * and says "Connected"; "Closing" is answered "Closing" and "Closed"
 * "Closed", the data path stopped and the rings given back either way; a
 * front end that starts again ("Initialising") finds "InitWait". Every
 * call comes from the device thread.
 */
#ifndef PERCH_XENBUS_BACKEND_H
#define PERCH_XENBUS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "back_ring.h"
#include "../base/error.h"
#include "grant.h"
#include "../vm/kvm.h"
#include "xenstore.h"

/* What every device shares: the store, the guest's grants, the lines. */
struct backend_env {
    struct xenstore *xs;
    struct grant_table *gt;
    struct perch_shared *shared;
    struct kvm_vm *vm;
    uint16_t domid;
};

struct xenbus_backend_ops {
    const char *kind;            /* "vbd": the directories' */
    const char *what;            /* "disk": what a failure closes */
    /* The front end says it is ready: read its keys, the grants of its
     * rings into xb->ring_refs (xb->nr_rings of them) and its event
     * channel into *port. NULL, or why not (a constant string). */
    const char *(*read_keys)(void *dev, uint32_t *port);
    /* The Host connected the port: start the data path on
     * xb->ring_pages. -1 with e (the rings are corrupt already, or perch
     * failed) ends the run. */
    int (*start)(void *dev, struct error *e);
    /* Stop the data path if it runs (the rings are given back after). */
    void (*stop)(void *dev);
};

enum xenbus_backend_phase {
    XENBUS_BACKEND_WAITING,      /* InitWait: for the front end's rings */
    XENBUS_BACKEND_CONNECTING,   /* the Host is taking the event channel */
    XENBUS_BACKEND_CONNECTED,
    XENBUS_BACKEND_CLOSED,       /* until the front end starts again */
};

struct xenbus_backend {
    const struct backend_env *env;
    const struct xenbus_backend_ops *ops;
    void *dev;
    const char *name;            /* xvda, vif0: the device's own string */
    unsigned line;               /* PERCH_LINE_FIRST_DEVICE + index */
    char fe[64], be[80];         /* the two directories */
    enum xenbus_backend_phase phase;
    uint32_t port;
    unsigned nr_rings;           /* the front end's ring pages */
    grant_ref_t ring_refs[BACK_RING_MAX_PAGES];
    void *ring_pages[BACK_RING_MAX_PAGES];   /* taken: held until the close */
    unsigned rings_taken;
};

/* Device `name`, ops->kind number id on `line`: name its directories and
 * make them, the front end's the guest's to write, the back end's the
 * guest's to read (the nodes written in them inherit that). 0, or -1. */
int xenbus_backend_init(struct xenbus_backend *xb, const struct backend_env *env,
                        const struct xenbus_backend_ops *ops, void *dev,
                        const char *name, uint32_t id, unsigned line);

/* dir/key = the formatted value, as domain 0 (dir: xb->fe or xb->be).
 * 0, or an errno. */
int xenbus_backend_put(struct xenbus_backend *xb, const char *dir, const char *key,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The front end's key, NUL-terminated in buf; false if absent or longer. */
bool xenbus_backend_read(struct xenbus_backend *xb, const char *key, char *buf,
                         size_t size);

/* The front end's key as a decimal number; false if absent or not one. */
bool xenbus_backend_number(struct xenbus_backend *xb, const char *key, uint64_t *out);

/* The device's nodes are written: "InitWait", and follow the front end.
 * 0, or -1. */
int xenbus_backend_start(struct xenbus_backend *xb);

/* The device's line was notified. Returns 1 when the data path runs and
 * should look at its rings, 0 when the notification was the Host's answer
 * (or came too early), -1 with e from ops.start. */
int xenbus_backend_notified(struct xenbus_backend *xb, struct error *e);

/* The end of the run: the data path stopped, the rings given back. */
void xenbus_backend_close(struct xenbus_backend *xb);

#endif
