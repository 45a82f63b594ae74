/*
 * Unit tests of the Host's exception path (host/entry/trap.c) and of its requests
 * to the Launcher (host/core/request.c): every exception stops the guest with a
 * PERCH_REQ_FATAL whose message says what, where and whose fault it was.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#define FRAMES   16
#define GUEST_RIP 0xffffffff81234567ull
#define GUEST_RSP 0xffffffff81ffff00ull

/*
 * A guest-kernel frame at GUEST_RIP, where a ud2 sits: a #UD or #GP there is
 * first offered to the privileged-instruction emulator, which declines.
 */
static void regs_guest(struct cpu_regs *r, uint64_t vector, uint64_t error)
{
    uint8_t *code = host_env_frame(1);

    code[GUEST_RIP & 0xfff] = 0x0f;
    code[(GUEST_RIP & 0xfff) + 1] = 0x0b;
    host_env_map(GUEST_RIP & ~0xfffull, 1, HOST_ENV_RW);
    memset(r, 0, sizeof(*r));
    r->rip = GUEST_RIP;
    r->cs = FLAT_KERNEL_CS64;
    r->rflags = 0x202;
    r->rsp = GUEST_RSP;
    r->ss = FLAT_KERNEL_SS64;
    r->vector = vector;
    r->error_code = error;
}

/* host_trap(), which must stop with one FATAL request; its message. Keep
 * it out of CHECK_CONTAINS, which evaluates its argument twice. */
static const char *trap(struct cpu_regs *r)
{
    int stopped = HOST_ENV_EXPECT_STOP(host_trap(r));

    if (!stopped || host_env_nr_requests != 1 ||
        host_env_log[0].reason != PERCH_REQ_FATAL)
        return "(no single FATAL request)";
    return host_env_log[0].message;
}

static void guest_page_fault_named(void)
{
    struct cpu_regs r;
    const char *msg;

    host_env_reset(FRAMES);
    regs_guest(&r, 14, 2);
    msg = trap(&r);
    CHECK_CONTAINS(msg, "guest");
    CHECK_CONTAINS(msg, " took ");
    CHECK_CONTAINS(msg, "#PF");
    CHECK_CONTAINS(msg, "vector 14");
    CHECK_CONTAINS(msg, "ffffffff81234567");
    CHECK_CONTAINS(msg, "error 2");
    CHECK_CONTAINS(msg, "ffffffff81ffff00");
    CHECK(strstr(msg, "Host") == NULL && strstr(msg, "Switcher") == NULL);
}

static void every_exception_named(void)
{
    for (uint64_t v = 0; v < 32; v++) {
        if (v == 14)
            continue;   /* a fault at GUEST_RIP itself: guest_page_fault_named */
        struct cpu_regs r;
        char want[32];
        const char *msg;

        host_env_reset(FRAMES);
        regs_guest(&r, v, 0);
        msg = trap(&r);
        snprintf(want, sizeof(want), "(vector %lu)", (unsigned long)v);
        CHECK_CONTAINS(msg, want);
        CHECK_CONTAINS(msg, "guest");
        CHECK_CONTAINS(msg, " took ");
        CHECK_CONTAINS(msg, "ffffffff81234567");
        CHECK(strlen(msg) < PERCH_FATAL_MSG_BYTES);
    }
}

static void fatal_message_names_the_exception(void)
{
    static const struct { uint64_t v; const char *name; } names[] = {
        { 0, "#DE" }, { 3, "#BP" }, { 6, "#UD" }, { 13, "#GP" }, { 14, "#PF" },
        { 17, "#AC" }, { 21, "#CP" }, { 22, "reserved exception" },
        { 31, "reserved exception" },
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct cpu_regs r;
        const char *msg;

        host_env_reset(FRAMES);
        regs_guest(&r, names[i].v, 0);
        msg = trap(&r);
        CHECK_CONTAINS(msg, names[i].name);
    }
}

/* The longest guest message still ends in its own last words. */
static void longest_message_fits(void)
{
    struct cpu_regs r;
    const char *msg;

    host_env_reset(FRAMES);
    regs_guest(&r, 7, ~0ull);   /* "#NM device not available" */
    r.rip = ~0ull;
    r.rsp = ~0ull;
    msg = trap(&r);
    CHECK_CONTAINS(msg, "no handler");
}

static void fault_in_perch_region_is_a_host_fault(void)
{
    static const uint64_t rips[] = {
        PERCH_REGION_VA, HOST_IMAGE_VA + 0x1234, SW_CODE_VA + 8, PERCH_ALIAS_VA - 1,
    };

    for (size_t i = 0; i < sizeof(rips) / sizeof(rips[0]); i++) {
        struct cpu_regs r;
        char want[32];
        const char *msg;

        host_env_reset(FRAMES);
        regs_guest(&r, 13, 0x10);
        r.rip = rips[i];
        msg = trap(&r);
        snprintf(want, sizeof(want), "%lx", (unsigned long)rips[i]);
        CHECK_CONTAINS(msg, "Host fault");
        CHECK_CONTAINS(msg, "#GP");
        CHECK_CONTAINS(msg, "vector 13");
        CHECK_CONTAINS(msg, want);
        CHECK_CONTAINS(msg, "error 10");
    }
}

