/*
 * System time, pvclock, the wallclock, the timer device shared by the
 * guest's single-shot timer and the Host's own wake-ups, and the runstate
 * record. See time.h.
 */
#include "time.h"

#include "../core/env.h"
#include "evtchn.h"
#include "../core/vcpu.h"

#define NS_PER_MS  1000000ull
#define NS_PER_SEC 1000000000ull

uint32_t time_tsc_khz;

/* The domain's clock; each vCPU's timers and runstate are in struct vcpu. */
static struct {
    uint32_t khz;              /* 0 until time_init() */
    uint32_t mul;
    int8_t shift;
} clock;

/* ---- Work the timer interrupt must not cut into -------------------------- */

/*
 * The timer interrupt may find the Host inside this file (host/entry/trap.c
 * calls time_timer_fired() whatever it interrupted). A refresh cut in two
 * would leave the guest a record with an odd version or mismatched fields,
 * a re-arming cut in two a stale deadline. So the work is bracketed, and a
 * firing that arrives inside it is run when the outermost bracket closes.
 */
static volatile unsigned busy;
static volatile bool fire_deferred;

#define compiler_barrier() __asm__ volatile("" ::: "memory")

static void enter(void)
{
    busy = busy + 1;
    compiler_barrier();
}

static void leave(void)
{
    compiler_barrier();
    busy = busy - 1;
    if (busy == 0 && fire_deferred) {
        fire_deferred = false;
        time_timer_fired();   /* a second firing is harmless: it re-checks */
    }
}

/* ---- Clock ----------------------------------------------------------------- */

/*
 * Exact, rounded down, and without 128-bit division (which would need
 * libgcc): tsc = q * khz + r, so tsc * 10^6 / khz = q * 10^6 + r * 10^6 / khz,
 * where r * 10^6 < 2^52.
 */
static uint64_t tsc_to_ns(uint64_t tsc)
{
    uint64_t khz = clock.khz;

    if (!khz)
        return 0;
    return tsc / khz * NS_PER_MS + tsc % khz * NS_PER_MS / khz;
}

/* The guest's time counts the TSC less what it lay saved (abi/layout.h). */
static uint64_t tsc_to_guest_ns(uint64_t tsc)
{
    return tsc_to_ns(tsc - perch_shared.boot.tsc_skip);
}

uint64_t time_now_ns(void)
{
    return tsc_to_guest_ns(env_rdtsc());
}

/*
 * ns per tick = 10^6 / khz = mul * 2^shift / 2^32. Start from
 * mul = 10^6 * 2^32 / khz and shift until mul has 32 significant bits:
 * right for slow TSCs, left (a larger dividend) for fast ones. The dividend
 * stays below 2^64: even khz = 2^32 - 1 needs only shift = -12.
 */
void time_scale(uint32_t khz, uint32_t *mul, int8_t *shift)
{
    const uint64_t dividend = NS_PER_MS << 32;
    uint64_t m = dividend / khz;
    int s = 0;

    while (m >= 1ull << 32) {
        m >>= 1;   /* floor(floor(x) / 2) == floor(x / 2): still exact */
        s++;
    }
    while (m < 1ull << 31) {
        s--;
        m = (dividend << -s) / khz;
    }
    *mul = (uint32_t)m;
    *shift = (int8_t)s;
}

void time_init(void)
{
    if (!time_tsc_khz)
        host_fatal("time: the TSC rate is unknown (time_tsc_khz is 0)");
    busy = 0;
    fire_deferred = false;
    __builtin_memset(&clock, 0, sizeof(clock));
    clock.khz = time_tsc_khz;
    time_scale(clock.khz, &clock.mul, &clock.shift);
    time_vcpu_init();
}

static uint64_t kvm_steal(void);
static void runstate_publish(void);

/* The runstate area a secondary vCPU's guest registered for it before
 * VCPUOP_up (Linux does, from the CPU that brings it up) stays where it is:
 * the record starts afresh there. */
void time_vcpu_init(void)
{
    uint64_t runstate_va = current->runstate.guest_va;

    env_timer_cancel();
    __builtin_memset(&current->timer, 0, sizeof(current->timer));
    __builtin_memset(&current->runstate, 0, sizeof(current->runstate));
    current->runstate.guest_va = runstate_va;
    current->runstate.info.state = RUNSTATE_running;
    current->runstate.info.state_entry_time = time_now_ns();
    current->runstate.steal_seen = kvm_steal();
    runstate_publish();
    time_update_guest();
}

/* The TSC is read inside the odd-version window, so a reader that saw an
 * even version before and after got a consistent record. */
void time_fill(volatile struct vcpu_time_info *t)
{
    uint64_t tsc;

    if (!clock.khz)
        return;
    enter();
    t->version = (t->version + 1) | 1;
    tsc = env_rdtsc();
    t->tsc_timestamp = tsc;
    t->system_time = tsc_to_guest_ns(tsc);
    t->tsc_to_system_mul = clock.mul;
    t->tsc_shift = clock.shift;
    t->flags = XEN_PVCLOCK_TSC_STABLE_BIT;
    t->version = t->version + 1;
    leave();
}

void time_update_guest(void)
{
    time_update_vcpu(current->id);
}

void time_update_vcpu(unsigned id)
{
    volatile struct vcpu_info *vi = evtchn_vcpu_info_of(id);

    if (vi)
        time_fill(&vi->time);
}

