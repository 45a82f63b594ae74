/*
 * Unit tests of direct calls (host/cpu/direct_calls.c, host/entry/hypercall.c):
 * Linux's xen_hypercall_pv and xen_iret are patched into jumps to the Host
 * only when their bytes are exactly Linux's; a hypercall through the patch
 * returns to its caller with every register but rax kept; an iret through
 * it becomes its frame, rax, rcx and r11 taken from the registers; the
 * entry's #UD (no vCPU owned the GS base) serves the call the same way.
 * Hostile entries (a stack that cannot be read or written, guest user)
 * stop the guest with one line.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/version.h"
#include "../../host/core/entry.h"
#include "../../host/cpu/direct_calls.h"
#include "../../host/mm/mm.h"
#include "../../host/core/vcpu.h"
#include "../../host/core/where.h"
#include "../../host/entry/guest_resume.h"
#include "../../launcher/boot/domain.h"

#define FRAMES       512
#define GUEST_BASE   64
#define CODE_MFN     100
#define STACK_MFN    140
#define PAGE_MFN     101              /* an older kernel's hypercall page */
#define PAGE_VA      (CODE_VA + 0x1000)
#define CODE_VA      0xffffffff81000000ull
#define HYPERCALL_VA (CODE_VA + 0x3b8)
#define IRET_VA      (CODE_VA + 0x140)
#define STACK_VA     0xffffffff81400000ull
#define RSP          (STACK_VA + 0x800)
#define RET_RIP      (CODE_VA + 0x777)
#define RAX_VALUE    0x1234ull
#define RCX_VALUE    0x1111222233334444ull
#define R11_VALUE    0x5555666677778888ull
#define LINUX_KERNEL_CS 0x10           /* RPL 0 in the frame: back to the kernel */
#define LINUX_KERNEL_SS 0x18

static const uint8_t linux_hypercall[13] = {
    0x51, 0x41, 0x53, 0x0f, 0x05, 0x41, 0x5b, 0x59, 0xe9, 0x43, 0xdb, 0x3f, 0x00,
};
static const uint8_t linux_iret[16] = {
    0x6a, 0x00, 0x51, 0x41, 0x53, 0x50, 0xb8, 0x17, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xcc, 0x66, 0x90,
};

static struct mm_frame_info frame_table[FRAMES];

static uint8_t *text(uint64_t va)
{
    return (uint8_t *)host_env_frame(CODE_MFN) + (va - CODE_VA);
}

static uint64_t *stack(uint64_t va)
{
    return (uint64_t *)((uint8_t *)host_env_frame(STACK_MFN) + (va - STACK_VA));
}

static void setup(void)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FRAMES - GUEST_BASE;
    memset(frame_table, 0, sizeof(frame_table));
    mm_frames = frame_table;
    mm_shared_info_mfn = INVALID_MFN;
    optimizations_off = 0;
    host_env_map(CODE_VA, CODE_MFN, HOST_ENV_RW);   /* the kernel's text at boot */
    host_env_map(STACK_VA, STACK_MFN, HOST_ENV_RW);
    memcpy(text(HYPERCALL_VA), linux_hypercall, sizeof(linux_hypercall));
    memcpy(text(IRET_VA), linux_iret, sizeof(linux_iret));
    perch_shared.boot.hypercall_func = HYPERCALL_VA;
    perch_shared.boot.iret_func = IRET_VA;
    current->loaded_cr3 = current->kernel_cr3;   /* the kernel's tables loaded */
}

/* ---- What is patched, into what ------------------------------------------ */

static void linux_functions_become_jumps(void)
{
    static const uint8_t iret_want[8] = { 0x6a, 0x00, 0xff, 0x25, 0, 0, 0, 0 };
    uint8_t hypercall_want[8] = { 0x6a, 0xff, 0xff, 0x25 };
    int32_t disp = (int32_t)((IRET_VA + 8) - (HYPERCALL_VA + 8));
    uint64_t pointer;

    setup();
    memcpy(hypercall_want + 4, &disp, 4);
    CHECK(direct_calls_install(HOST_ENV_DIRECT_ENTRY, false) == PERCH_DIRECT_ACTIVE);
    CHECK(perch_shared.stats.direct_state == PERCH_DIRECT_ACTIVE);
    CHECK(!memcmp(text(IRET_VA), iret_want, 8));
    memcpy(&pointer, text(IRET_VA + 8), 8);
    CHECK(pointer == HOST_ENV_DIRECT_ENTRY);
    CHECK(!memcmp(text(HYPERCALL_VA), hypercall_want, 8));
    /* The hypercall's return (Linux rewrites it at boot) is left alone. */
    CHECK(!memcmp(text(HYPERCALL_VA + 8), linux_hypercall + 8, 5));
}

