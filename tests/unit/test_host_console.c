/*
 * Unit tests of console_io (host/events/console.c): the bytes the guest writes go
 * into the ring of the shared page, the doorbell rings, a full ring costs a
 * PERCH_REQ_CONSOLE_FLUSH request, and guest-corrupted ring indices never
 * make the Host write outside the ring (AddressSanitizer watches perch_shared
 * and the machine memory).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#define FRAMES  64
#define VA      0xffffffff80300000ull
#define MFN     8
#define PAGES   4                 /* guest buffer: up to 16 KiB */
#define RING    PERCH_CONSOLE_RING_BYTES

static uint8_t text(uint64_t i)
{
    return (uint8_t)('!' + (i * 7 + i / 97) % 90);
}

/* PAGES pages of text() at VA. */
static void setup(void)
{
    uint8_t *p;

    host_env_reset(FRAMES);
    p = host_env_frame(MFN);
    for (uint64_t i = 0; i < PAGES * 4096; i++)
        p[i] = text(i);
    host_env_map_range(VA, MFN, PAGES, HOST_ENV_RO);
}

static long write_console(uint64_t va, uint64_t len)
{
    return do_console_io(CONSOLEIO_write, len, va, 0, 0);
}

/* Everything the Launcher stand-in got, plus what the ring still holds. */
static int output_is_text(uint64_t from, size_t len)
{
    if (host_env_console_drain() != 0 || host_env_console_len != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (host_env_console[i] != text(from + i))
            return 0;
    return 1;
}

static void write_puts_exact_bytes_in_ring(void)
{
    setup();
    CHECK(write_console(VA + 5, 11) == 0);
    CHECK(perch_shared.console_prod == 11);
    CHECK(perch_shared.console_cons == 0);
    for (int i = 0; i < 11; i++)
        CHECK(perch_shared.console_ring[i] == text(5 + i));
    for (unsigned i = 11; i < RING; i++)
        CHECK(perch_shared.console_ring[i] == 0);
    CHECK(host_env_doorbells >= 1);
    CHECK(host_env_nr_requests == 0);   /* no exit for a ring with room */
}

static void writes_append(void)
{
    setup();
    CHECK(write_console(VA, 100) == 0);
    CHECK(write_console(VA + 100, 1) == 0);
    CHECK(write_console(VA + 101, 399) == 0);
    CHECK(perch_shared.console_prod == 500);
    CHECK(host_env_doorbells >= 3);
    CHECK(output_is_text(0, 500));
}

/* A ring drained to just below the wrap point: bytes wrap to its start. */
static void write_wraps_around_the_ring(void)
{
    setup();
    perch_shared.console_prod = perch_shared.console_cons = RING - 3;
    host_env_console_cons = RING - 3;
    CHECK(write_console(VA, 10) == 0);
    CHECK(perch_shared.console_prod == RING + 7);
    CHECK(perch_shared.console_ring[RING - 1] == text(2));
    CHECK(perch_shared.console_ring[0] == text(3));
    CHECK(output_is_text(0, 10));
    CHECK(host_env_nr_requests == 0);
}

/* ... and across the 32-bit wrap of the indices. */
static void indices_wrap_at_4g(void)
{
    setup();
    perch_shared.console_prod = perch_shared.console_cons = 0xfffffff0u;
    host_env_console_cons = 0xfffffff0u;
    CHECK(write_console(VA, 5000) == 0);
    CHECK(perch_shared.console_prod == 0xfffffff0u + 5000);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] >= 1);
    CHECK(output_is_text(0, 5000));
}

static void exactly_one_ring_needs_no_flush(void)
{
    setup();
    CHECK(write_console(VA, RING) == 0);
    CHECK(host_env_nr_requests == 0);
    CHECK(output_is_text(0, RING));
}

static void write_larger_than_ring_flushes_in_order(void)
{
    size_t len = 10000;

    setup();
    CHECK(write_console(VA + 7, len) == 0);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] >= 2);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] == host_env_nr_requests);
    CHECK(host_env_log[0].reason == PERCH_REQ_CONSOLE_FLUSH);
    CHECK(perch_shared.request.reason == PERCH_REQ_NONE);   /* after the resume */
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_EXIT] == host_env_nr_requests);
    CHECK(output_is_text(7, len));
}

/* A flush is asked for only when the ring is full. */
static void flush_only_when_full(void)
{
    setup();
    CHECK(write_console(VA, RING - 1) == 0);
    CHECK(host_env_nr_requests == 0);
    CHECK(write_console(VA + RING - 1, 2) == 0);
    CHECK(host_env_nr_requests == 1);
    CHECK(output_is_text(0, RING + 1));
}

static void zero_length_returns_zero(void)
{
    setup();
    CHECK(write_console(VA, 0) == 0);
    CHECK(write_console(0, 0) == 0);   /* no buffer is read */
    CHECK(perch_shared.console_prod == 0);
    CHECK(host_env_nr_requests == 0);
}

static void bad_buffer_efault(void)
{
    setup();
    CHECK(write_console(0, 1) == -XEN_EFAULT);
    CHECK(write_console(0x0000800000000000ull, 1) == -XEN_EFAULT);
    CHECK(write_console(PERCH_REGION_VA, 16) == -XEN_EFAULT);
    CHECK(write_console(VA + PAGES * 4096 - 1, 2) == -XEN_EFAULT);
    CHECK(perch_shared.console_prod == 0);
}

