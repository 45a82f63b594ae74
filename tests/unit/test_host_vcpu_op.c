/*
 * Unit tests of vcpu_op and set_timer_op (host/xen/vcpu_op.c), and of
 * SCHEDOP_block and SCHEDOP_poll (host/xen/sched.c): the single-shot timer,
 * sleeping until an event or a timeout, and the runstate record.
 *
 * The fake TSC runs at 1 GHz, so ticks are nanoseconds; the fake env_idle()
 * does what an interrupt would: fire the timer, or raise a port.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#include "../../host/events/evtchn.h"
#include "../../host/events/time.h"

#define FRAMES      64
#define SHINFO_MFN  3
#define GUEST_BASE  16
#define GUEST_PAGES 16
#define VA          0xffffffff80400000ull   /* 4 pages: GUEST_BASE.. */
#define VA_PAGES    4
#define MS          1000000ull
#define T0          1000ull                  /* the TSC at time_init() */

/* ---- Fakes of the environment --------------------------------------------- */

static uint64_t fake_tsc;
static bool armed;
static uint64_t armed_deadline;

enum idle_action {
    IDLE_FIRE_TIMER,   /* jump to the armed deadline, fire (if armed) */
    IDLE_RAISE_PORT,   /* 0.5 us pass, then idle_port is raised */
    IDLE_TICK,         /* 1 us passes, nothing happens */
};
static enum idle_action idle_action;
static unsigned idle_port;
static unsigned idle_spurious;   /* first wake-ups that do nothing */
static unsigned nr_idles;

uint64_t env_rdtsc(void)
{
    return fake_tsc;
}

void env_timer_arm(uint64_t deadline_ns, uint64_t now_ns)
{
    (void)now_ns;
    armed = true;
    armed_deadline = deadline_ns;
}

void env_timer_cancel(void)
{
    armed = false;
}

void env_idle(void)
{
    if (++nr_idles > 1000) {
        fprintf(stderr, "env_idle: the Host waits for ever\n");
        abort();
    }
    if (nr_idles <= idle_spurious || idle_action == IDLE_TICK) {
        fake_tsc += 1000;
        return;
    }
    if (idle_action == IDLE_RAISE_PORT) {
        fake_tsc += 500;
        evtchn_raise(idle_port);
        return;
    }
    if (!armed) {
        fake_tsc += 1000;
        return;
    }
    if (fake_tsc < armed_deadline)
        fake_tsc = armed_deadline;
    time_timer_fired();
}

/* ---- Helpers ------------------------------------------------------------------ */

static volatile struct shared_info *si;
static volatile struct vcpu_info *vi0;

static void *guest(uint64_t va)
{
    return (uint8_t *)host_env_frame(GUEST_BASE + (va - VA) / 4096) + (va & 0xfff);
}

static void put(uint64_t va, const void *src, size_t len)
{
    memcpy(guest(va), src, len);
}

static long bind_virq_timer(void)
{
    struct evtchn_bind_virq b = { .virq = VIRQ_TIMER };
    long rc;

    put(VA + 0x800, &b, sizeof(b));
    rc = do_event_channel_op(EVTCHNOP_bind_virq, VA + 0x800, 0, 0, 0);
    memcpy(&b, guest(VA + 0x800), sizeof(b));
    return rc ? rc : (long)b.port;
}

static long bind_ipi(void)
{
    struct evtchn_bind_ipi b = { .vcpu = 0 };
    long rc;

    put(VA + 0x800, &b, sizeof(b));
    rc = do_event_channel_op(EVTCHNOP_bind_ipi, VA + 0x800, 0, 0, 0);
    memcpy(&b, guest(VA + 0x800), sizeof(b));
    return rc ? rc : (long)b.port;
}

static long timer_port;

/* Guest memory, shared_info, 1 GHz time from T0, VIRQ_TIMER bound, events
 * masked as Linux leaves them in its idle loop before blocking. */
static void setup(void)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = GUEST_PAGES;
    host_env_map_range(VA, GUEST_BASE, VA_PAGES, HOST_ENV_RW);
    evtchn_shared_info_mfn = SHINFO_MFN;
    evtchn_init();
    si = host_env_frame(SHINFO_MFN);
    vi0 = &si->vcpu_info[0];
    fake_tsc = T0;
    time_tsc_khz = 1000000;
    time_init();
    armed = false;
    idle_action = IDLE_FIRE_TIMER;
    idle_spurious = 0;
    nr_idles = 0;
    timer_port = bind_virq_timer();
    vi0->evtchn_upcall_mask = 1;
}

