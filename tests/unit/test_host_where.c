/*
 * Unit tests of the Host's report of where the guest stopped (host/core/where.c):
 * a crash through sched_op and a broken rule through a trap each leave the
 * guest's rip, rsp and the top of its stack in request.where, the stack
 * copied word by word up to the first page that is not mapped.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/sched.h"
#include "../../host/core/vcpu.h"
#include "../../host/core/where.h"
#include "host_env.h"

#define FRAMES    64
#define STACK_VA  0xffffffff80200000ull   /* one page mapped, none above */
#define STACK_MFN 12
#define ARG_VA    0xffffffff80300000ull
#define ARG_MFN   14
#define RIP       0xffffffff81234567ull

static void stack_words(uint64_t rsp, unsigned n)
{
    uint64_t *page = host_env_frame(STACK_MFN);

    for (unsigned i = 0; i < n; i++)
        page[((rsp - STACK_VA) >> 3) + i] = 0xffffffff81000000ull + i;
}

static void setup(void)
{
    host_env_reset(FRAMES);
    host_env_map(STACK_VA, STACK_MFN, HOST_ENV_RW);
    host_env_map(ARG_VA, ARG_MFN, HOST_ENV_RW);
}

/* A hypercall's registers: the rip the `syscall` returns to, the stack. */
static void regs_hypercall(struct cpu_regs *r, uint64_t rsp)
{
    memset(r, 0, sizeof(*r));
    r->rip = RIP;
    r->rsp = rsp;
    r->cs = FLAT_KERNEL_CS64;
    r->ss = FLAT_KERNEL_SS64;
    r->vector = PERCH_VECTOR_SYSCALL;
}

static int crash_through_hypercall(struct cpu_regs *r)
{
    uint32_t reason = SHUTDOWN_crash;

    memcpy(host_env_frame(ARG_MFN), &reason, sizeof(reason));
    r->rax = HYPERVISOR_sched_op;
    r->rdi = SCHEDOP_shutdown;
    r->rsi = ARG_VA;
    return HOST_ENV_EXPECT_STOP(host_hypercall(r));
}

static void crash_reports_caller_and_stack(void)
{
    struct cpu_regs r;

    setup();
    regs_hypercall(&r, STACK_VA + 0x100);
    stack_words(STACK_VA + 0x100, PERCH_WHERE_STACK_WORDS);
    CHECK(crash_through_hypercall(&r));
    CHECK(host_env_last_request()->reason == PERCH_REQ_SHUTDOWN);
    CHECK(perch_shared.request.where.known == 1);
    CHECK(perch_shared.request.where.kernel == 1);
    CHECK(perch_shared.request.where.rip == RIP);
    CHECK(perch_shared.request.where.rsp == STACK_VA + 0x100);
    CHECK(perch_shared.request.where.nr_stack == PERCH_WHERE_STACK_WORDS);
    CHECK(perch_shared.request.where.stack[0] == 0xffffffff81000000ull);
    CHECK(perch_shared.request.where.stack[63] == 0xffffffff8100003full);
}

/* 10 words below the end of the mapped page: the copy stops there. */
static void stack_stops_at_unmapped_page(void)
{
    struct cpu_regs r;
    uint64_t rsp = STACK_VA + 4096 - 10 * 8;

    setup();
    regs_hypercall(&r, rsp);
    stack_words(rsp, 10);
    CHECK(crash_through_hypercall(&r));
    CHECK(perch_shared.request.where.nr_stack == 10);
    CHECK(perch_shared.request.where.stack[9] == 0xffffffff81000009ull);
}

/* An rsp that is no guest address at all: the place, no words. */
static void unreadable_stack_gives_no_words(void)
{
    struct cpu_regs r;

    setup();
    regs_hypercall(&r, HOST_IMAGE_VA);
    CHECK(crash_through_hypercall(&r));
    CHECK(perch_shared.request.where.known == 1);
    CHECK(perch_shared.request.where.rsp == HOST_IMAGE_VA);
    CHECK(perch_shared.request.where.nr_stack == 0);
}

/* A guest exception with no handler: the faulting rip, its stack. */
static void broken_rule_reports_fault_rip(void)
{
    struct cpu_regs r;
    int stopped;

    setup();
    regs_hypercall(&r, STACK_VA + 0x800);
    r.vector = 6;   /* #UD; the empty trap table has no handler */
    stack_words(STACK_VA + 0x800, 3);
    stopped = HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r));
    CHECK(stopped);
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    CHECK(perch_shared.request.where.known == 1);
    CHECK(perch_shared.request.where.rip == RIP);
    CHECK(perch_shared.request.where.stack[2] == 0xffffffff81000002ull);
}

/* In guest-user mode the report says so. */
static void user_mode_reported(void)
{
    struct cpu_regs r;

    setup();
    regs_hypercall(&r, STACK_VA);
    where_entered(&r);
    current->in_kernel = false;
    where_report();
    CHECK(perch_shared.request.where.known == 1);
    CHECK(perch_shared.request.where.kernel == 0);
}

/* Before the guest ever entered (the Host's boot): nothing is known. */
static void nothing_before_the_first_entry(void)
{
    int stopped;

    setup();
    stopped = HOST_ENV_EXPECT_STOP(host_fatal("at boot"));
    CHECK(stopped);
    CHECK(perch_shared.request.where.known == 0);
    CHECK(perch_shared.request.where.nr_stack == 0);
}

int main(void)
{
    RUN(crash_reports_caller_and_stack);
    RUN(stack_stops_at_unmapped_page);
    RUN(unreadable_stack_gives_no_words);
    RUN(broken_rule_reports_fault_rip);
    RUN(user_mode_reported);
    RUN(nothing_before_the_first_entry);
    return check_exit_status();
}
