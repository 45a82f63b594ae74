/*
 * Unit tests of the Host's hypercall dispatch (host/entry/hypercall.c): which
 * handler a number reaches, what the guest gets back in rax, what is
 * counted, and that no other register changes.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/sched.h"
#include "../../abi/xen/version.h"
#include "host_env.h"

#define FRAMES     64
#define BUF_VA     0xffffffff80100000ull
#define BUF_MFN    10

/* Registers with a distinct pattern in each, a hypercall number in rax. */
static void regs_fill(struct cpu_regs *r, uint64_t nr)
{
    uint64_t *w = (uint64_t *)r;

    for (size_t i = 0; i < sizeof(*r) / 8; i++)
        w[i] = 0x5a5a000000000000ull + i * 0x1111;
    r->rax = nr;
    r->vector = PERCH_VECTOR_SYSCALL;
}

static void regs_args(struct cpu_regs *r, uint64_t a1, uint64_t a2, uint64_t a3,
                      uint64_t a4, uint64_t a5)
{
    r->rdi = a1, r->rsi = a2, r->rdx = a3, r->r10 = a4, r->r8 = a5;
}

/* Every register but rax is as before. */
static int only_rax_changed(const struct cpu_regs *before, const struct cpu_regs *after)
{
    struct cpu_regs a = *before, b = *after;

    a.rax = b.rax = 0;
    return memcmp(&a, &b, sizeof(a)) == 0;
}

static uint64_t total_counted(void)
{
    uint64_t n = perch_shared.stats.hypercalls_unknown;

    for (int i = 0; i < XEN_NR_HYPERCALLS; i++)
        n += perch_shared.stats.hypercalls[i];
    return n;
}

/* One hypercall through host_hypercall(); returns rax. */
static uint64_t call(struct cpu_regs *r)
{
    struct cpu_regs before = *r;

    host_hypercall(r);
    if (!only_rax_changed(&before, r))
        return 0xbadbadbadull;   /* callers CHECK the result */
    return r->rax;
}

static void xen_version_reaches_its_handler(void)
{
    struct cpu_regs r;

    host_env_reset(FRAMES);
    regs_fill(&r, HYPERVISOR_xen_version);
    regs_args(&r, XENVER_version, 0, 0, 0, 0);
    CHECK(call(&r) == ((4u << 16) | 17));
    regs_fill(&r, HYPERVISOR_xen_version);
    regs_args(&r, XENVER_pagesize, 0, 0, 0, 0);
    CHECK(call(&r) == 4096);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_xen_version] == 2);
    CHECK(total_counted() == 2);
}

static void console_io_reaches_its_handler(void)
{
    struct cpu_regs r;

    host_env_reset(FRAMES);
    memcpy(host_env_frame(BUF_MFN), "hi!", 3);
    host_env_map(BUF_VA, BUF_MFN, HOST_ENV_RO);
    regs_fill(&r, HYPERVISOR_console_io);
    regs_args(&r, CONSOLEIO_write, 3, BUF_VA, 0, 0);
    CHECK(call(&r) == 0);
    CHECK(perch_shared.console_prod == 3);
    CHECK(memcmp(perch_shared.console_ring, "hi!", 3) == 0);
    /* Its own errors come back through rax too. */
    regs_fill(&r, HYPERVISOR_console_io);
    regs_args(&r, CONSOLEIO_write, 3, 0x1000, 0, 0);
    CHECK(call(&r) == (uint64_t)-XEN_EFAULT);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_console_io] == 2);
    CHECK(total_counted() == 2);
}

static void sched_op_reaches_its_handler(void)
{
    struct cpu_regs r;
    uint32_t reason = SHUTDOWN_poweroff;
    int stopped;

    host_env_reset(FRAMES);
    regs_fill(&r, HYPERVISOR_sched_op);
    regs_args(&r, SCHEDOP_yield, 0, 0, 0, 0);
    CHECK(call(&r) == 0);

    memcpy(host_env_frame(BUF_MFN), &reason, sizeof(reason));
    host_env_map(BUF_VA, BUF_MFN, HOST_ENV_RW);
    regs_fill(&r, HYPERVISOR_sched_op);
    regs_args(&r, SCHEDOP_shutdown, BUF_VA, 0, 0, 0);
    stopped = HOST_ENV_EXPECT_STOP(host_hypercall(&r));
    CHECK(stopped);
    CHECK(host_env_last_request()->reason == PERCH_REQ_SHUTDOWN);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_sched_op] == 2);
}

