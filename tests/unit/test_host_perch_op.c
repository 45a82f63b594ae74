/*
 * Unit tests of perch_op (host/xen/perch_op.c), perch's measurement hypercall:
 * each call is exactly one ring-0 visit or one exit to the Launcher.
 */
#include <stdint.h>

#include "check.h"
#include "host_env.h"

#define FRAMES 16

static uint64_t hypercall2(uint64_t nr, uint64_t a1, uint64_t a2)
{
    struct cpu_regs r = { .rax = nr, .rdi = a1, .rsi = a2, .vector = PERCH_VECTOR_SYSCALL };

    host_hypercall(&r);
    return r.rax;
}

static uint64_t hypercall(uint64_t nr, uint64_t a1)
{
    return hypercall2(nr, a1, 0);
}

static void switcher_roundtrip_one_visit(void)
{
    host_env_reset(FRAMES);
    CHECK(hypercall(HYPERVISOR_perch_op, PERCH_OP_switcher_roundtrip) == 0);
    CHECK(hypercall(HYPERVISOR_perch_op, PERCH_OP_switcher_roundtrip) == 0);
    CHECK(host_env_switcher_roundtrips == 2);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_RESUME] == 2);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_perch_op] == 2);
    CHECK(host_env_nr_requests == 0);
}

static void launcher_roundtrip_one_ping(void)
{
    host_env_reset(FRAMES);
    CHECK(hypercall(HYPERVISOR_perch_op, PERCH_OP_launcher_roundtrip) == 0);
    CHECK(host_env_nr_requests == 1);
    CHECK(host_env_log[0].reason == PERCH_REQ_PING);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_EXIT] == 1);
    CHECK(perch_shared.request.reason == PERCH_REQ_NONE);
    CHECK(host_env_switcher_roundtrips == 0);
}

/* Every probe road is one visit; a road past the last is refused. */
static void probes_one_visit_each(void)
{
    host_env_reset(FRAMES);
    for (uint64_t road = 0; road < PERCH_PROBES; road++)
        CHECK(hypercall2(HYPERVISOR_perch_op, PERCH_OP_switcher_probe, road) == 0);
    CHECK(host_env_switcher_roundtrips == PERCH_PROBES);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_RESUME] == PERCH_PROBES);
    CHECK(hypercall2(HYPERVISOR_perch_op, PERCH_OP_switcher_probe, PERCH_PROBES) ==
          (uint64_t)-XEN_EINVAL);
    CHECK(hypercall2(HYPERVISOR_perch_op, PERCH_OP_switcher_probe, ~0ull) == (uint64_t)-XEN_EINVAL);
    CHECK(host_env_switcher_roundtrips == PERCH_PROBES);
}

static void unknown_op_enosys(void)
{
    host_env_reset(FRAMES);
    CHECK(hypercall(HYPERVISOR_perch_op, 3) == (uint64_t)-XEN_ENOSYS);
    CHECK(hypercall(HYPERVISOR_perch_op, ~0ull) == (uint64_t)-XEN_ENOSYS);
    CHECK(host_env_nr_requests == 0);
    CHECK(host_env_switcher_roundtrips == 0);
}

int main(void)
{
    RUN(switcher_roundtrip_one_visit);
    RUN(launcher_roundtrip_one_ping);
    RUN(probes_one_visit_each);
    RUN(unknown_op_enosys);
    return check_exit_status();
}