void time_set_wallclock(uint64_t unix_ns_at_boot)
{
    volatile struct shared_info *si = evtchn_shared_info();
    uint64_t sec = unix_ns_at_boot / NS_PER_SEC;

    if (!si)
        return;
    si->wc_version = (si->wc_version + 1) | 1;
    si->wc_sec = (uint32_t)sec;
    si->wc_nsec = (uint32_t)(unix_ns_at_boot % NS_PER_SEC);
    si->wc_sec_hi = (uint32_t)(sec >> 32);
    si->wc_version = si->wc_version + 1;
}

/* ---- Timers -------------------------------------------------------------- */

/* One device serves both deadlines: arm it for the earlier. */
static void program_device(void)
{
    uint64_t g = current->timer.guest_deadline, w = current->timer.wake_deadline;
    uint64_t next = !g ? w : !w ? g : g < w ? g : w;

    if (next)
        env_timer_arm(next, time_now_ns());
    else
        env_timer_cancel();
}

/* Refresh first: by the guest's clock its deadline has then passed. */
static void fire_guest_timer(void)
{
    time_update_guest();
    evtchn_raise_virq(VIRQ_TIMER);
}

void time_set_guest_timer(uint64_t deadline_ns)
{
    bool past = deadline_ns <= time_now_ns();

    enter();
    current->timer.guest_deadline = past ? 0 : deadline_ns;
    program_device();
    if (past)
        fire_guest_timer();
    leave();
}

void time_stop_guest_timer(void)
{
    enter();
    current->timer.guest_deadline = 0;
    program_device();
    leave();
}

bool time_guest_timer_armed(void)
{
    return current->timer.guest_deadline != 0;
}

void time_wake_at(uint64_t deadline_ns)
{
    enter();
    current->timer.wake_deadline = deadline_ns;
    program_device();
    leave();
}

void time_wake_cancel(void)
{
    enter();
    current->timer.wake_deadline = 0;
    program_device();
    leave();
}

/* The device may fire a little early (its own rounding): what has not
 * come yet is simply armed again. */
void time_timer_fired(void)
{
    uint64_t now;
    bool guest_due;

    if (busy) {
        fire_deferred = true;
        return;
    }
    enter();
    now = time_now_ns();
    guest_due = current->timer.guest_deadline && now >= current->timer.guest_deadline;
    if (current->timer.wake_deadline && now >= current->timer.wake_deadline)
        current->timer.wake_deadline = 0;
    if (guest_due)
        current->timer.guest_deadline = 0;
    program_device();
    if (guest_due)
        fire_guest_timer();
    leave();
    time_runstate_steal();
}

/* ---- Runstate ------------------------------------------------------------ */

/* The guest cannot run while the Host writes, so it never sees a half
 * written record: no XEN_RUNSTATE_UPDATE protocol is needed. A failing copy
 * is ignored, as in Xen: the guest unmapped its own area. */
static void runstate_publish(void)
{
    if (current->runstate.guest_va)
        (void)copy_to_guest(current->runstate.guest_va, &current->runstate.info, sizeof(current->runstate.info));
}

void time_runstate_get(const struct vcpu *v, struct vcpu_runstate_info *out)
{
    uint64_t now = time_now_ns();

    *out = v->runstate.info;
    if (now > out->state_entry_time)
        out->time[out->state] += now - out->state_entry_time;
}

/*
 * Steal. KVM writes into this vCPU's area (perch_shared.steal, registered
 * by the Launcher) how long its thread has waited for a host CPU, as it
 * does for its own guests: that is Xen's runnable time, which Linux reads
 * as steal. A version that is odd, or changes under the read, is KVM
 * writing: read again (a few times; then the last count stands).
 */
static uint64_t kvm_steal(void)
{
    volatile struct perch_steal_time *st = &perch_shared.steal[current->id];

    for (int tries = 0; tries < 16; tries++) {
        uint32_t version = st->version;
        uint64_t steal;

        compiler_barrier();
        steal = st->steal;
        compiler_barrier();
        if (!(version & 1) && version == st->version)
            return steal;
    }
    return current->runstate.steal_seen;
}

/* What was stolen since the last look moves from running to runnable: out
 * of the running interval in progress first (its start moves on, never
 * past now), the rest out of running time already counted. */
static bool account_steal(uint64_t now)
{
    struct vcpu_runstate_info *info = &current->runstate.info;
    uint64_t steal = kvm_steal(), delta, in_interval;

    if (steal <= current->runstate.steal_seen)
        return false;
    delta = steal - current->runstate.steal_seen;
    current->runstate.steal_seen = steal;
    info->time[RUNSTATE_runnable] += delta;
    if (info->state != RUNSTATE_running)
        return true;
    in_interval = now > info->state_entry_time ? now - info->state_entry_time : 0;
    if (delta <= in_interval) {
        info->state_entry_time += delta;
        return true;
    }
    info->state_entry_time = now;
    delta -= in_interval;
    info->time[RUNSTATE_running] -= delta < info->time[RUNSTATE_running]
                                        ? delta : info->time[RUNSTATE_running];
    return true;
}

void time_runstate_steal(void)
{
    if (account_steal(time_now_ns()))
        runstate_publish();
}

void time_runstate_enter(int state)
{
    uint64_t now = time_now_ns();
    struct vcpu_runstate_info *info = &current->runstate.info;

    account_steal(now);
    if (now > info->state_entry_time)
        info->time[info->state] += now - info->state_entry_time;
    info->state = state;
    info->state_entry_time = now;
    runstate_publish();
}

long time_runstate_register(struct vcpu *v, uint64_t va)
{
    if (va && copy_to_guest(va, &v->runstate.info, sizeof(v->runstate.info)))
        return -XEN_EFAULT;
    v->runstate.guest_va = va;
    return 0;
}
