/*
 * One --disk as a Xen virtual block device: the xenbus side of the block
 * back end. It writes the nodes Xen's toolstack writes for a domU's disk
 * (the front end's device/vbd/<id> directory, the back end's
 * backend/vbd/<dom>/<id> with the disk's size and features), follows the
 * front end's state in xenstore, and on "Initialised" takes the ring's
 * grants and its event channel (a back-end line, lines.h), starts the data
 * path (blkif.h) and says "Connected". A front end that closes is answered
 * "Closed", and may connect again. Everything runs on the device thread.
 */
#ifndef PERCH_LAUNCHER_VBD_H
#define PERCH_LAUNCHER_VBD_H

#include <stdbool.h>
#include <stdint.h>

#include "blkif.h"
#include "disk.h"
#include "error.h"
#include "grant.h"
#include "kvm.h"
#include "xenstore.h"

/* What every disk shares: the store, the guest's grants, the lines. */
struct vbd_env {
    struct xenstore *xs;
    struct grant_table *gt;
    struct perch_shared *shared;
    struct kvm_vm *vm;
    uint16_t domid;
};

enum vbd_phase {
    VBD_WAITING,      /* InitWait: for the front end's rings */
    VBD_CONNECTING,   /* the Host is taking the event channel */
    VBD_CONNECTED,
    VBD_CLOSED,       /* until the front end starts again */
};

struct vbd {
    const struct vbd_env *env;
    const struct disk *disk;
    unsigned line;               /* PERCH_LINE_FIRST_DEVICE + index */
    uint32_t devid;              /* 51712 (xvda), 51728 (xvdb), ... */
    char name[8];                /* xvda */
    char fe[64], be[80];         /* the two directories */
    enum vbd_phase phase;
    uint32_t port;
    unsigned ring_order;
    grant_ref_t ring_refs[BLKIF_MAX_RING_PAGES];
    void *ring_pages[BLKIF_MAX_RING_PAGES];   /* taken: held until the close */
    unsigned rings_taken;
    struct blkif_engine engine;  /* made at start, before the sandbox */
    struct blkif *blkif;
};

/* Write the disk's nodes and watch the front end. 0, or -1 with e. */
int vbd_init(struct vbd *v, const struct vbd_env *env, unsigned index,
             const struct disk *disk, struct error *e);

/* Its line was notified: the Host's answer to a connect, or requests.
 * -1 with e when the guest broke its ring (stop the guest). */
int vbd_notified(struct vbd *v, struct error *e);

/* The data path's completions: its fd to poll (-1: none now), and the
 * work when it is readable. */
int vbd_completion_fd(const struct vbd *v);
void vbd_complete(struct vbd *v);

/* The end of the run: I/O in flight finished, grants given back, the
 * engine closed. */
void vbd_close(struct vbd *v);

#endif
