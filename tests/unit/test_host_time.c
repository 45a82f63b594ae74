/*
 * Unit tests of time (host/events/time.c): the pvclock scale for several TSC rates
 * against exact arithmetic, the version protocol, the wallclock, and the
 * timer device shared by the guest's single-shot timer and the Host's
 * wake-ups.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#include "../../host/events/evtchn.h"
#include "../../host/events/time.h"

#define FRAMES     32
#define SHINFO_MFN 3
#define NS_PER_MS  1000000ull

/* ---- Fakes of the environment --------------------------------------------- */

static uint64_t fake_tsc;
/* The version env_rdtsc() saw in this record, if set: time_fill() reads the
 * TSC inside its update window. */
static volatile struct vcpu_time_info *watched;
static uint32_t seen_version;
/* Set: the next env_rdtsc() is interrupted by the timer. */
static bool interrupt_in_rdtsc;

static bool armed;
static uint64_t armed_deadline;
static unsigned nr_arms, nr_cancels;

uint64_t env_rdtsc(void)
{
    if (watched)
        seen_version = watched->version;
    if (interrupt_in_rdtsc) {
        interrupt_in_rdtsc = false;
        time_timer_fired();
    }
    return fake_tsc;
}

void env_timer_arm(uint64_t deadline_ns, uint64_t now_ns)
{
    (void)now_ns;
    armed = true;
    armed_deadline = deadline_ns;
    nr_arms++;
}

void env_timer_cancel(void)
{
    armed = false;
    nr_cancels++;
}

/* ---- Helpers ------------------------------------------------------------------ */

static volatile struct shared_info *si;
static volatile struct vcpu_info *vi0;

static void setup_rate(uint32_t khz, uint64_t tsc)
{
    host_env_reset(FRAMES);
    evtchn_shared_info_mfn = SHINFO_MFN;
    evtchn_init();
    si = host_env_frame(SHINFO_MFN);
    vi0 = &si->vcpu_info[0];
    watched = NULL;
    interrupt_in_rdtsc = false;
    fake_tsc = tsc;
    time_tsc_khz = khz;
    time_init();
    armed = false;
    nr_arms = nr_cancels = 0;
}

/* 1 GHz: TSC ticks are nanoseconds. */
static void setup(void)
{
    setup_rate(1000000, 1000);
}

static uint64_t exact_ns(uint64_t tsc, uint32_t khz)
{
    return (uint64_t)((unsigned __int128)tsc * 1000000 / khz);
}

/* What a guest computes from a pvclock record (Linux's pvclock_read). */
static uint64_t pvclock_read(const volatile struct vcpu_time_info *t, uint64_t tsc)
{
    uint64_t d = tsc - t->tsc_timestamp;

    if (t->tsc_shift < 0)
        d >>= -t->tsc_shift;
    else
        d <<= t->tsc_shift;
    return t->system_time + (uint64_t)(((unsigned __int128)d * t->tsc_to_system_mul) >> 32);
}

/* Linux's TSC rate from the record (pvclock_tsc_khz). */
static uint64_t linux_tsc_khz(uint32_t mul, int8_t shift)
{
    uint64_t khz = (1000000ull << 32) / mul;

    return shift < 0 ? khz << -shift : khz >> shift;
}

static const uint32_t rates[] = {
    1, 3, 7, 32768, 999997, 100000, 999999, 1000000, 1000001, 1999999, 2000000, 2400000,
    2899999, 3000000, 3192617, 3700123, 4000000, 5000000, 10000000,
    123456789, 4294967295u,
};
#define NR_RATES (sizeof(rates) / sizeof(rates[0]))

/* ---- The pvclock scale ------------------------------------------------------ */

static void scale_has_32_significant_bits(void)
{
    for (size_t i = 0; i < NR_RATES; i++) {
        uint32_t mul;
        int8_t shift;

        time_scale(rates[i], &mul, &shift);
        CHECK(mul != 0);
        CHECK(mul >= 1u << 31);
        CHECK(shift >= -12 && shift <= 20);
    }
}

/* ns per tick, mul * 2^shift / 2^32, never above 10^6 / khz and less than
 * one unit of mul below it. */
static void scale_rounds_down_by_less_than_one_unit(void)
{
    for (size_t i = 0; i < NR_RATES; i++) {
        uint32_t mul;
        int8_t shift;
        unsigned __int128 scaled, unit, exact_num;

        time_scale(rates[i], &mul, &shift);
        /* Compare mul * 2^shift * khz with 10^6 * 2^32, both times
         * 2^-shift when shift < 0; `unit` is what one more unit of mul
         * would add. */
        scaled = (unsigned __int128)mul * rates[i];
        unit = rates[i];
        exact_num = (unsigned __int128)1000000 << 32;
        if (shift >= 0) {
            scaled <<= shift;
            unit <<= shift;
        } else {
            exact_num <<= -shift;
        }
        CHECK(scaled <= exact_num);
        CHECK(scaled + unit > exact_num);
    }
}

