/*
 * vcpu_op (hypercall 24) and set_timer_op (15): bringing vCPUs up and down,
 * vcpu_info and runstate registration, the single-shot timer.
 */
#include "../core/env.h"
#include "../events/evtchn.h"
#include "../events/time.h"
#include "vcpu_context.h"

#define NS_PER_MS 1000000ull

static long register_vcpu_info(struct vcpu *v, uint64_t arg)
{
    struct vcpu_register_vcpu_info req;
    long rc;

    if (copy_from_guest(&req, arg, sizeof(req)))
        return -XEN_EFAULT;
    rc = evtchn_register_vcpu_info(v->id, req.mfn, req.offset);
    time_update_vcpu(v->id);   /* Xen refreshes it whatever the outcome */
    return rc;
}

static long register_runstate(struct vcpu *v, uint64_t arg)
{
    uint64_t va;

    if (copy_from_guest(&va, arg, sizeof(va)))
        return -XEN_EFAULT;
    return time_runstate_register(v, va);
}

static long get_runstate(const struct vcpu *v, uint64_t arg)
{
    struct vcpu_runstate_info info;

    time_runstate_get(v, &info);
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

static bool others_up(void)
{
    for (unsigned i = 0; i < host_nr_vcpus; i++)
        if (i != current->id && vcpu_of(i)->state == VCPU_UP)
            return true;
    return false;
}

/*
 * A vCPU takes itself down (Linux's CPU offline: the dying CPU's last
 * hypercall) and sleeps until VCPUOP_up, then returns from here. Taking
 * the last one down is Xen's poweroff (Linux's halt with events disabled).
 */
static long take_down(void)
{
    if (!others_up()) {
        launcher_request(PERCH_REQ_SHUTDOWN, SHUTDOWN_poweroff);
        return 0;
    }
    current->state = VCPU_DOWN;
    time_stop_guest_timer();
    time_runstate_enter(RUNSTATE_offline);
    vcpu_context_wait_up();
    time_runstate_enter(RUNSTATE_running);
    return 0;
}

/* Another vCPU: it sleeps in host_boot or in take_down until this. */
static long bring_up(struct vcpu *v)
{
    if (v->state == VCPU_OFF)
        return -XEN_EINVAL;
    if (v->state == VCPU_DOWN) {
        v->state = VCPU_UP;
        env_send_ipi(v->id, PERCH_IPI_VECTOR);
    }
    return 0;
}

/*
 * vcpuid names one of the domain's vCPUs (any other is -ENOENT, as Xen
 * answers for a vCPU the domain does not have). Only the vCPU itself may
 * take itself down or use its single-shot timer, as in Xen; no periodic
 * timer: Linux stops it and uses the single-shot one, so stopping it is a
 * success.
 */
long do_vcpu_op(uint64_t cmd, uint64_t vcpuid, uint64_t arg, uint64_t a4, uint64_t a5)
{
    struct vcpu *v;
    bool self;

    (void)a4, (void)a5;
    if (vcpuid >= host_nr_vcpus)
        return -XEN_ENOENT;
    v = vcpu_of((unsigned)vcpuid);
    self = v == current;
    switch (cmd) {
    case VCPUOP_initialise:
        return v->state != VCPU_OFF ? -XEN_EEXIST : vcpu_context_load(v, arg);
    case VCPUOP_up:
        return bring_up(v);
    case VCPUOP_down:
        return self ? take_down() : -XEN_EINVAL;
    case VCPUOP_is_up:
        return v->state == VCPU_UP;
    case VCPUOP_get_runstate_info:
        return get_runstate(v, arg);
    case VCPUOP_register_runstate_memory_area:
        return register_runstate(v, arg);
    case VCPUOP_stop_periodic_timer:
        return 0;
    case VCPUOP_set_singleshot_timer:
        return self ? set_singleshot(arg) : -XEN_EINVAL;
    case VCPUOP_stop_singleshot_timer:
        if (!self)
            return -XEN_EINVAL;
        time_stop_guest_timer();
        return 0;
    case VCPUOP_register_vcpu_info:
        return register_vcpu_info(v, arg);
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
