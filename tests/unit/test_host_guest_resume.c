/*
 * Unit tests of the way back to the guest (host/entry/guest_resume.c) and of the
 * entries that reach it without ring 0 (host/entry/trap.c's CPL3 entries, and a
 * guest-user `syscall` without guest isolation in host/entry/hypercall.c): which
 * of the three exits each situation takes, and what it costs.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/core/guest_mode.h"
#include "../../host/entry/guest_resume.h"

#define FRAMES      32
#define KERNEL_RIP  0xffffffff81234567ull
#define KERNEL_STACK 0xffffffff81400000ull
#define USER_RIP    0x401000ull
#define USER_RSP    0x7ffffff000ull
#define CALLBACK    0xffffffff81100000ull
#define USER_CR3    (20ull << 12)

static struct cpu_regs frame_at(uint64_t rip, uint64_t rsp, uint64_t vector)
{
    struct cpu_regs r;

    memset(&r, 0, sizeof(r));
    r.rip = rip;
    r.rsp = rsp;
    r.cs = FLAT_KERNEL_CS64;
    r.ss = FLAT_KERNEL_SS64;
    r.rflags = 0x202;
    r.vector = vector;
    return r;
}

/* A guest kernel with a stack page, its L4 loaded, in kernel mode. */
static void setup(bool isolation_off)
{
    host_env_reset(FRAMES);
    host_env_map(KERNEL_STACK - 4096, 2, HOST_ENV_RW);
    memset(current, 0, sizeof(*current));
    guest_mode_start(perch_shared.boot.kernel_cr3, isolation_off);
    current->user_cr3 = USER_CR3;
    current->kernel_sp = KERNEL_STACK;
    current->syscall_callback = CALLBACK;
    optimizations_off = 0;
}

static enum host_env_exit resume(struct cpu_regs r)
{
    if (!HOST_ENV_EXPECT_STOP(guest_resume(&r)))
        return HOST_ENV_EXIT_NONE;
    return host_env_exit_kind;
}

static void a_kernel_frame_returns_natively(void)
{
    setup(false);
    CHECK(resume(frame_at(KERNEL_RIP, KERNEL_STACK, 0)) == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_RESUME] == 0);
}

static void interrupts_off_come_back_on_through_resume(void)
{
    setup(false);
    guest_resume_needs_interrupts_on();
    CHECK(resume(frame_at(KERNEL_RIP, KERNEL_STACK, 0)) == HOST_ENV_EXIT_RESUME);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_RESUME] == 1);
    CHECK(resume(frame_at(KERNEL_RIP, KERNEL_STACK, 0)) == HOST_ENV_EXIT_RETURN_NATIVE);
}

static void a_pending_flush_loads_the_kernel_cr3(void)
{
    setup(false);
    current->pending = PENDING_TLB_FLUSH;
    current->tlb_stale = true;
    CHECK(resume(frame_at(KERNEL_RIP, KERNEL_STACK, 0)) == HOST_ENV_EXIT_RESUME_CR3);
    CHECK(host_env_exit_cr3 == current->kernel_cr3);
    CHECK(current->pending == 0 && !current->tlb_stale);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_CR3] == 1);
    CHECK(perch_shared.stats.cr3_loads[PERCH_CR3_FLUSH] == 1);
}

static void a_new_kernel_base_is_loaded_once(void)
{
    setup(false);
    current->kernel_cr3 = 21ull << 12;
    CHECK(resume(frame_at(KERNEL_RIP, KERNEL_STACK, 0)) == HOST_ENV_EXIT_RESUME_CR3);
    CHECK(host_env_exit_cr3 == 21ull << 12);
    CHECK(perch_shared.stats.cr3_loads[PERCH_CR3_KERNEL_TABLES] == 1);
    CHECK(resume(frame_at(KERNEL_RIP, KERNEL_STACK, 0)) == HOST_ENV_EXIT_RETURN_NATIVE);
}

static void isolated_user_is_entered_through_its_own_cr3(void)
{
    setup(false);
    guest_enter_user();
    CHECK(resume(frame_at(USER_RIP, USER_RSP, 0)) == HOST_ENV_EXIT_RESUME_CR3);
    CHECK(host_env_exit_cr3 == USER_CR3);
    CHECK(perch_shared.stats.cr3_loads[PERCH_CR3_TO_USER] == 1);
}

