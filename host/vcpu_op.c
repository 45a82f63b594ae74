/*
 * vcpu_op (hypercall 24) and set_timer_op (15) for perch's single vCPU:
 * vcpu_info and runstate registration, the single-shot timer, and the
 * up/down/is_up questions a one-vCPU domain can answer.
 */
#include "evtchn.h"
#include "time.h"

#define NS_PER_MS 1000000ull

static long register_vcpu_info(uint64_t arg)
{
    struct vcpu_register_vcpu_info req;
    long rc;

    if (copy_from_guest(&req, arg, sizeof(req)))
        return -XEN_EFAULT;
    rc = evtchn_register_vcpu_info(req.mfn, req.offset);
    time_update_guest();   /* Xen refreshes it whatever the outcome */
    return rc;
}

static long register_runstate(uint64_t arg)
{
    uint64_t va;

    if (copy_from_guest(&va, arg, sizeof(va)))
        return -XEN_EFAULT;
    return time_runstate_register(va);
}

static long get_runstate(uint64_t arg)
{
    struct vcpu_runstate_info info;

    time_runstate_get(&info);
    return copy_to_guest(arg, &info, sizeof(info)) ? -XEN_EFAULT : 0;
}

/* A deadline already past fires at once, unless the guest asked to be told
 * instead (VCPU_SSHOTTMR_future; Xen 4.17 ignores that flag, the interface
 * allows either). Linux passes flags 0. */
static long set_singleshot(uint64_t arg)
{
    struct vcpu_set_singleshot_timer req;

    if (copy_from_guest(&req, arg, sizeof(req)))
        return -XEN_EFAULT;
    if ((req.flags & VCPU_SSHOTTMR_future) && req.timeout_abs_ns < time_now_ns())
        return -XEN_ETIME;
    time_set_guest_timer(req.timeout_abs_ns);
    return 0;
}

/*
 * Only vCPU 0 exists (any other is -ENOENT, as Xen answers for a vCPU the
 * domain does not have). It is initialised and up; taking it down takes the
 * last vCPU down, which Xen turns into a poweroff (Linux's halt with events
 * disabled). No periodic timer: Linux stops it and uses the single-shot
 * one; stopping it is therefore a success.
 */
long do_vcpu_op(uint64_t cmd, uint64_t vcpuid, uint64_t arg, uint64_t a4, uint64_t a5)
{
    (void)a4, (void)a5;
    if (vcpuid != 0)
        return -XEN_ENOENT;
    switch (cmd) {
    case VCPUOP_initialise:
        return -XEN_EEXIST;
    case VCPUOP_up:
        return 0;
    case VCPUOP_down:
        launcher_request(PERCH_REQ_SHUTDOWN, SHUTDOWN_poweroff);
        return 0;
    case VCPUOP_is_up:
        return 1;
    case VCPUOP_get_runstate_info:
        return get_runstate(arg);
    case VCPUOP_register_runstate_memory_area:
        return register_runstate(arg);
    case VCPUOP_stop_periodic_timer:
        return 0;
    case VCPUOP_set_singleshot_timer:
        return set_singleshot(arg);
    case VCPUOP_stop_singleshot_timer:
        time_stop_guest_timer();
        return 0;
    case VCPUOP_register_vcpu_info:
        return register_vcpu_info(arg);
    default:
        return -XEN_ENOSYS;
    }
}

/*
 * The old one-shot timer interface, on the same timer: 0 cancels. A
 * deadline with bit 63 set or more than 2^50 ns (13 days) ahead is what an
 * old guest's jiffies wrap produces; Xen, and perch, fire it in 100 ms.
 */
long do_set_timer_op(uint64_t deadline, uint64_t a2, uint64_t a3, uint64_t a4,
                     uint64_t a5)
{
    uint64_t now;

    (void)a2, (void)a3, (void)a4, (void)a5;
    if (deadline == 0) {
        time_stop_guest_timer();
        return 0;
    }
    now = time_now_ns();
    if ((int64_t)deadline < 0 || (deadline > now && (deadline - now) >> 50))
        deadline = now + 100 * NS_PER_MS;
    time_set_guest_timer(deadline);
    return 0;
}