static void linux_reads_back_the_rate(void)
{
    for (size_t i = 0; i < NR_RATES; i++) {
        uint32_t mul;
        int8_t shift;
        uint64_t khz, slack;

        time_scale(rates[i], &mul, &shift);
        khz = linux_tsc_khz(mul, shift);
        slack = 2 + (shift < 0 ? 1ull << -shift : 0);
        CHECK(khz + slack >= rates[i] && khz <= rates[i] + slack);
    }
}

/* The Host's clock is exact (rounded down) over 10^12 ticks and beyond. */
static void now_is_exact_for_every_rate(void)
{
    static const uint64_t tscs[] = {
        0, 1, 2, 999, 1000, 123456789, 1000000000000ull, 1000000000007ull,
        (1ull << 40) + 12345, 1ull << 50, (1ull << 62) + 3,
    };

    for (size_t i = 0; i < NR_RATES; i++) {
        if (rates[i] < 1000000)
            continue;   /* slower TSCs overflow 64-bit ns within the list */
        setup_rate(rates[i], 0);
        for (size_t j = 0; j < sizeof(tscs) / sizeof(tscs[0]); j++) {
            fake_tsc = tscs[j];
            CHECK(time_now_ns() == exact_ns(tscs[j], rates[i]));
        }
    }
}

/* A guest reading right after a refresh is within 1 ns of exact for up to
 * 10^9 ticks, never ahead of the Host; over 10^12 ticks the 32-bit
 * multiplier has drifted (at most 2^-31), and the next refresh puts it
 * back exactly. */
static void guest_pvclock_tracks_exact_time(void)
{
    static const uint64_t deltas[] = { 0, 1, 2, 3, 1000, 999999, 1000000000ull };
    const uint64_t t0 = 5000000000ull, far = 1000000000000ull;

    for (size_t i = 0; i < NR_RATES; i++) {
        uint32_t khz = rates[i];
        uint64_t g, e;

        if (khz < 1000000)
            continue;   /* below 1 GHz a tick is longer than 1 ns */
        setup_rate(khz, t0);
        for (size_t j = 0; j < sizeof(deltas) / sizeof(deltas[0]); j++) {
            g = pvclock_read(&vi0->time, t0 + deltas[j]);
            e = exact_ns(t0 + deltas[j], khz);
            CHECK(g <= e && e - g <= 1);
        }
        g = pvclock_read(&vi0->time, t0 + far);
        e = exact_ns(t0 + far, khz);
        CHECK(g <= e && e - g <= ((e - exact_ns(t0, khz)) >> 31) + 2);
        fake_tsc = t0 + far;
        time_update_guest();
        CHECK(pvclock_read(&vi0->time, t0 + far) == e);
        CHECK(pvclock_read(&vi0->time, t0 + far) >= g);   /* never backwards */
    }
}

/* At 1, 2 and 4 GHz the scale is exact: no drift at all. */
static void power_of_two_ratios_are_exact(void)
{
    static const uint32_t exact_rates[] = { 1000000, 2000000, 4000000, 500000 };

    for (size_t i = 0; i < 4; i++) {
        uint64_t t = 1000000000000ull * 3 + 17;

        setup_rate(exact_rates[i], 0);
        CHECK(pvclock_read(&vi0->time, t) == exact_ns(t, exact_rates[i]));
    }
}

/* ---- The record and the wallclock ----------------------------------------- */

static void fill_follows_version_protocol(void)
{
    volatile struct vcpu_time_info t;
    uint32_t mul;
    int8_t shift;

    setup_rate(2400000, 0);
    memset((void *)&t, 0, sizeof(t));
    t.version = 4;
    watched = &t;
    fake_tsc = 24000000000ull;   /* 10 s */
    time_fill(&t);
    CHECK(seen_version == 5);    /* odd while it changed */
    CHECK(t.version == 6);
    CHECK(t.tsc_timestamp == 24000000000ull);
    CHECK(t.system_time == 10000000000ull);
    time_scale(2400000, &mul, &shift);
    CHECK(t.tsc_to_system_mul == mul && t.tsc_shift == shift);
    CHECK(t.flags == XEN_PVCLOCK_TSC_STABLE_BIT);
    t.version = 7;               /* whatever the guest left there */
    time_fill(&t);
    CHECK(seen_version % 2 == 1);
    CHECK(t.version % 2 == 0 && t.version > 7);
}