static enum perch_direct_state installed(void)
{
    return direct_calls_install(HOST_ENV_DIRECT_ENTRY, false);
}

static void anything_else_stays_as_it_is(void)
{
    setup();
    optimizations_off = PERCH_OPT_DIRECT_CALLS;
    CHECK(installed() == PERCH_DIRECT_OFF);
    CHECK(!memcmp(text(IRET_VA), linux_iret, 16) && !memcmp(text(HYPERCALL_VA), linux_hypercall, 13));

    setup();
    CHECK(direct_calls_install(HOST_ENV_DIRECT_ENTRY, true) == PERCH_DIRECT_GDB);
    CHECK(!memcmp(text(IRET_VA), linux_iret, 16));

    setup();
    perch_shared.boot.iret_func = 0;
    CHECK(installed() == PERCH_DIRECT_NONE);
    CHECK(!memcmp(text(HYPERCALL_VA), linux_hypercall, 13));

    setup();
    text(HYPERCALL_VA)[4] = 0x0b;      /* not Linux's bytes */
    CHECK(installed() == PERCH_DIRECT_UNKNOWN_CODE);
    CHECK(!memcmp(text(IRET_VA), linux_iret, 16));

    setup();
    text(IRET_VA)[14] = 0x41;          /* code, not alignment, after xen_iret */
    CHECK(installed() == PERCH_DIRECT_UNKNOWN_CODE);
    CHECK(!memcmp(text(HYPERCALL_VA), linux_hypercall, 13));

    setup();
    memcpy(text(CODE_VA + 0xff8), linux_iret, 8);   /* xen_iret across a page */
    perch_shared.boot.iret_func = CODE_VA + 0xff8;
    CHECK(installed() == PERCH_DIRECT_UNKNOWN_CODE);

    setup();
    perch_shared.boot.hypercall_func = STACK_VA + 0x100;   /* nothing Linux's there */
    CHECK(installed() == PERCH_DIRECT_UNKNOWN_CODE);
}

/* An older kernel's hypercall page, as the Launcher fills it; no
 * xen_hypercall_pv or xen_iret unless asked. */
static uint8_t *hypercall_page(bool functions_too)
{
    setup();
    host_env_map(PAGE_VA, PAGE_MFN, HOST_ENV_RW);
    domain_fill_hypercall_page(text(PAGE_VA));
    perch_shared.boot.hypercall_page = PAGE_VA;
    if (!functions_too)
        perch_shared.boot.hypercall_func = perch_shared.boot.iret_func = 0;
    return text(PAGE_VA);
}

/* Every slot jumps to the Host: a hypercall's with the marker pushed and
 * its number in eax, the iret's alone (its caller pushed the flags); the
 * Host's address in the slot's last 8 bytes. */
static void hypercall_page_slots_become_jumps(void)
{
    static const uint8_t version_want[13] = { 0x6a, 0xff, 0xb8, 17, 0, 0, 0,
                                              0xff, 0x25, 11, 0, 0, 0 };
    static const uint8_t iret_want[6] = { 0xff, 0x25, 18, 0, 0, 0 };
    uint8_t *page = hypercall_page(false);
    uint64_t pointer;

    CHECK(installed() == PERCH_DIRECT_PAGE);
    CHECK(!memcmp(page + 17 * 32, version_want, sizeof(version_want)));
    CHECK(!memcmp(page + 23 * 32, iret_want, sizeof(iret_want)));
    for (unsigned nr = 0; nr < 128; nr++) {
        memcpy(&pointer, page + nr * 32 + 24, 8);
        CHECK(pointer == HOST_ENV_DIRECT_ENTRY);
        CHECK(page[nr * 32 + (nr == 23 ? 6 : 13)] == 0xcc);
    }
    /* With Linux 6.1's functions too, both are patched. */
    page = hypercall_page(true);
    CHECK(installed() == PERCH_DIRECT_ACTIVE);
    CHECK(!memcmp(page + 17 * 32, version_want, sizeof(version_want)));
    CHECK(text(HYPERCALL_VA)[0] == 0x6a && text(HYPERCALL_VA)[1] == 0xff);
}

