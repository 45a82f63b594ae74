/*
 * One --disk as a Xen virtual block device: the xenbus side of the block
 * back end. It writes the nodes Xen's toolstack writes for a domU's disk
 * (the front end's device/vbd/<id> directory, the back end's
 * backend/vbd/<dom>/<id> with the disk's size and features) and, when
 * xenbus_backend.h says the front end is ready, takes the ring's grants
 * and starts the data path (blkif.h). Everything runs on the device
 * thread.
 */
#ifndef PERCH_LAUNCHER_VBD_H
#define PERCH_LAUNCHER_VBD_H

#include <stdbool.h>
#include <stdint.h>

#include "blkif.h"
#include "disk.h"
#include "../base/error.h"
#include "../xenbus/xenbus_backend.h"

struct vbd {
    struct xenbus_backend xb;
    const struct disk *disk;
    uint32_t devid;              /* 51712 (xvda), 51728 (xvdb), ... */
    char name[8];                /* xvda */
    unsigned ring_order;
    struct blkif_engine engine;  /* made at start, before the sandbox */
    struct blkif *blkif;
};

/* Write the disk's nodes and watch the front end. 0, or -1 with e. */
int vbd_init(struct vbd *v, const struct backend_env *env, unsigned index,
             const struct disk *disk, struct error *e);

/* Its line was notified: the Host's answer to a connect, or requests.
 * -1 with e when the guest broke its ring (stop the guest). */
int vbd_notified(struct vbd *v, struct error *e);

/* The data path's completions: its fd to poll (-1: none now), and the
 * work when it is readable. */
int vbd_completion_fd(const struct vbd *v);
void vbd_complete(struct vbd *v);

/* Its requests in flight finished and answered (base/hold.h). */
void vbd_settle(struct vbd *v);

/* The end of the run: I/O in flight finished, grants given back, the
 * engine closed. */
void vbd_close(struct vbd *v);

#endif