static void without_isolation_user_returns_natively(void)
{
    setup(true);
    guest_enter_user();
    CHECK(resume(frame_at(USER_RIP, USER_RSP, 0)) == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(perch_shared.stats.visits[PERCH_VISIT_SERVICE_CR3] == 0);
    current->pending = PENDING_TLB_FLUSH;
    CHECK(resume(frame_at(USER_RIP, USER_RSP, 0)) == HOST_ENV_EXIT_RESUME_CR3);
    CHECK(host_env_exit_cr3 == current->kernel_cr3);   /* never the user L4 */
}

/* Without isolation a guest-user `syscall` lands in host_hypercall: it is
 * the kernel's syscall callback that runs next, with Xen's frame, and no
 * ring 0 on the way. */
static void without_isolation_a_user_syscall_bounces_with_no_visit(void)
{
    struct cpu_regs r;
    uint64_t frame[2];

    setup(true);
    guest_enter_user();
    r = frame_at(USER_RIP + 2, USER_RSP, PERCH_VECTOR_SYSCALL);
    r.rax = 39;              /* getpid: a system call, not a hypercall */
    r.rcx = USER_RIP + 2;
    r.r11 = 0x246;
    CHECK(HOST_ENV_EXPECT_STOP(host_hypercall(&r)));
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(host_env_exit_regs.rip == CALLBACK && host_env_exit_regs.rax == 39);
    CHECK(current->in_kernel);
    CHECK(copy_from_guest(frame, host_env_exit_regs.rsp, sizeof(frame)) == 0);
    CHECK(frame[0] == USER_RIP + 2 && frame[1] == 0x246);   /* rcx, r11 */
    CHECK(perch_shared.stats.cpl3_user_syscalls == 1);
    CHECK(perch_shared.stats.hypercalls[39] == 0);
}

/* An interrupt through a DPL3 gate that finds the Host at work goes back to
 * it untouched, through RESUME (native_rip may be in use); one that finds
 * the guest returns natively: the interrupt flag never went off. */
static void a_cpl3_interrupt_in_the_host_resumes_it(void)
{
    struct cpu_regs r;

    setup(false);
    r = frame_at(HOST_IMAGE_VA + 0x1234, HOST_IMAGE_VA + 0x8000, PERCH_BACKEND_VECTOR);
    CHECK(HOST_ENV_EXPECT_STOP(host_interrupt_cpl3(&r)));
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RESUME);
    CHECK(host_env_exit_regs.rip == HOST_IMAGE_VA + 0x1234);
    CHECK(perch_shared.stats.cpl3_vectors[PERCH_BACKEND_VECTOR] == 1);
    CHECK(perch_shared.stats.vectors[PERCH_BACKEND_VECTOR] == 0);
}

/* Its gate turned IF off (the local APIC holds no second interrupt back
 * while the first's frame is on the IST page): only ring 0 turns it on. */
static void a_cpl3_interrupt_in_the_guest_resumes_through_ring0(void)
{
    struct cpu_regs r;

    setup(false);
    r = frame_at(KERNEL_RIP, KERNEL_STACK, PERCH_BACKEND_VECTOR);
    CHECK(HOST_ENV_EXPECT_STOP(host_interrupt_cpl3(&r)));
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RESUME);
    CHECK(host_env_exit_regs.rip == KERNEL_RIP);
}

int main(void)
{
    RUN(a_kernel_frame_returns_natively);
    RUN(interrupts_off_come_back_on_through_resume);
    RUN(a_pending_flush_loads_the_kernel_cr3);
    RUN(a_new_kernel_base_is_loaded_once);
    RUN(isolated_user_is_entered_through_its_own_cr3);
    RUN(without_isolation_user_returns_natively);
    RUN(without_isolation_a_user_syscall_bounces_with_no_visit);
    RUN(a_cpl3_interrupt_in_the_host_resumes_it);
    RUN(a_cpl3_interrupt_in_the_guest_resumes_through_ring0);
    return check_exit_status();
}
