/*
 * Unit tests of sched_op (host/xen/sched.c): yield, and shutdown, which hands
 * the guest's reason to the Launcher and never comes back.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/sched.h"
#include "host_env.h"

#define FRAMES 64
#define VA     0xffffffff80400000ull
#define MFN    8

static void setup(void)
{
    host_env_reset(FRAMES);
    host_env_map_range(VA, MFN, 2, HOST_ENV_RW);
}

/* struct sched_shutdown at `va` (which must be mapped by setup()). */
static void put_reason(uint64_t va, uint32_t reason)
{
    memcpy((uint8_t *)host_env_frame(MFN) + (va - VA), &reason, sizeof(reason));
}

static void yield_returns_zero(void)
{
    setup();
    CHECK(do_sched_op(SCHEDOP_yield, 0, 0, 0, 0) == 0);
    CHECK(do_sched_op(SCHEDOP_yield, ~0ull, ~0ull, ~0ull, ~0ull) == 0);
    CHECK(host_env_nr_requests == 0);
}

/* SCHEDOP_shutdown with `reason`: stopped after one SHUTDOWN request? */
static int shutdown_stops_with(uint32_t reason)
{
    int stopped;

    setup();
    put_reason(VA + 0x40, reason);
    stopped = HOST_ENV_EXPECT_STOP(do_sched_op(SCHEDOP_shutdown, VA + 0x40, 0, 0, 0));
    return stopped && host_env_nr_requests == 1 &&
           host_env_log[0].reason == PERCH_REQ_SHUTDOWN &&
           host_env_log[0].arg0 == reason &&
           perch_shared.stats.visits[PERCH_VISIT_SERVICE_EXIT] == 1;
}

static void shutdown_sends_each_reason_and_stops(void)
{
    CHECK(shutdown_stops_with(SHUTDOWN_poweroff));
    CHECK(shutdown_stops_with(SHUTDOWN_reboot));
    CHECK(shutdown_stops_with(SHUTDOWN_suspend));
    CHECK(shutdown_stops_with(SHUTDOWN_crash));
    CHECK(shutdown_stops_with(SHUTDOWN_watchdog));
    CHECK(shutdown_stops_with(77));           /* the Launcher judges reasons */
    CHECK(shutdown_stops_with(0xffffffffu));
}

/* The 4-byte struct straddling two pages. */
static void shutdown_struct_across_pages(void)
{
    int stopped;

    setup();
    put_reason(VA + 4094, SHUTDOWN_crash);
    stopped = HOST_ENV_EXPECT_STOP(do_sched_op(SCHEDOP_shutdown, VA + 4094, 0, 0, 0));
    CHECK(stopped);
    CHECK(host_env_last_request()->arg0 == SHUTDOWN_crash);
}

static void shutdown_bad_pointer_efault(void)
{
    setup();
    CHECK(do_sched_op(SCHEDOP_shutdown, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_sched_op(SCHEDOP_shutdown, VA + 2 * 4096 - 2, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_sched_op(SCHEDOP_shutdown, HOST_IMAGE_VA, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_sched_op(SCHEDOP_shutdown, 0x8000000000000000ull, 0, 0, 0) == -XEN_EFAULT);
    CHECK(host_env_nr_requests == 0);
}

/* A read-only struct is fine: shutdown only reads it. */
static void shutdown_struct_read_only(void)
{
    int stopped;

    host_env_reset(FRAMES);
    host_env_map(VA, MFN, HOST_ENV_RO);
    put_reason(VA, SHUTDOWN_poweroff);
    stopped = HOST_ENV_EXPECT_STOP(do_sched_op(SCHEDOP_shutdown, VA, 0, 0, 0));
    CHECK(stopped);
    CHECK(host_env_last_request()->reason == PERCH_REQ_SHUTDOWN);
}

static void unknown_cmd_enosys(void)
{
    static const uint64_t cmds[] = {
        SCHEDOP_remote_shutdown,
        SCHEDOP_shutdown_code, SCHEDOP_watchdog, 7, 1000, ~0ull,
        (1ull << 32) | SCHEDOP_shutdown,
    };

    setup();
    put_reason(VA, SHUTDOWN_poweroff);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        CHECK(do_sched_op(cmds[i], VA, 0, 0, 0) == -XEN_ENOSYS);
    CHECK(host_env_nr_requests == 0);
}

int main(void)
{
    RUN(yield_returns_zero);
    RUN(shutdown_sends_each_reason_and_stops);
    RUN(shutdown_struct_across_pages);
    RUN(shutdown_bad_pointer_efault);
    RUN(shutdown_struct_read_only);
    RUN(unknown_cmd_enosys);
    return check_exit_status();
}
