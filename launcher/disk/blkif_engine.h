/*
 * The io_uring a disk's block back end submits through, made before the
 * Launcher's threads enter the sandbox (launcher/vm/sandbox.c), which forbids
 * io_uring_setup and io_uring_register: an io_uring operation (OPENAT,
 * say) is invisible to seccomp, so a thread that could make rings could
 * escape it. This one is locked down as it is made: only the operations
 * blkif_io.c submits (readv, writev, fsync, fallocate) and the SQE flags
 * it sets (IO_DRAIN, IO_LINK); anything else completes with -EACCES, and
 * no io_uring_register call works on it any more. Inside the sandbox only
 * io_uring_enter is left.
 *
 * One engine serves one disk; blkif_open() borrows it, blkif_close()
 * hands it back idle, so a front end that reconnects reuses it.
 */
#ifndef PERCH_BLKIF_ENGINE_H
#define PERCH_BLKIF_ENGINE_H

#include <liburing.h>
#include <stdbool.h>

#include "../base/error.h"

struct blkif_engine {
    struct io_uring uring;
    int efd;                /* readable when I/O completes */
    bool up;                /* the ring exists */
    bool attached;          /* a blkif is using it */
    bool spoiled;           /* I/O may still complete: never reuse */
};

/* SQ entries: two per slot of the largest ring blkif takes (a flush's
 * write and its fdatasync); the CQ is twice that, so it never overflows. */
unsigned blkif_engine_entries(void);

/* Make the restricted ring and its eventfd. Returns 0, or -1 with the
 * reason (no io_uring, or a kernel without restrictions: before 5.10). */
int blkif_engine_open(struct blkif_engine *eng, struct error *e);

/* The eventfd to poll (blkif_complete() empties it). */
int blkif_engine_fd(const struct blkif_engine *eng);

/* Free the ring (no blkif may be attached). Fine on a zeroed or failed
 * engine, and twice. */
void blkif_engine_close(struct blkif_engine *eng);

#endif