static bool pending(long port)
{
    return evtchn_port_pending(port);
}

static long singleshot(uint64_t deadline, uint32_t flags)
{
    struct vcpu_set_singleshot_timer t = { .timeout_abs_ns = deadline, .flags = flags };

    put(VA, &t, sizeof(t));
    return do_vcpu_op(VCPUOP_set_singleshot_timer, 0, VA, 0, 0);
}

/* ---- vcpu_op: the vCPUs ----------------------------------------------------- */

static void only_vcpu0_exists(void)
{
    static const uint64_t others[] = { 1, 2, 31, 8191, 1ull << 32, ~0ull };
    static const uint64_t cmds[] = {
        VCPUOP_initialise, VCPUOP_up, VCPUOP_down, VCPUOP_is_up,
        VCPUOP_set_singleshot_timer, VCPUOP_register_vcpu_info, 1000,
    };

    setup();
    CHECK(do_vcpu_op(VCPUOP_is_up, 0, 0, 0, 0) == 1);
    for (size_t v = 0; v < sizeof(others) / sizeof(others[0]); v++)
        for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
            CHECK(do_vcpu_op(cmds[c], others[v], VA, 0, 0) == -XEN_ENOENT);
    CHECK(host_env_nr_requests == 0);
}

static void vcpu0_is_initialised_and_up(void)
{
    setup();
    CHECK(do_vcpu_op(VCPUOP_up, 0, 0, 0, 0) == 0);
    CHECK(do_vcpu_op(VCPUOP_initialise, 0, VA, 0, 0) == -XEN_EEXIST);
}

/* The last vCPU going down: Xen powers the domain off. */
static void down_vcpu0_powers_off(void)
{
    int stopped;

    setup();
    stopped = HOST_ENV_EXPECT_STOP(do_vcpu_op(VCPUOP_down, 0, 0, 0, 0));
    CHECK(stopped);
    CHECK(host_env_last_request()->reason == PERCH_REQ_SHUTDOWN);
    CHECK(host_env_last_request()->arg0 == SHUTDOWN_poweroff);
}

static void unknown_vcpu_ops_enosys(void)
{
    static const uint64_t cmds[] = {
        VCPUOP_set_periodic_timer, VCPUOP_send_nmi, VCPUOP_get_physid,
        VCPUOP_register_vcpu_time_memory_area, 14, 15, 16, 1000, ~0ull,
        (1ull << 32) | VCPUOP_is_up,
    };

    setup();
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        CHECK(do_vcpu_op(cmds[i], 0, VA, 0, 0) == -XEN_ENOSYS);
    CHECK(do_vcpu_op(VCPUOP_stop_periodic_timer, 0, 0, 0, 0) == 0);
}

/* ---- The single-shot timer ------------------------------------------------- */

static void singleshot_arms_absolute_deadline(void)
{
    setup();
    CHECK(singleshot(T0 + 3 * MS, 0) == 0);
    CHECK(armed && armed_deadline == T0 + 3 * MS);
    CHECK(!pending(timer_port));
    fake_tsc = T0 + 3 * MS;
    time_timer_fired();
    CHECK(pending(timer_port));
    CHECK(vi0->evtchn_upcall_pending == 1);
    CHECK(!armed);
}

static void singleshot_past_deadline_fires_at_once(void)
{
    setup();
    fake_tsc = 50 * MS;
    CHECK(singleshot(10 * MS, 0) == 0);
    CHECK(pending(timer_port));
    CHECK(vi0->evtchn_upcall_pending == 1);
    CHECK(!armed && !time_guest_timer_armed());
    CHECK(vi0->time.system_time == 50 * MS);   /* refreshed on the way */
    setup();
    CHECK(singleshot(0, 0) == 0);
    CHECK(pending(timer_port));
}

/* VCPU_SSHOTTMR_future: a past deadline is an error, not an event. */
static void singleshot_future_flag(void)
{
    setup();
    CHECK(singleshot(T0 + 5 * MS, VCPU_SSHOTTMR_future) == 0);
    CHECK(armed && armed_deadline == T0 + 5 * MS);
    fake_tsc = T0 + 7 * MS;
    CHECK(singleshot(T0 + 6 * MS, VCPU_SSHOTTMR_future) == -XEN_ETIME);
    CHECK(!pending(timer_port));
    CHECK(armed && armed_deadline == T0 + 5 * MS);   /* left as it was */
    CHECK(singleshot(T0 + 7 * MS, VCPU_SSHOTTMR_future) == 0);   /* now: fires */
    CHECK(pending(timer_port));
}

