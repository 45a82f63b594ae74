/* The block back end's io_uring, made and restricted before the sandbox. */
#include "blkif_engine.h"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "blkif.h"

/* Exactly what blkif_io.c's queue_io() submits. */
static const unsigned char allowed_ops[] = {
    IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_FSYNC, IORING_OP_FALLOCATE,
};
#define NR_OPS (sizeof(allowed_ops) / sizeof(allowed_ops[0]))
#define ALLOWED_FLAGS (IOSQE_IO_DRAIN | IOSQE_IO_LINK)

unsigned blkif_engine_entries(void)
{
    return 2 * BLKIF_RING_SLOTS(BLKIF_MAX_RING_PAGES);
}

/* Debian 12's liburing.so (2.3) declares io_uring_register_restrictions()
 * and io_uring_enable_rings() but does not export them: the call itself,
 * -errno as liburing returns it. */
static int ring_register(struct blkif_engine *eng, unsigned op, void *arg, unsigned nr)
{
    long rc = syscall(__NR_io_uring_register, eng->uring.ring_fd, op, arg, nr);

    return rc < 0 ? -errno : 0;
}

/* No IORING_RESTRICTION_REGISTER_OP entry: once enabled, every
 * io_uring_register call on the ring fails. */
static int restrict_ring(struct blkif_engine *eng, struct error *e)
{
    struct io_uring_restriction res[NR_OPS + 1];
    int rc;

    memset(res, 0, sizeof(res));
    for (unsigned i = 0; i < NR_OPS; i++) {
        res[i].opcode = IORING_RESTRICTION_SQE_OP;
        res[i].sqe_op = allowed_ops[i];
    }
    res[NR_OPS].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
    res[NR_OPS].sqe_flags = ALLOWED_FLAGS;
    rc = ring_register(eng, IORING_REGISTER_RESTRICTIONS, res, NR_OPS + 1);
    if (rc < 0)
        return fail(e, "blkif: io_uring restrictions: %s", strerror(-rc));
    return 0;
}

/* Disabled until restricted and given its eventfd (the kernel takes
 * restrictions only on a disabled ring); enabled, it is locked. */
int blkif_engine_open(struct blkif_engine *eng, struct error *e)
{
    struct io_uring_params p = { .flags = IORING_SETUP_R_DISABLED };
    int rc;

    memset(eng, 0, sizeof(*eng));
    eng->efd = -1;
    rc = io_uring_queue_init_params(blkif_engine_entries(), &eng->uring, &p);
    if (rc < 0)
        return fail(e, "blkif: io_uring: %s", strerror(-rc));
    eng->up = true;
    if (restrict_ring(eng, e) < 0)
        goto out;
    eng->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (eng->efd < 0) {
        fail(e, "blkif: eventfd: %s", strerror(errno));
        goto out;
    }
    rc = io_uring_register_eventfd(&eng->uring, eng->efd);
    if (rc < 0) {
        fail(e, "blkif: io_uring eventfd: %s", strerror(-rc));
        goto out;
    }
    rc = ring_register(eng, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
    if (rc < 0) {
        fail(e, "blkif: io_uring enable: %s", strerror(-rc));
        goto out;
    }
    return 0;
out:
    blkif_engine_close(eng);
    return -1;
}

int blkif_engine_fd(const struct blkif_engine *eng)
{
    return eng->efd;
}

/* Only an engine that is up owns its efd (a zeroed one's 0 is stdin). */
void blkif_engine_close(struct blkif_engine *eng)
{
    if (!eng->up)
        return;
    io_uring_queue_exit(&eng->uring);
    if (eng->efd >= 0)
        close(eng->efd);
    eng->up = eng->attached = false;
    eng->efd = -1;
}
