/*
 * Unit tests of --gdb's Host side (host/entry/gdb.c and its hooks in trap.c and
 * guest_resume.c): without --gdb nothing changes, even with a forged
 * breakpoint table and stop flag; with it the guest stops (a
 * stop with its registers in its slot of the shared page) at a
 * Launcher-asked stop, at gdb's int3 (rip rewound), at the #DB of its
 * step, and after a stepped hypercall; the Launcher's answer is applied
 * as far as the guest may have it.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/version.h"
#include "../../host/core/env.h"
#include "../../host/entry/gdb.h"
#include "../../host/core/guest_mode.h"
#include "../../host/entry/guest_resume.h"

#define FRAMES      32
#define KERNEL_RIP  0xffffffff81234567ull
#define KERNEL_STACK 0xffffffff81400000ull
#define RFLAGS_TF   (1ull << 8)

static struct cpu_regs frame_at(uint64_t rip, uint64_t vector)
{
    struct cpu_regs r;

    memset(&r, 0, sizeof(r));
    r.rip = rip;
    r.rsp = KERNEL_STACK - 64;
    r.cs = FLAT_KERNEL_CS64;
    r.ss = FLAT_KERNEL_SS64;
    r.rflags = 0x202;
    r.vector = vector;
    r.rbx = 0xb0b;
    return r;
}

static void setup(bool enabled)
{
    host_env_reset(FRAMES);
    host_env_map(KERNEL_STACK - 4096, 2, HOST_ENV_RW);
    guest_mode_start(perch_shared.boot.kernel_cr3, false);
    optimizations_off = 0;
    gdb_boot(enabled);
}

/* Run stmt, which must leave for the guest (or stop it for good). */
#define LEAVES(stmt) HOST_ENV_EXPECT_STOP(stmt)

static unsigned gdb_requests(void)
{
    return host_env_gdb_stops;
}

static void answer_step(void)
{
    perch_shared.gdb.cpu[0].resume = PERCH_GDB_STEP;
}

/* gdb's G: new registers, some of which the Host must not take. */
static void answer_new_registers(void)
{
    perch_shared.gdb.cpu[0].regs.rax = 0x1234;
    perch_shared.gdb.cpu[0].regs.rip = PERCH_REGION_VA + 0x100;   /* perch's: refused */
    perch_shared.gdb.cpu[0].regs.rflags = 0x202 | RFLAGS_TF | (3u << 12);
    perch_shared.gdb.cpu[0].regs.cs = 0x10;                       /* the Host's */
    perch_shared.gdb.cpu[0].regs_changed = 1;
}

/* A stop asked for at r, answered with a step: the guest leaves with TF. */
static int begin_step(struct cpu_regs *r)
{
    int left;

    setup(true);
    perch_shared.gdb.cpu[0].stop = 1;
    host_env_gdb_answer = answer_step;
    left = LEAVES(guest_resume(r));
    host_env_gdb_answer = NULL;
    return left;
}

static void without_gdb_nothing_changes(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP + 1, 3);

    setup(false);
    perch_shared.gdb.breakpoints[0] = KERNEL_RIP;   /* forged by the guest */
    perch_shared.gdb.cpu[0].stop = 1;
    /* The guest's own int3 with no handler: stopped as before. */
    CHECK(LEAVES(host_trap(&r)) && host_env_exit_kind == HOST_ENV_EXIT_STOP);
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    current->interrupts_off = false;   /* the stop left the int3's note */
    r = frame_at(KERNEL_RIP, 0);
    CHECK(LEAVES(guest_resume(&r)) && host_env_exit_kind == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(gdb_requests() == 0 && perch_shared.gdb.cpu[0].stop == 1);
}

static void a_stop_asked_for(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP, 0);

    setup(true);
    current->fs_base = 0xf5;
    current->gs_base_kernel = 0x65;
    perch_shared.gdb.cpu[0].stop = 1;
    CHECK(LEAVES(guest_resume(&r)));
    CHECK(gdb_requests() == 1 && host_env_gdb_last_why == PERCH_GDB_STOP_INT);
    CHECK(perch_shared.gdb.cpu[0].stop == 0);
    CHECK(perch_shared.gdb.cpu[0].regs.rip == KERNEL_RIP && perch_shared.gdb.cpu[0].regs.rbx == 0xb0b);
    CHECK(perch_shared.gdb.cpu[0].regs.fs_base == 0xf5 && perch_shared.gdb.cpu[0].regs.gs_base == 0x65);
    CHECK(perch_shared.gdb.cpu[0].regs.kernel_cr3 == current->kernel_cr3);
    CHECK(perch_shared.gdb.cpu[0].regs.in_kernel == 1);
    /* It went on as it would have: natively, nothing changed. */
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(host_env_exit_regs.rip == KERNEL_RIP && host_env_exit_regs.rbx == 0xb0b);
    /* No second stop without a second ask. */
    CHECK(LEAVES(guest_resume(&r)) && gdb_requests() == 1);
}

static void gdbs_breakpoint_stops_the_guests_bounces(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP + 1, 3);

    setup(true);
    perch_shared.gdb.breakpoints[5] = KERNEL_RIP;
    CHECK(LEAVES(host_trap(&r)));
    CHECK(gdb_requests() == 1 && host_env_gdb_last_why == PERCH_GDB_STOP_BREAKPOINT);
    CHECK(perch_shared.gdb.cpu[0].regs.rip == KERNEL_RIP);          /* rewound */
    CHECK(host_env_exit_regs.rip == KERNEL_RIP);
    /* The Switcher's int3 ran the Host with IF off: back through ring 0. */
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RESUME);
    /* An int3 that is not gdb's is the guest's own. */
    setup(true);
    perch_shared.gdb.breakpoints[5] = KERNEL_RIP + 0x10;
    r = frame_at(KERNEL_RIP + 1, 3);
    CHECK(LEAVES(host_trap(&r)) && gdb_requests() == 0);
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    /* A free slot (0) is no breakpoint at address 0. */
    setup(true);
    r = frame_at(1, 3);
    CHECK(LEAVES(host_trap(&r)) && gdb_requests() == 0);
}

