/* sched_op: yield, block, shutdown and poll. */
#include "../../abi/xen/sched.h"
#include "../core/host.h"

#include "../events/evtchn.h"
#include "../core/host_lock.h"
#include "../events/time.h"
#include "../core/vcpu.h"
#include "../core/where.h"

static long sched_shutdown(uint64_t arg)
{
    struct sched_shutdown req;

    if (copy_from_guest(&req, arg, sizeof(req)))
        return -XEN_EFAULT;
    where_report();   /* for a crash's line; cheap for the others */
    launcher_request(PERCH_REQ_SHUTDOWN, req.reason);
    return 0;
}

/*
 * Can anything raise an event while the guest waits: its timer, a back
 * end inside perch, or another vCPU? If not, Xen would leave the vCPU
 * blocked for good and perch would halt forever; returning instead is a
 * spurious wake-up, which the guest's idle loop takes in its stride.
 */
static bool wake_possible(void)
{
    return time_guest_timer_armed() || evtchn_backends_bound() || host_nr_vcpus > 1;
}

/* A stop for gdb ends a block or a poll early, as an event would: the
 * vCPU stops on its way back to the guest (host/entry/gdb.c), and Linux
 * takes an early return from either in its stride. */
static bool block_over(void *arg)
{
    (void)arg;
    return evtchn_upcall_due() || !wake_possible() || gdb_stop_asked();
}

/*
 * Enable events (clear upcall_mask) and sleep until an upcall is pending;
 * the return to the guest then delivers it. env_idle() returns after each
 * interrupt, whose handler may have raised an event.
 */
static long sched_block(void)
{
    volatile struct vcpu_info *vi = evtchn_vcpu_info();

    if (!vi)
        return 0;
    vi->evtchn_upcall_mask = 0;
    if (vi->evtchn_upcall_pending || !wake_possible())
        return 0;
    time_runstate_enter(RUNSTATE_blocked);
    evtchn_spin_before_sleep();
    host_sleep_until(block_over, NULL);
    time_runstate_enter(RUNSTATE_running);
    return 0;
}

/* 1 if one of the ports is pending, 0 if none, -XEN_EINVAL for a port
 * outside the 2-level range. */
static long any_pending(const uint32_t *ports, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (ports[i] >= EVTCHN_2L_NR_CHANNELS)
            return -XEN_EINVAL;
        if (evtchn_port_pending(ports[i]))
            return 1;
    }
    return 0;
}

/* Has the poll's reason to end come: an event raised since `kicks`, or
 * the timeout (absolute; 0: none)? */
struct poll_wait {
    uint64_t kicks, timeout;
};

static bool poll_over(void *arg)
{
    const struct poll_wait *w = arg;

    if (evtchn_state.kicks != w->kicks || gdb_stop_asked())
        return true;
    if (w->timeout)
        return time_now_ns() >= w->timeout;
    return !wake_possible();
}

/*
 * Wait, events still masked, until one of the ports is pending or the
 * timeout passes. As in Xen, an upcall that is due ends it at once, and any
 * new event wakes it (returning 0 whether or not a polled port got it).
 */
static long sched_poll(uint64_t arg)
{
    struct sched_poll req;
    uint32_t ports[SCHED_POLL_MAX_PORTS];
    struct poll_wait w;
    long rc;

    if (copy_from_guest(&req, arg, sizeof(req)))
        return -XEN_EFAULT;
    if (req.nr_ports > SCHED_POLL_MAX_PORTS)
        return -XEN_EINVAL;
    if (copy_from_guest(ports, req.ports, req.nr_ports * sizeof(ports[0])))
        return -XEN_EFAULT;
    if (evtchn_upcall_due())
        return 0;
    rc = any_pending(ports, req.nr_ports);
    if (rc)
        return rc < 0 ? rc : 0;
    w = (struct poll_wait){ .kicks = evtchn_state.kicks, .timeout = req.timeout };
    if (poll_over(&w))
        return 0;
    if (req.timeout)
        time_wake_at(req.timeout);
    time_runstate_enter(RUNSTATE_blocked);
    evtchn_spin_before_sleep();
    host_sleep_until(poll_over, &w);
    time_runstate_enter(RUNSTATE_running);
    if (req.timeout)
        time_wake_cancel();
    return 0;
}

long do_sched_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    switch (cmd) {
    case SCHEDOP_yield:
        return 0;   /* each vCPU has its own host thread: nothing to give way to */
    case SCHEDOP_block:
        return sched_block();
    case SCHEDOP_shutdown:
        return sched_shutdown(arg);
    case SCHEDOP_poll:
        return sched_poll(arg);
    default:
        return -XEN_ENOSYS;
    }
}