static void singleshot_stop_and_bad_pointer(void)
{
    setup();
    CHECK(singleshot(T0 + 5 * MS, 0) == 0);
    CHECK(do_vcpu_op(VCPUOP_stop_singleshot_timer, 0, 0, 0, 0) == 0);
    CHECK(!armed && !time_guest_timer_armed());
    CHECK(do_vcpu_op(VCPUOP_set_singleshot_timer, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_set_singleshot_timer, 0, VA + VA_PAGES * 4096 - 8, 0, 0) ==
          -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_set_singleshot_timer, 0, HOST_IMAGE_VA, 0, 0) == -XEN_EFAULT);
    CHECK(!armed && !pending(timer_port));
}

static void set_timer_op_arms_cancels_and_fires(void)
{
    setup();
    CHECK(do_set_timer_op(T0 + 2 * MS, 0, 0, 0, 0) == 0);
    CHECK(armed && armed_deadline == T0 + 2 * MS);
    CHECK(do_set_timer_op(0, 0, 0, 0, 0) == 0);
    CHECK(!armed && !time_guest_timer_armed());
    fake_tsc = 9 * MS;
    CHECK(do_set_timer_op(8 * MS, 0, 0, 0, 0) == 0);
    CHECK(pending(timer_port) && !armed);
}

/* Xen's guard against a wrapped deadline: 100 ms from now instead. */
static void set_timer_op_huge_deadline_in_100ms(void)
{
    const uint64_t now = 5 * MS;

    setup();
    fake_tsc = now;
    CHECK(do_set_timer_op(1ull << 63, 0, 0, 0, 0) == 0);
    CHECK(armed && armed_deadline == now + 100 * MS);
    CHECK(do_set_timer_op(~0ull, 0, 0, 0, 0) == 0);
    CHECK(armed_deadline == now + 100 * MS);
    CHECK(do_set_timer_op(now + (1ull << 50) + 1, 0, 0, 0, 0) == 0);
    CHECK(armed_deadline == now + 100 * MS);
    CHECK(do_set_timer_op(now + (1ull << 50) - 1, 0, 0, 0, 0) == 0);
    CHECK(armed_deadline == now + (1ull << 50) - 1);
    CHECK(!pending(timer_port));
}

/* ---- SCHEDOP_block ----------------------------------------------------------- */

static void block_with_event_pending_returns_at_once(void)
{
    setup();
    vi0->evtchn_upcall_pending = 1;
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(vi0->evtchn_upcall_mask == 0);   /* events enabled */
    CHECK(nr_idles == 0);
    CHECK(evtchn_upcall_due());
}