static void init_fills_vcpu_info_time(void)
{
    setup_rate(3000000, 3000000000ull);
    CHECK(vi0->time.version != 0 && vi0->time.version % 2 == 0);
    CHECK(vi0->time.tsc_to_system_mul != 0);
    CHECK(vi0->time.system_time == 1000000000ull);
    CHECK(vi0->time.flags & XEN_PVCLOCK_TSC_STABLE_BIT);
}

static void init_without_rate_stops(void)
{
    int stopped;

    host_env_reset(FRAMES);
    time_tsc_khz = 0;
    stopped = HOST_ENV_EXPECT_STOP(time_init());
    CHECK(stopped);
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    CHECK_CONTAINS(host_env_last_request()->message, "TSC");
}

static void wallclock_written_with_version(void)
{
    const uint64_t big = ((1ull << 32) + 5) * 1000000000ull + 7;

    setup();
    si->wc_version = 2;
    time_set_wallclock(1700000000123456789ull);
    CHECK(si->wc_version == 4);
    CHECK(si->wc_sec == 1700000000u);
    CHECK(si->wc_nsec == 123456789u);
    CHECK(si->wc_sec_hi == 0);
    time_set_wallclock(big);
    CHECK(si->wc_version == 6);
    CHECK(si->wc_sec == 5 && si->wc_sec_hi == 1 && si->wc_nsec == 7);
    si->wc_version = 9;
    time_set_wallclock(0);
    CHECK(si->wc_version % 2 == 0);
    CHECK(si->wc_sec == 0 && si->wc_nsec == 0);
}

/* ---- The timer device ------------------------------------------------------- */

static long bind_timer(void)
{
    return evtchn_state.virq_port[0][VIRQ_TIMER];
}

/* Bind VIRQ_TIMER the way the guest does, through the hypercall's work. */
static void setup_with_timer_port(void)
{
    struct evtchn_bind_virq b = { .virq = VIRQ_TIMER };
    const uint64_t va = 0xffffffff80400000ull;

    setup();
    host_env_map(va, 8, HOST_ENV_RW);
    memcpy(host_env_frame(8), &b, sizeof(b));
    do_event_channel_op(EVTCHNOP_bind_virq, va, 0, 0, 0);
}

static bool timer_pending(void)
{
    return evtchn_port_pending(bind_timer());
}

static void guest_timer_fires_at_its_deadline(void)
{
    setup_with_timer_port();
    CHECK(bind_timer() == 1);
    time_set_guest_timer(5 * NS_PER_MS);
    CHECK(armed && armed_deadline == 5 * NS_PER_MS);
    CHECK(time_guest_timer_armed());
    /* Early (the device rounds): armed again, nothing raised. */
    fake_tsc = 5 * NS_PER_MS - 1;
    time_timer_fired();
    CHECK(!timer_pending());
    CHECK(armed && armed_deadline == 5 * NS_PER_MS);
    fake_tsc = 5 * NS_PER_MS + 20;
    time_timer_fired();
    CHECK(timer_pending());
    CHECK(vi0->evtchn_upcall_pending == 1);
    CHECK(!armed && !time_guest_timer_armed());
    /* The guest's clock says the deadline has come. */
    CHECK(pvclock_read(&vi0->time, fake_tsc) >= 5 * NS_PER_MS);
}

/* After 1000 s at 3 GHz the guest's pvclock lags the exact time by some
 * 200 ns; the refresh before the raise makes its deadline visible to it. */
static void guest_sees_deadline_on_drifted_pvclock(void)
{
    const uint64_t tsc = 3000000000000ull, deadline = 1000000000000ull;

    setup_rate(3000000, 0);
    CHECK(pvclock_read(&vi0->time, tsc) < deadline);   /* the drift */
    {
        struct evtchn_bind_virq b = { .virq = VIRQ_TIMER };
        const uint64_t va = 0xffffffff80400000ull;

        host_env_map(va, 8, HOST_ENV_RW);
        memcpy(host_env_frame(8), &b, sizeof(b));
        CHECK(do_event_channel_op(EVTCHNOP_bind_virq, va, 0, 0, 0) == 0);
    }
    time_set_guest_timer(deadline);
    fake_tsc = tsc;
    time_timer_fired();
    CHECK(evtchn_port_pending(evtchn_state.virq_port[0][VIRQ_TIMER]));
    CHECK(pvclock_read(&vi0->time, tsc) >= deadline);
}

