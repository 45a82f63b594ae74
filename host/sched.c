/* sched_op: yield and shutdown (block and poll come with event channels). */
#include "host.h"

static long sched_shutdown(uint64_t arg)
{
    struct sched_shutdown req;

    if (copy_from_guest(&req, arg, sizeof(req)))
        return -XEN_EFAULT;
    launcher_request(PERCH_REQ_SHUTDOWN, req.reason);
    return 0;
}

long do_sched_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    switch (cmd) {
    case SCHEDOP_yield:
        return 0;   /* one vCPU: nothing else to run */
    case SCHEDOP_shutdown:
        return sched_shutdown(arg);
    default:
        return -XEN_ENOSYS;
    }
}