static void block_sleeps_until_the_timer(void)
{
    setup();
    CHECK(singleshot(T0 + 5 * MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(nr_idles == 1);
    CHECK(fake_tsc >= T0 + 5 * MS);
    CHECK(pending(timer_port));
    CHECK(vi0->evtchn_upcall_mask == 0 && vi0->evtchn_upcall_pending == 1);
    CHECK(evtchn_upcall_due());
}

static void block_rides_out_spurious_wakeups(void)
{
    setup();
    idle_spurious = 3;
    CHECK(singleshot(T0 + 5 * MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(nr_idles == 4);
    CHECK(evtchn_upcall_due());
}

static void block_woken_by_backend(void)
{
    setup();
    CHECK(evtchn_bind_backend(7, PERCH_LINE_CONSOLE) == 0);
    idle_action = IDLE_RAISE_PORT;
    idle_port = 7;
    idle_spurious = 1;
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(nr_idles == 2);
    CHECK(pending(7) && evtchn_upcall_due());
}

/* Nothing could ever wake it: return (a spurious wake-up) rather than halt
 * for good. */
static void block_with_nothing_to_wait_for_returns(void)
{
    setup();
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(nr_idles == 0);
    /* The timer port masked: the timer fires, nothing more can come. */
    setup();
    si->evtchn_mask[0] |= 1ull << timer_port;
    CHECK(singleshot(T0 + 1 * MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(nr_idles == 1);
    CHECK(pending(timer_port) && !evtchn_upcall_due());
}

/* Before shared_info is known there is nothing to block on. */
static void block_without_shared_info_returns(void)
{
    setup();
    CHECK(singleshot(T0 + 1 * MS, 0) == 0);
    evtchn_shared_info_mfn = INVALID_MFN;
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(nr_idles == 0);
    evtchn_shared_info_mfn = SHINFO_MFN;
}

/* ---- SCHEDOP_poll --------------------------------------------------------------- */

#define PORTS_VA (VA + 0x1000)
#define POLL_VA  (VA + 0x100)

static long poll(const uint32_t *ports, uint32_t n, uint64_t timeout)
{
    struct sched_poll p = { .ports = PORTS_VA, .nr_ports = n, .timeout = timeout };

    put(PORTS_VA, ports, n * sizeof(*ports));
    put(POLL_VA, &p, sizeof(p));
    return do_sched_op(SCHEDOP_poll, POLL_VA, 0, 0, 0);
}

static void poll_returns_at_once_for_pending_port(void)
{
    uint32_t ports[3];

    setup();
    ports[0] = bind_ipi();
    ports[1] = bind_ipi();
    ports[2] = 4095;
    si->evtchn_mask[0] |= 1ull << ports[1];   /* masked ports count too */
    evtchn_raise(ports[1]);
    CHECK(poll(ports, 3, 0) == 0);
    CHECK(nr_idles == 0);
    CHECK(vi0->evtchn_upcall_mask == 1);       /* poll leaves events masked */
}

static void poll_times_out(void)
{
    uint32_t port;

    setup();
    port = bind_ipi();
    CHECK(poll(&port, 1, T0 + 2 * MS) == 0);
    CHECK(nr_idles == 1);
    CHECK(fake_tsc >= T0 + 2 * MS);
    CHECK(!armed);                 /* the wake-up is gone */
    CHECK(!pending(timer_port));   /* and raised nothing */
}

static void poll_woken_by_polled_port(void)
{
    uint32_t port;

    setup();
    port = bind_ipi();
    si->evtchn_mask[0] |= 1ull << port;
    idle_action = IDLE_RAISE_PORT;
    idle_port = port;
    idle_spurious = 2;
    CHECK(poll(&port, 1, T0 + 50 * MS) == 0);
    CHECK(nr_idles == 3);
    CHECK(pending(port));
    CHECK(!armed);
}

/* Any new event ends a poll, as a Xen vCPU kick does. */
static void poll_woken_by_other_event(void)
{
    uint32_t port, other;

    setup();
    port = bind_ipi();
    other = bind_ipi();
    idle_action = IDLE_RAISE_PORT;
    idle_port = other;
    CHECK(poll(&port, 1, 0) == 0);   /* no timer, no back end: at once */
    CHECK(nr_idles == 0);
    CHECK(evtchn_bind_backend(9, PERCH_LINE_CONSOLE) == 0);    /* now something could come */
    CHECK(poll(&port, 1, 0) == 0);
    CHECK(nr_idles == 1 && pending(other) && !pending(port));
}

static void poll_ends_at_once_when_due_or_past(void)
{
    uint32_t port;

    setup();
    port = bind_ipi();
    fake_tsc = 10 * MS;
    CHECK(poll(&port, 1, 5 * MS) == 0);   /* timeout already past */
    CHECK(poll(&port, 0, 0) == 0);        /* nothing could wake it */
    vi0->evtchn_upcall_pending = 1;
    vi0->evtchn_upcall_mask = 0;
    CHECK(poll(&port, 1, 20 * MS) == 0);  /* an upcall is due */
    CHECK(nr_idles == 0);
}

/* The poll's wake-up and the guest's timer share the device. */
static void poll_keeps_the_guest_timer(void)
{
    uint32_t port;

    setup();
    port = bind_ipi();
    CHECK(singleshot(T0 + 10 * MS, 0) == 0);
    CHECK(poll(&port, 1, T0 + 3 * MS) == 0);
    CHECK(armed && armed_deadline == T0 + 10 * MS);
    CHECK(!pending(timer_port));
}

static void poll_errors(void)
{
    uint32_t ports[SCHED_POLL_MAX_PORTS + 1] = { 0 };
    struct sched_poll p = { .ports = VA + VA_PAGES * 4096 - 4, .nr_ports = 2 };

    setup();
    CHECK(poll(ports, SCHED_POLL_MAX_PORTS + 1, 0) == -XEN_EINVAL);
    ports[1] = 4096;
    CHECK(poll(ports, 2, 0) == -XEN_EINVAL);
    ports[1] = ~0u;
    CHECK(poll(ports, 2, 0) == -XEN_EINVAL);
    CHECK(do_sched_op(SCHEDOP_poll, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_sched_op(SCHEDOP_poll, VA + VA_PAGES * 4096 - 8, 0, 0, 0) == -XEN_EFAULT);
    put(POLL_VA, &p, sizeof(p));   /* the port list runs off the mapping */
    CHECK(do_sched_op(SCHEDOP_poll, POLL_VA, 0, 0, 0) == -XEN_EFAULT);
    p.ports = 0;
    put(POLL_VA, &p, sizeof(p));
    CHECK(do_sched_op(SCHEDOP_poll, POLL_VA, 0, 0, 0) == -XEN_EFAULT);
    p.nr_ports = 0;                /* no ports: the list is not read */
    put(POLL_VA, &p, sizeof(p));
    CHECK(do_sched_op(SCHEDOP_poll, POLL_VA, 0, 0, 0) == 0);
    CHECK(nr_idles == 0);
}

/* ---- Runstate ------------------------------------------------------------------ */

#define RS_VA (VA + 0x2000)

static struct vcpu_runstate_info runstate_in_guest(void)
{
    struct vcpu_runstate_info r;

    memcpy(&r, guest(RS_VA), sizeof(r));
    return r;
}

static long register_runstate(uint64_t va)
{
    put(VA, &va, sizeof(va));
    return do_vcpu_op(VCPUOP_register_runstate_memory_area, 0, VA, 0, 0);
}

static void runstate_follows_block_and_wake(void)
{
    struct vcpu_runstate_info r;

    setup();
    memset(guest(RS_VA), 0xee, sizeof(r));
    CHECK(register_runstate(RS_VA) == 0);
    r = runstate_in_guest();
    CHECK(r.state == RUNSTATE_running && r.state_entry_time == T0);
    CHECK(r.time[0] == 0 && r.time[1] == 0 && r.time[2] == 0 && r.time[3] == 0);
    fake_tsc = 2 * MS;
    CHECK(singleshot(7 * MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    r = runstate_in_guest();
    CHECK(r.state == RUNSTATE_running);
    CHECK(r.state_entry_time == 7 * MS);
    CHECK(r.time[RUNSTATE_running] == 2 * MS - T0);
    CHECK(r.time[RUNSTATE_blocked] == 5 * MS);
    CHECK(r.time[RUNSTATE_runnable] == 0 && r.time[RUNSTATE_offline] == 0);
    /* A poll is a block too (the guest has taken its upcall). */
    vi0->evtchn_upcall_pending = 0;
    vi0->evtchn_upcall_mask = 1;
    {
        uint32_t port = bind_ipi();

        CHECK(poll(&port, 1, 10 * MS) == 0);
    }
    r = runstate_in_guest();
    CHECK(r.time[RUNSTATE_blocked] == 8 * MS);
    CHECK(r.state_entry_time == 10 * MS);
}

/* KVM's steal (perch_shared.steal) becomes runnable time, taken out of the
 * running interval in progress; a count KVM is still writing (odd
 * version) is not read; the record goes out when it changed. */
static void steal_becomes_runnable_time(void)
{
    struct vcpu_runstate_info r;

    setup();
    CHECK(register_runstate(RS_VA) == 0);
    fake_tsc = 5 * MS;
    perch_shared.steal[0].version = 2;
    perch_shared.steal[0].steal = 3 * MS;
    time_runstate_steal();
    r = runstate_in_guest();
    CHECK(r.time[RUNSTATE_runnable] == 3 * MS);
    CHECK(r.state == RUNSTATE_running && r.state_entry_time == T0 + 3 * MS);
    perch_shared.steal[0].version = 3;   /* KVM at work */
    perch_shared.steal[0].steal = 4 * MS;
    time_runstate_steal();
    CHECK(runstate_in_guest().time[RUNSTATE_runnable] == 3 * MS);
    perch_shared.steal[0].version = 4;
    fake_tsc = 6 * MS;
    CHECK(singleshot(7 * MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    r = runstate_in_guest();
    CHECK(r.time[RUNSTATE_runnable] == 4 * MS);
    /* 6 ms of wall time running, 4 of them stolen. */
    CHECK(r.time[RUNSTATE_running] == 6 * MS - T0 - 4 * MS);
    /* More stolen than the interval holds comes out of running time. */
    fake_tsc = 7 * MS + 100;
    perch_shared.steal[0].steal = 4 * MS + 1000;
    time_runstate_steal();
    r = runstate_in_guest();
    CHECK(r.time[RUNSTATE_runnable] == 4 * MS + 1000);
    CHECK(r.time[RUNSTATE_running] == 6 * MS - T0 - 4 * MS - 900);
    CHECK(r.state_entry_time == 7 * MS + 100);
}

/* A secondary vCPU's runstate area, registered before VCPUOP_up (Linux
 * does it from the CPU that brings it up), survives the vCPU's start. */
static void runstate_area_survives_the_start(void)
{
    setup();
    CHECK(register_runstate(RS_VA) == 0);
    memset(guest(RS_VA), 0xee, sizeof(struct vcpu_runstate_info));
    fake_tsc = 3 * MS;
    time_vcpu_init();
    CHECK(current->runstate.guest_va == RS_VA);
    CHECK(runstate_in_guest().state == RUNSTATE_running);
    CHECK(runstate_in_guest().state_entry_time == 3 * MS);
}

static void runstate_get_counts_up_to_now(void)
{
    struct vcpu_runstate_info r;

    setup();
    fake_tsc = 4 * MS;
    CHECK(do_vcpu_op(VCPUOP_get_runstate_info, 0, RS_VA, 0, 0) == 0);
    r = runstate_in_guest();
    CHECK(r.state == RUNSTATE_running && r.time[RUNSTATE_running] == 4 * MS - T0);
    CHECK(do_vcpu_op(VCPUOP_get_runstate_info, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_get_runstate_info, 0, VA + VA_PAGES * 4096 - 8, 0, 0) ==
          -XEN_EFAULT);
}

static void runstate_bad_area_and_unregister(void)
{
    uint8_t before[48];

    setup();
    CHECK(register_runstate(VA + VA_PAGES * 4096 - 16) == -XEN_EFAULT);
    CHECK(register_runstate(HOST_IMAGE_VA) == -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_register_runstate_memory_area, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(register_runstate(RS_VA) == 0);
    CHECK(register_runstate(0) == 0);   /* no area any more */
    memcpy(before, guest(RS_VA), sizeof(before));
    CHECK(singleshot(T0 + MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(memcmp(before, guest(RS_VA), sizeof(before)) == 0);
}

/* The area unmapped after registration: updates are dropped, as in Xen. */
static void runstate_area_unmapped_later(void)
{
    setup();
    CHECK(register_runstate(RS_VA) == 0);
    *host_env_pte(RS_VA, 0) = 0;
    CHECK(singleshot(T0 + MS, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_block, 0, 0, 0, 0) == 0);
    CHECK(evtchn_upcall_due());
}

int main(void)
{
    RUN(only_vcpu0_exists);
    RUN(vcpu0_is_initialised_and_up);
    RUN(down_vcpu0_powers_off);
    RUN(unknown_vcpu_ops_enosys);
    RUN(singleshot_arms_absolute_deadline);
    RUN(singleshot_past_deadline_fires_at_once);
    RUN(singleshot_future_flag);
    RUN(singleshot_stop_and_bad_pointer);
    RUN(set_timer_op_arms_cancels_and_fires);
    RUN(set_timer_op_huge_deadline_in_100ms);
    RUN(block_with_event_pending_returns_at_once);
    RUN(block_sleeps_until_the_timer);
    RUN(block_rides_out_spurious_wakeups);
    RUN(block_woken_by_backend);
    RUN(block_with_nothing_to_wait_for_returns);
    RUN(block_without_shared_info_returns);
    RUN(poll_returns_at_once_for_pending_port);
    RUN(poll_times_out);
    RUN(poll_woken_by_polled_port);
    RUN(poll_woken_by_other_event);
    RUN(poll_ends_at_once_when_due_or_past);
    RUN(poll_keeps_the_guest_timer);
    RUN(poll_errors);
    RUN(runstate_follows_block_and_wake);
    RUN(runstate_get_counts_up_to_now);
    RUN(steal_becomes_runnable_time);
    RUN(runstate_area_survives_the_start);
    RUN(runstate_bad_area_and_unregister);
    RUN(runstate_area_unmapped_later);
    return check_exit_status();
}