/* A page that is not the Launcher's stubs, --trap-hypercalls and --gdb
 * leave it as it is. */
static void hypercall_page_left_as_it_is(void)
{
    uint8_t stubs[4096], *page = hypercall_page(false);

    memcpy(stubs, page, sizeof(stubs));
    page[40 * 32 + 4] = 41;            /* slot 40 says mov $41 */
    CHECK(installed() == PERCH_DIRECT_UNKNOWN_CODE);
    stubs[40 * 32 + 4] = 41;
    CHECK(!memcmp(page, stubs, sizeof(stubs)));

    page = hypercall_page(false);
    memcpy(stubs, page, sizeof(stubs));
    optimizations_off = PERCH_OPT_DIRECT_CALLS;
    CHECK(installed() == PERCH_DIRECT_OFF && !memcmp(page, stubs, sizeof(stubs)));
    optimizations_off = 0;
    CHECK(direct_calls_install(HOST_ENV_DIRECT_ENTRY, true) == PERCH_DIRECT_GDB);
    CHECK(!memcmp(page, stubs, sizeof(stubs)));
}

/* ---- Calls through the entry ----------------------------------------------- */

/* The guest's stack as the direct entry leaves it: rcx and rax below rsp,
 * the pushed word at rsp, then `above` (up to five words). */
static struct cpu_regs at_entry(uint64_t word, const uint64_t *above, unsigned n)
{
    struct cpu_regs r;

    memset(&r, 0, sizeof(r));
    *stack(RSP - 16) = RCX_VALUE;
    *stack(RSP - 8) = RAX_VALUE;
    *stack(RSP) = word;
    memcpy(stack(RSP + 8), above, n * 8);
    r.rsp = RSP;
    r.rax = HOST_IMAGE_VA;              /* the entry's own use of them */
    r.rcx = 0x42;
    r.r11 = R11_VALUE;
    r.rflags = 0x202;
    r.cs = FLAT_KERNEL_CS64;
    r.ss = FLAT_KERNEL_SS64;
    return r;
}

/* xen_version(XENVER_version) through the patched xen_hypercall_pv,
 * returning to RET_RIP. */
static struct cpu_regs at_entry_xen_version(void)
{
    uint64_t ret = RET_RIP;
    struct cpu_regs r = at_entry(DIRECT_CALL_HYPERCALL, &ret, 1);

    *stack(RSP - 8) = HYPERVISOR_xen_version;
    r.rdi = XENVER_version;
    return r;
}

static void hypercall_returns_to_its_caller(void)
{
    struct cpu_regs r;

    setup();
    r = at_entry_xen_version();
    CHECK(HOST_ENV_EXPECT_STOP(host_direct_call(&r)));
    CHECK(host_env_exit_kind == HOST_ENV_EXIT_RETURN_NATIVE);
    CHECK(host_env_exit_regs.rip == RET_RIP && host_env_exit_regs.rsp == RSP + 16);
    CHECK(host_env_exit_regs.rax == (uint64_t)do_xen_version(XENVER_version, 0, 0, 0, 0));
    CHECK(host_env_exit_regs.rcx == RCX_VALUE && host_env_exit_regs.r11 == R11_VALUE);
    CHECK(perch_shared.stats.direct_calls == 1 && perch_shared.vcpu_stats[0].direct_calls == 1);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_xen_version] == 1);
    CHECK(where_last.rip == RET_RIP && where_last.rsp == RSP + 16);
    CHECK(current->lock_levels == 0);
}

static void iret_becomes_its_frame(uint64_t flags)
{
    const uint64_t frame[5] = { RET_RIP, LINUX_KERNEL_CS, 0x283, STACK_VA + 0x900,
                                LINUX_KERNEL_SS };
    struct cpu_regs r;

    setup();
    r = at_entry(flags, frame, 5);
    CHECK(HOST_ENV_EXPECT_STOP(host_direct_call(&r)));
    CHECK(host_env_exit_regs.rip == RET_RIP && host_env_exit_regs.rsp == STACK_VA + 0x900);
    CHECK(host_env_exit_regs.rax == RAX_VALUE);
    CHECK(host_env_exit_regs.rcx == (flags ? RET_RIP : RCX_VALUE));
    CHECK(host_env_exit_regs.r11 == (flags ? 0x283 : R11_VALUE));
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_iret] == 1);
    CHECK(perch_shared.stats.direct_calls == 1 && current->lock_levels == 0);
}

