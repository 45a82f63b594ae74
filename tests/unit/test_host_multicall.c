/*
 * Unit tests of multicall (host/xen/multicall.c): each entry runs through the
 * hypercall dispatch and gets its result written back; nested multicalls
 * and iret are refused per entry; bad arrays are -EFAULT.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/sched.h"
#include "../../abi/xen/version.h"
#include "host_env.h"
#include "../../host/xen/multicall.h"

#define FRAMES   64
#define VA       0xffffffff80200000ull
#define MFN      8
#define PAGES    2
#define UNMAPPED 0xffffffff80400000ull

static struct multicall_entry *entries(uint64_t va)
{
    return (struct multicall_entry *)((uint8_t *)host_env_frame(MFN) + (va - VA));
}

static void setup(uint64_t flags)
{
    host_env_reset(FRAMES);
    memset(host_env_frame(MFN), 0xa5, PAGES * 4096);
    host_env_map_range(VA, MFN, PAGES, flags);
    multicall_stat_entries = 0;
}

static void entry(struct multicall_entry *e, uint64_t op, uint64_t a1, uint64_t a2)
{
    memset(e, 0, sizeof(*e));
    e->op = op;
    e->result = 0x1234;
    e->args[0] = a1;
    e->args[1] = a2;
}

static long mc(uint64_t va, uint64_t count)
{
    return do_multicall(va, count, 0, 0, 0);
}

static void several_entries_each_get_their_result(void)
{
    struct multicall_entry *e;

    setup(HOST_ENV_RW);
    e = entries(VA);
    entry(&e[0], HYPERVISOR_xen_version, XENVER_version, 0);
    entry(&e[1], HYPERVISOR_xen_version, XENVER_pagesize, 0);
    /* Fails: its buffer is not mapped. The batch goes on. */
    entry(&e[2], HYPERVISOR_xen_version, XENVER_extraversion, UNMAPPED);
    entry(&e[3], 200, 0, 0);                       /* no such hypercall */
    entry(&e[4], HYPERVISOR_xen_version, XENVER_version, 0);
    CHECK(mc(VA, 5) == 0);
    CHECK(e[0].result == 0x40011);
    CHECK(e[1].result == 4096);
    CHECK((long)e[2].result == -XEN_EFAULT);
    CHECK((long)e[3].result == -XEN_ENOSYS);
    CHECK(e[4].result == 0x40011);
    CHECK(multicall_stat_entries == 5);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_xen_version] == 4);
    CHECK(perch_shared.stats.hypercalls_unknown == 1);
    /* Only the result fields were written. */
    CHECK(e[1].op == HYPERVISOR_xen_version && e[1].args[0] == XENVER_pagesize);
    CHECK(((uint8_t *)&e[5])[0] == 0xa5);
}

static void args_reach_the_handler(void)
{
    struct multicall_entry *e;
    char *text;

    setup(HOST_ENV_RW);
    e = entries(VA);
    text = (char *)entries(VA + 4096);
    entry(&e[0], HYPERVISOR_xen_version, XENVER_extraversion, VA + 4096);
    CHECK(mc(VA, 1) == 0);
    CHECK(e[0].result == 0);
    CHECK(strcmp(text, ".0-perch") == 0);
}

static void nested_multicall_and_iret_are_refused(void)
{
    struct multicall_entry *e;

    setup(HOST_ENV_RW);
    e = entries(VA);
    entry(&e[0], HYPERVISOR_multicall, VA + 1024, 1);
    entry(&e[1], HYPERVISOR_iret, 0, 0);
    entry(&e[2], HYPERVISOR_xen_version, XENVER_version, 0);
    entry(entries(VA + 1024), HYPERVISOR_xen_version, XENVER_version, 0);
    CHECK(mc(VA, 3) == 0);
    CHECK((long)e[0].result == -XEN_EINVAL);
    CHECK((long)e[1].result == -XEN_EINVAL);
    CHECK(e[2].result == 0x40011);
    /* The nested batch did not run. */
    CHECK(entries(VA + 1024)->result == 0x1234);
    CHECK(multicall_stat_entries == 3);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_xen_version] == 1);
}

static void empty_batch(void)
{
    setup(HOST_ENV_RW);
    CHECK(mc(VA, 0) == 0);
    CHECK(mc(UNMAPPED, 0) == 0);
    CHECK(multicall_stat_entries == 0);
}

static void count_is_32_bits(void)
{
    struct multicall_entry *e;

    setup(HOST_ENV_RW);
    e = entries(VA);
    entry(&e[0], HYPERVISOR_xen_version, XENVER_version, 0);
    CHECK(mc(VA, (1ull << 32) | 1) == 0);
    CHECK(e[0].result == 0x40011);
    CHECK(multicall_stat_entries == 1);
}

static void unmapped_array_is_efault(void)
{
    setup(HOST_ENV_RW);
    CHECK(mc(UNMAPPED, 1) == -XEN_EFAULT);
    CHECK(multicall_stat_entries == 0);
}

static void array_into_the_hole_fails_before_running(void)
{
    struct multicall_entry *e;

    setup(HOST_ENV_RW);
    e = entries(VA);
    entry(&e[0], HYPERVISOR_xen_version, XENVER_version, 0);
    /* Mapped, but the array would reach the non-canonical gap, or wrap. */
    CHECK(mc(0x00007fffffffffc0ull, 2) == -XEN_EFAULT);
    CHECK(mc(XEN_HOLE_START, 1) == -XEN_EFAULT);
    CHECK(mc(0xffffffffffffffc0ull, 2) == -XEN_EFAULT);
    CHECK(mc(VA, 0xffffffffull) == -XEN_EFAULT);   /* 256 GiB on: wraps */
    CHECK(e[0].result == 0x1234);
    CHECK(multicall_stat_entries == 0);
}

static void array_running_into_unmapped_memory(void)
{
    struct multicall_entry *last;

    setup(HOST_ENV_RW);
    last = entries(VA + 2 * 4096 - 64);
    entry(last, HYPERVISOR_xen_version, XENVER_pagesize, 0);
    /* The first entry runs; the second is on an unmapped page. */
    CHECK(mc(VA + 2 * 4096 - 64, 2) == -XEN_EFAULT);
    CHECK(last->result == 4096);
    CHECK(multicall_stat_entries == 1);
}

static void read_only_array_is_efault_after_one_entry(void)
{
    struct multicall_entry *e;

    setup(HOST_ENV_RO);
    e = entries(VA);
    entry(&e[0], HYPERVISOR_xen_version, XENVER_version, 0);
    entry(&e[1], HYPERVISOR_xen_version, XENVER_version, 0);
    CHECK(mc(VA, 2) == -XEN_EFAULT);
    CHECK(e[0].result == 0x1234);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_xen_version] == 1);
}

int main(void)
{
    RUN(several_entries_each_get_their_result);
    RUN(args_reach_the_handler);
    RUN(nested_multicall_and_iret_are_refused);
    RUN(empty_batch);
    RUN(count_is_32_bits);
    RUN(unmapped_array_is_efault);
    RUN(array_into_the_hole_fails_before_running);
    RUN(array_running_into_unmapped_memory);
    RUN(read_only_array_is_efault_after_one_entry);
    return check_exit_status();
}