/* Just outside the region: the guest's own (bad) rip. */
static void rip_next_to_perch_region_is_the_guests(void)
{
    static const uint64_t rips[] = { PERCH_REGION_VA - 1, PERCH_ALIAS_VA };

    for (size_t i = 0; i < sizeof(rips) / sizeof(rips[0]); i++) {
        struct cpu_regs r;
        const char *msg;

        host_env_reset(FRAMES);
        regs_guest(&r, 14, 0);
        r.rip = rips[i];
        msg = trap(&r);
        CHECK_CONTAINS(msg, "guest");
        CHECK(strstr(msg, "Host fault") == NULL);
    }
}

static void ring0_is_a_switcher_fault(void)
{
    struct cpu_regs r;
    const char *msg;

    host_env_reset(FRAMES);
    regs_guest(&r, 6, 0);
    r.cs = SW_CS0_SEL;
    r.rip = SW_CODE_VA + 0x40;   /* in the region too: ring 0 wins */
    msg = trap(&r);
    CHECK_CONTAINS(msg, "Switcher fault");
    CHECK_CONTAINS(msg, "#UD");
    CHECK_CONTAINS(msg, "vector 6");
    CHECK_CONTAINS(msg, "ring 0");

    host_env_reset(FRAMES);
    regs_guest(&r, 14, 0);
    r.cs = 0x10;   /* any RPL-0 selector */
    msg = trap(&r);
    CHECK_CONTAINS(msg, "Switcher fault");
}

static void every_trap_counts_its_vector_and_visit_kind(void)
{
    struct cpu_regs r;

    host_env_reset(FRAMES);
    regs_guest(&r, 14, 0);
    trap(&r);
    regs_guest(&r, 14, 0);
    HOST_ENV_EXPECT_STOP(host_trap(&r));
    regs_guest(&r, 3, 0);
    HOST_ENV_EXPECT_STOP(host_trap(&r));
    /* Interrupts are acknowledged and the guest resumed: no request. */
    regs_guest(&r, 32, 0);
    HOST_ENV_EXPECT_STOP(host_trap(&r));
    regs_guest(&r, 255, 0);
    HOST_ENV_EXPECT_STOP(host_trap(&r));
    CHECK(perch_shared.stats.vectors[14] == 2);
    CHECK(perch_shared.stats.vectors[3] == 1);
    CHECK(perch_shared.stats.vectors[32] == 1);
    CHECK(perch_shared.stats.vectors[255] == 1);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_EXCEPTION] == 3);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_INTERRUPT] == 2);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_EXIT] == 3);
    CHECK(host_env_requests_of[PERCH_REQ_FATAL] == 3);
    CHECK(host_env_interrupt_acks == 2);
}

/* ---- host/core/request.c ---------------------------------------------- */

static void launcher_request_round_trip(void)
{
    host_env_reset(FRAMES);
    launcher_request(PERCH_REQ_CONSOLE_FLUSH, 0x1234);
    CHECK(host_env_nr_requests == 1);
    CHECK(host_env_log[0].reason == PERCH_REQ_CONSOLE_FLUSH);
    CHECK(host_env_log[0].arg0 == 0x1234);
    CHECK(perch_shared.request.reason == PERCH_REQ_NONE);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_EXIT] == 1);
}

static void host_fatal_formats_and_stops(void)
{
    int stopped;

    host_env_reset(FRAMES);
    stopped = HOST_ENV_EXPECT_STOP(host_fatal("bad %s %d %lx", "thing", -3, 0xabcul));
    CHECK(stopped);
    CHECK(host_env_nr_requests == 1);
    CHECK(host_env_log[0].reason == PERCH_REQ_FATAL);
    CHECK(strcmp(host_env_log[0].message, "bad thing -3 abc") == 0);
}

/* A message longer than the shared page's field is cut and terminated. */
static void host_fatal_long_message_truncated(void)
{
    char longer[400];
    int stopped;

    host_env_reset(FRAMES);
    memset(perch_shared.request.message, 'Z', PERCH_FATAL_MSG_BYTES);
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    stopped = HOST_ENV_EXPECT_STOP(host_fatal("%s", longer));
    CHECK(stopped);
    CHECK(strlen(host_env_log[0].message) == PERCH_FATAL_MSG_BYTES - 1);
    CHECK(perch_shared.request.message[PERCH_FATAL_MSG_BYTES - 1] == '\0');
}

int main(void)
{
    RUN(guest_page_fault_named);
    RUN(every_exception_named);
    RUN(fatal_message_names_the_exception);
    RUN(longest_message_fits);
    RUN(fault_in_perch_region_is_a_host_fault);
    RUN(rip_next_to_perch_region_is_the_guests);
    RUN(ring0_is_a_switcher_fault);
    RUN(every_trap_counts_its_vector_and_visit_kind);
    RUN(launcher_request_round_trip);
    RUN(host_fatal_formats_and_stops);
    RUN(host_fatal_long_message_truncated);
    return check_exit_status();
}