/* All five argument registers reach the handler, in Xen's order. */
static void arguments_in_rdi_rsi_rdx(void)
{
    struct cpu_regs r;

    host_env_reset(FRAMES);
    memcpy(host_env_frame(BUF_MFN) + 0x123, "abcdef", 6);
    host_env_map(BUF_VA, BUF_MFN, HOST_ENV_RO);
    regs_fill(&r, HYPERVISOR_console_io);
    /* rdi = cmd, rsi = len, rdx = buffer; r10 and r8 are ignored. */
    regs_args(&r, CONSOLEIO_write, 4, BUF_VA + 0x123, ~0ull, ~0ull);
    CHECK(call(&r) == 0);
    CHECK(perch_shared.console_prod == 4);
    CHECK(memcmp(perch_shared.console_ring, "abcd", 4) == 0);
}

static void unimplemented_in_table_enosys_and_counted(void)
{
    /* Numbers perch is not about to implement (the PV ABI work fills in
     * set_trap_table, mmu_update and the like). */
    static const uint64_t nrs[] = {
        11 /* unused in Xen */, HYPERVISOR_xenoprof_op, HYPERVISOR_argo_op,
        HYPERVISOR_dm_op, HYPERVISOR_hypfs_op, 48, XEN_NR_HYPERCALLS - 1,
    };
    struct cpu_regs r;

    host_env_reset(FRAMES);
    for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
        regs_fill(&r, nrs[i]);
        CHECK(call(&r) == (uint64_t)-XEN_ENOSYS);
        CHECK(r.rax == (uint64_t)(int64_t)-38);
        CHECK(perch_shared.stats.hypercalls[nrs[i]] == 1);
    }
    CHECK(perch_shared.stats.hypercalls_unknown == 0);
    CHECK(total_counted() == sizeof(nrs) / sizeof(nrs[0]));
    CHECK(host_env_nr_requests == 0);
}

static void outside_table_enosys_and_counted_unknown(void)
{
    static const uint64_t nrs[] = {
        XEN_NR_HYPERCALLS, 1000, 0x80000000ull, 1ull << 32, ~0ull,
    };
    struct cpu_regs r;

    host_env_reset(FRAMES);
    for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
        regs_fill(&r, nrs[i]);
        CHECK(call(&r) == (uint64_t)-XEN_ENOSYS);
        CHECK(perch_shared.stats.hypercalls_unknown == i + 1);
    }
    CHECK(total_counted() == sizeof(nrs) / sizeof(nrs[0]));
    for (int i = 0; i < XEN_NR_HYPERCALLS; i++)
        CHECK(perch_shared.stats.hypercalls[i] == 0);
}

/* Counting a hypercall touches nothing else in the shared page but the
 * vCPU's own count and, for one that came by `syscall`, where it came
 * from (both from the same address here: one caller, twice). */
static void counting_touches_nothing_else(void)
{
    static struct perch_shared before;
    struct cpu_regs r;

    host_env_reset(FRAMES);
    before = perch_shared;
    regs_fill(&r, HYPERVISOR_hypfs_op);
    call(&r);
    regs_fill(&r, 5000);
    call(&r);
    before.stats.hypercalls[HYPERVISOR_hypfs_op] = 1;
    before.stats.hypercalls_unknown = 1;
    before.vcpu_stats[0].hypercalls = 2;
    before.stats.nr_trapped_callers = 1;
    before.stats.trapped_callers[0] = (struct perch_trapped_caller){ r.rcx, 2 };
    CHECK(memcmp(&before, &perch_shared, sizeof(before)) == 0);
}

/* Past the table's callers, a trapped hypercall is only counted. */
static void trapped_callers_past_the_table(void)
{
    struct cpu_regs r;

    host_env_reset(FRAMES);
    for (unsigned i = 0; i <= PERCH_TRAPPED_CALLERS; i++) {
        regs_fill(&r, HYPERVISOR_xen_version);
        r.rcx = 0xffffffff81000000ull + i * 16;
        call(&r);
    }
    CHECK(perch_shared.stats.nr_trapped_callers == PERCH_TRAPPED_CALLERS);
    CHECK(perch_shared.stats.trapped_callers_unlisted == 1);
    CHECK(perch_shared.stats.trapped_callers[3].rip == 0xffffffff81000030ull);
    CHECK(perch_shared.stats.trapped_callers[3].count == 1);
}

int main(void)
{
    RUN(xen_version_reaches_its_handler);
    RUN(console_io_reaches_its_handler);
    RUN(sched_op_reaches_its_handler);
    RUN(arguments_in_rdi_rsi_rdx);
    RUN(unimplemented_in_table_enosys_and_counted);
    RUN(outside_table_enosys_and_counted_unknown);
    RUN(counting_touches_nothing_else);
    RUN(trapped_callers_past_the_table);
    return check_exit_status();
}