/* The buffer ends on an unmapped page: what came before may be out, the
 * result is -EFAULT, and nothing beyond the good bytes is written. */
static void buffer_running_off_its_mapping_efault(void)
{
    setup();
    CHECK(write_console(VA + PAGES * 4096 - 1000, 1500) == -XEN_EFAULT);
    CHECK(perch_shared.console_prod <= 1000);
    CHECK(output_is_text(PAGES * 4096 - 1000, perch_shared.console_prod));
}

static void huge_length_efault(void)
{
    setup();
    CHECK(write_console(VA, ~0ull) == -XEN_EFAULT);
    CHECK(write_console(VA, 1ull << 40) == -XEN_EFAULT);
}

static void unknown_subop_enosys(void)
{
    setup();
    CHECK(do_console_io(CONSOLEIO_read, 10, VA, 0, 0) == -XEN_ENOSYS);
    CHECK(do_console_io(2, 10, VA, 0, 0) == -XEN_ENOSYS);
    CHECK(do_console_io(~0ull, 10, VA, 0, 0) == -XEN_ENOSYS);
    CHECK(do_console_io(1ull << 32, 10, VA, 0, 0) == -XEN_ENOSYS);
    CHECK(perch_shared.console_prod == 0);
    CHECK(host_env_doorbells == 0);
}

/*
 * The guest can write the whole shared page. A consumer index far ahead of
 * the producer makes the ring look overfull: the Host asks the Launcher,
 * which (keeping its own index, as launcher/console/console.c does) repairs it.
 */
static void corrupted_cons_ahead_repaired_by_launcher(void)
{
    setup();
    CHECK(write_console(VA, 100) == 0);
    perch_shared.console_cons = perch_shared.console_prod + 100000;
    CHECK(write_console(VA + 100, 5000) == 0);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] >= 1);
    CHECK(output_is_text(0, 5100));
}

static void corrupted_cons_variants_never_overflow(void)
{
    static const uint32_t bad[] = {
        1, RING - 1, RING, RING + 1, 0x7fffffffu, 0x80000000u, 0xffffffffu,
        0xdeadbeefu,
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setup();
        perch_shared.console_prod = 0;
        perch_shared.console_cons = bad[i];
        CHECK(write_console(VA, 9000) == 0);
        CHECK(output_is_text(0, 9000));
        /* Bytes around the ring in the shared page are untouched. */
        CHECK(perch_shared.stats.hypercalls_unknown == 0);
    }
}

/* A consumer index just behind the producer (ring looks fuller than it
 * is): still correct output. */
static void corrupted_cons_behind(void)
{
    setup();
    CHECK(write_console(VA, 10) == 0);
    perch_shared.console_cons = perch_shared.console_prod - RING;
    CHECK(write_console(VA + 10, 10) == 0);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] >= 1);
    CHECK(output_is_text(0, 20));
}

/* A corrupted producer index: the Launcher finds the ring broken and stops
 * the guest (it never resumes); the Host wrote only inside the ring. */
static void corrupted_prod_stops_the_guest(void)
{
    int stopped;

    setup();
    perch_shared.console_prod = 0x40000000u;
    stopped = HOST_ENV_EXPECT_STOP(write_console(VA, 100));
    CHECK(stopped);
    CHECK(host_env_console_broken);
    CHECK(host_env_last_request()->reason == PERCH_REQ_CONSOLE_FLUSH);
}

/* A Launcher that never drains: the Host keeps asking (it has nowhere to
 * put the bytes) rather than overwriting unread ones. */
static void stalled_launcher_is_asked_again(void)
{
    int stopped;

    setup();
    CHECK(write_console(VA, RING) == 0);
    host_env_flush_stalls = 1;
    stopped = HOST_ENV_EXPECT_STOP(write_console(VA + RING, 1));
    CHECK(stopped);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] == HOST_ENV_STALL_LIMIT);
    CHECK(perch_shared.console_prod == RING);
    host_env_flush_stalls = 0;
    CHECK(output_is_text(0, RING));
}

/* console_put() from the Host itself (no guest buffer). */
static void console_put_directly(void)
{
    static char big[3 * RING + 5];

    host_env_reset(FRAMES);
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)text(i);
    console_put(big, sizeof(big));
    console_put("", 0);
    CHECK(host_env_requests_of[PERCH_REQ_CONSOLE_FLUSH] >= 3);
    CHECK(output_is_text(0, sizeof(big)));
}

int main(void)
{
    RUN(write_puts_exact_bytes_in_ring);
    RUN(writes_append);
    RUN(write_wraps_around_the_ring);
    RUN(indices_wrap_at_4g);
    RUN(exactly_one_ring_needs_no_flush);
    RUN(write_larger_than_ring_flushes_in_order);
    RUN(flush_only_when_full);
    RUN(zero_length_returns_zero);
    RUN(bad_buffer_efault);
    RUN(buffer_running_off_its_mapping_efault);
    RUN(huge_length_efault);
    RUN(unknown_subop_enosys);
    RUN(corrupted_cons_ahead_repaired_by_launcher);
    RUN(corrupted_cons_variants_never_overflow);
    RUN(corrupted_cons_behind);
    RUN(corrupted_prod_stops_the_guest);
    RUN(stalled_launcher_is_asked_again);
    RUN(console_put_directly);
    return check_exit_status();
}