static void iret_with_and_without_syscall_flag(void)
{
    iret_becomes_its_frame(0);
    iret_becomes_its_frame(VGCF_in_syscall);
}

/* No vCPU owned the GS base: the entry's ud2, whose #UD serves the call. */
static void unsure_entry_serves_by_its_ud(void)
{
    struct cpu_regs r;

    setup();
    r = at_entry_xen_version();
    r.rip = HOST_ENV_DIRECT_ENTRY + HOST_ENV_DIRECT_UNSURE;
    r.vector = 6;
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));
    CHECK(host_env_nr_requests == 0);
    CHECK(host_env_exit_regs.rip == RET_RIP && host_env_exit_regs.rcx == RCX_VALUE);
    CHECK(perch_shared.stats.syscalls_redirected == 1 && perch_shared.stats.direct_calls == 1);
    CHECK(current->lock_levels == 0);
}

/* Each vCPU's GS base on its way out is how the entry finds it; a base
 * another vCPU already holds is noted as none (both would share a stack). */
static bool resumed_with_gs(uint64_t gs, uint64_t other_vcpus_gs)
{
    struct cpu_regs r;

    setup();
    host_nr_vcpus = 2;
    host_cpu(1)->entry_gs = other_vcpus_gs;
    host_env_gs_base = gs;
    r = at_entry_xen_version();
    if (!HOST_ENV_EXPECT_STOP(host_direct_call(&r)))
        return false;
    return this_cpu()->entry_gs == gs;
}

static void a_gs_base_is_one_vcpus_only(void)
{
    CHECK(resumed_with_gs(0xffff888000010000ull, 0xffff888000020000ull));
    CHECK(!resumed_with_gs(0xffff888000010000ull, 0xffff888000010000ull));
    CHECK(this_cpu()->entry_gs == ENTRY_GS_NONE);
}

/* ---- Hostile entries ---------------------------------------------------------- */

static void stopped_with(struct cpu_regs *r, const char *why)
{
    CHECK(HOST_ENV_EXPECT_STOP(host_direct_call(r)));
    CHECK(host_env_nr_requests == 1 && host_env_log[0].reason == PERCH_REQ_FATAL);
    CHECK_CONTAINS(host_env_log[0].message, why);
}

static void unreadable_stack_stops_the_guest(void)
{
    uint64_t ret = RET_RIP;
    struct cpu_regs r;

    setup();
    r = at_entry(DIRECT_CALL_HYPERCALL, &ret, 1);
    r.rsp = 0xffffffff89000000ull;      /* mapped nowhere */
    stopped_with(&r, "where no frame can be read");
    setup();
    r = at_entry(0, &ret, 1);
    r.rsp = STACK_VA + 4096 - 24;       /* an iret frame running off the stack's page */
    *stack(r.rsp - 16) = RCX_VALUE;
    stopped_with(&r, "iret: the frame at rsp");
}

static void guest_user_in_the_entry_stops_the_guest(void)
{
    uint64_t ret = RET_RIP;
    struct cpu_regs r;

    setup();
    r = at_entry(DIRECT_CALL_HYPERCALL, &ret, 1);
    current->in_kernel = false;
    stopped_with(&r, "guest user mode jumped to the Host's direct entry");
    CHECK(perch_shared.stats.direct_calls == 0);
}

/* The entry's first stores fault on a stack the guest cannot write. */
static void unwritable_stack_fault_names_the_entry(void)
{
    struct cpu_regs r;

    setup();
    memset(&r, 0, sizeof(r));
    r.rip = HOST_ENV_DIRECT_ENTRY;
    r.rsp = 0x1000;
    r.cs = FLAT_KERNEL_CS64;
    r.vector = 14;
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));
    CHECK(host_env_nr_requests == 1);
    CHECK_CONTAINS(host_env_log[0].message, "direct entry with rsp 1000, which it cannot write");
}

int main(void)
{
    RUN(linux_functions_become_jumps);
    RUN(anything_else_stays_as_it_is);
    RUN(hypercall_page_slots_become_jumps);
    RUN(hypercall_page_left_as_it_is);
    RUN(hypercall_returns_to_its_caller);
    RUN(iret_with_and_without_syscall_flag);
    RUN(unsure_entry_serves_by_its_ud);
    RUN(a_gs_base_is_one_vcpus_only);
    RUN(unreadable_stack_stops_the_guest);
    RUN(guest_user_in_the_entry_stops_the_guest);
    RUN(unwritable_stack_fault_names_the_entry);
    return check_exit_status();
}