static void a_step(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP, 0);

    CHECK(begin_step(&r));
    /* TF, and through an iretq: a popf would trap in the Host. */
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RESUME);
    CHECK(host_env_exit_regs.rflags & RFLAGS_TF);
    /* The step's #DB, at the next instruction, through its DPL3 gate. */
    r = host_env_exit_regs;
    r.rip = KERNEL_RIP + 3;
    r.vector = 1;
    CHECK(LEAVES(host_trap_cpl3(&r)));
    CHECK(gdb_requests() == 2 && host_env_gdb_last_why == PERCH_GDB_STOP_TRAP);
    CHECK(perch_shared.gdb.cpu[0].regs.rip == KERNEL_RIP + 3);
    CHECK(!(perch_shared.gdb.cpu[0].regs.rflags & RFLAGS_TF));
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(!(host_env_exit_regs.rflags & RFLAGS_TF));
    /* A #DB when gdb does not step is the guest's (no handler: stopped). */
    r = frame_at(KERNEL_RIP, 1);
    CHECK(LEAVES(host_trap_cpl3(&r)) && gdb_requests() == 2);
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
}

/* A step the Host finished itself (an emulated instruction, a trapped
 * page-table store) or that was sent to a handler never sees its #DB: it
 * is over where the guest comes back; at the same rip (an interrupt came
 * first) it goes on. */
static void a_step_the_host_finished(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP, 0);

    CHECK(begin_step(&r) && gdb_requests() == 1);
    r = frame_at(KERNEL_RIP, 0);          /* an interrupt before it ran */
    CHECK(LEAVES(guest_resume(&r)) && gdb_requests() == 1);
    CHECK(host_env_exit_regs.rflags & RFLAGS_TF);
    r = frame_at(KERNEL_RIP + 3, 0);      /* emulated: rip past it */
    CHECK(LEAVES(guest_resume(&r)) && gdb_requests() == 2);
    CHECK(host_env_gdb_last_why == PERCH_GDB_STOP_TRAP);
    CHECK(perch_shared.gdb.cpu[0].regs.rip == KERNEL_RIP + 3);
    CHECK(!(host_env_exit_regs.rflags & RFLAGS_TF));
}

static void the_launchers_registers_as_far_as_the_guest_may(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP, 0);

    setup(true);
    perch_shared.gdb.cpu[0].stop = 1;
    host_env_gdb_answer = answer_new_registers;
    CHECK(LEAVES(guest_resume(&r)));
    CHECK(host_env_exit_regs.rax == 0x1234);
    CHECK(host_env_exit_regs.rip == KERNEL_RIP);
    CHECK(host_env_exit_regs.cs == FLAT_KERNEL_CS64);
    CHECK((host_env_exit_regs.rflags & (RFLAGS_TF | (3u << 12))) == 0);
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RETURN_NATIVE);
}

/* The step of `syscall` traps after the Host entry's first instruction
 * (PVM): the hypercall is made, and the guest stops after it. */
static void a_stepped_hypercall(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP, 0);

    CHECK(begin_step(&r));
    r = host_env_exit_regs;
    r.rcx = KERNEL_RIP + 2;               /* after the syscall */
    r.r11 = r.rflags;                     /* TF included */
    r.rax = HYPERVISOR_xen_version;
    r.rdi = XENVER_version;
    r.rip = host_env_syscall_entry + 1;   /* after the entry's nop */
    r.vector = 1;
    CHECK(LEAVES(host_trap_cpl3(&r)));
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_xen_version] == 1);
    CHECK(gdb_requests() == 2 && host_env_gdb_last_why == PERCH_GDB_STOP_TRAP);
    CHECK(perch_shared.gdb.cpu[0].regs.rip == KERNEL_RIP + 2);
    CHECK(perch_shared.gdb.cpu[0].regs.rax != HYPERVISOR_xen_version);   /* the result */
    CHECK(!(perch_shared.gdb.cpu[0].regs.r11 & RFLAGS_TF));
    CHECK(host_env_exit_regs.rip == KERNEL_RIP + 2);
    CHECK(!(host_env_exit_regs.rflags & RFLAGS_TF));
}

/* Any other #DB in perch's code, stepping or not, is perch's own fault. */
static void a_debug_trap_in_the_host_is_perchs(void)
{
    struct cpu_regs r = frame_at(KERNEL_RIP, 0);

    CHECK(begin_step(&r));
    r = frame_at(host_env_syscall_entry + 0x40, 1);
    CHECK(LEAVES(host_trap_cpl3(&r)) && gdb_requests() == 1);
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    CHECK_CONTAINS(host_env_last_request()->message, "perch Host fault");
}

int main(void)
{
    RUN(without_gdb_nothing_changes);
    RUN(a_stop_asked_for);
    RUN(gdbs_breakpoint_stops_the_guests_bounces);
    RUN(a_step);
    RUN(a_step_the_host_finished);
    RUN(the_launchers_registers_as_far_as_the_guest_may);
    RUN(a_stepped_hypercall);
    RUN(a_debug_trap_in_the_host_is_perchs);
    return check_exit_status();
}