static void past_deadline_fires_at_once(void)
{
    setup_with_timer_port();
    fake_tsc = 10 * NS_PER_MS;
    time_set_guest_timer(3 * NS_PER_MS);
    CHECK(timer_pending());
    CHECK(!armed && !time_guest_timer_armed());
    CHECK(pvclock_read(&vi0->time, fake_tsc) == 10 * NS_PER_MS);
    evtchn_init();
    setup_with_timer_port();
    fake_tsc = 10 * NS_PER_MS;
    time_set_guest_timer(10 * NS_PER_MS);   /* now is not in the future */
    CHECK(timer_pending());
}

static void stop_cancels_the_device(void)
{
    setup_with_timer_port();
    time_set_guest_timer(5 * NS_PER_MS);
    time_stop_guest_timer();
    CHECK(!armed && !time_guest_timer_armed());
    fake_tsc = 6 * NS_PER_MS;
    time_timer_fired();   /* a late interrupt */
    CHECK(!timer_pending());
}

/* A new deadline replaces the old one. */
static void rearming_replaces_deadline(void)
{
    setup_with_timer_port();
    time_set_guest_timer(5 * NS_PER_MS);
    time_set_guest_timer(9 * NS_PER_MS);
    CHECK(armed && armed_deadline == 9 * NS_PER_MS);
    fake_tsc = 6 * NS_PER_MS;
    time_timer_fired();
    CHECK(!timer_pending());
    CHECK(armed_deadline == 9 * NS_PER_MS);
}

static void wake_and_guest_deadline_share_the_device(void)
{
    setup_with_timer_port();
    time_set_guest_timer(5 * NS_PER_MS);
    time_wake_at(3 * NS_PER_MS);
    CHECK(armed && armed_deadline == 3 * NS_PER_MS);
    fake_tsc = 3 * NS_PER_MS;
    time_timer_fired();
    CHECK(!timer_pending());
    CHECK(armed && armed_deadline == 5 * NS_PER_MS);
    time_wake_at(10 * NS_PER_MS);
    CHECK(armed_deadline == 5 * NS_PER_MS);
    fake_tsc = 5 * NS_PER_MS;
    time_timer_fired();
    CHECK(timer_pending());
    CHECK(armed && armed_deadline == 10 * NS_PER_MS);
    time_wake_cancel();
    CHECK(!armed);
}

/* The timer interrupt cuts into a refresh of the guest's record: it waits
 * until the record is whole, then fires (and refreshes it again). */
static void interrupt_during_refresh_waits(void)
{
    volatile struct vcpu_time_info *t;
    uint32_t version;

    setup_with_timer_port();
    t = &vi0->time;
    version = t->version;
    time_set_guest_timer(4 * NS_PER_MS);
    fake_tsc = 4 * NS_PER_MS;
    interrupt_in_rdtsc = true;
    time_update_guest();
    CHECK(!interrupt_in_rdtsc);              /* it did interrupt */
    CHECK(t->version % 2 == 0);
    CHECK(t->version == version + 4);        /* two whole refreshes */
    CHECK(t->system_time == t->tsc_timestamp);   /* 1 GHz */
    CHECK(timer_pending());
    CHECK(!armed && !time_guest_timer_armed());
}

/* Without a VIRQ_TIMER binding the deadline passes silently. */
static void unbound_timer_raises_nothing(void)
{
    uint8_t before[sizeof(struct shared_info)];

    setup();
    time_set_guest_timer(2 * NS_PER_MS);
    memcpy(before, (const void *)si, sizeof(before));
    fake_tsc = 2 * NS_PER_MS;
    time_timer_fired();
    CHECK(!time_guest_timer_armed());
    CHECK(memcmp((const void *)si->evtchn_pending, before + 2048, 512) == 0);
    CHECK(vi0->evtchn_upcall_pending == 0);
}

int main(void)
{
    RUN(scale_has_32_significant_bits);
    RUN(scale_rounds_down_by_less_than_one_unit);
    RUN(linux_reads_back_the_rate);
    RUN(now_is_exact_for_every_rate);
    RUN(guest_pvclock_tracks_exact_time);
    RUN(power_of_two_ratios_are_exact);
    RUN(fill_follows_version_protocol);
    RUN(init_fills_vcpu_info_time);
    RUN(init_without_rate_stops);
    RUN(wallclock_written_with_version);
    RUN(guest_timer_fires_at_its_deadline);
    RUN(guest_sees_deadline_on_drifted_pvclock);
    RUN(past_deadline_fires_at_once);
    RUN(stop_cancels_the_device);
    RUN(rearming_replaces_deadline);
    RUN(wake_and_guest_deadline_share_the_device);
    RUN(interrupt_during_refresh_waits);
    RUN(unbound_timer_raises_nothing);
    return check_exit_status();
}
