/*
 * Unit tests of patching trapped page-table stores (host/cpu/insn_patch.c) and
 * of the r11 scan that allows 3-byte patches (host/x86/insn_liveness.c): which
 * sites are patched into what, a store through the patch restores every
 * register and does the store, and the guest's own bytes come back when
 * its text is mapped writable or the store turns out to target something
 * else. Hostile entries stop the guest or are not patches.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/x86/insn_liveness.h"
#include "../../host/cpu/insn_patch.h"
#include "../../host/mm/mm.h"
#include "../../host/core/vcpu.h"

#define FRAMES     512
#define GUEST_BASE 64
#define CODE_MFN   100              /* two pages of kernel text */
#define PT_MFN     120              /* the L1 table the guest stores into */
#define DATA_MFN   130
#define STACK_MFN  140
#define JUMPS_MFN  150              /* the kernel's jump-label table */
#define CODE_VA    0xffffffff81000000ull
#define THUNK_VA   (CODE_VA + 0x1800)
#define PT_VA      0xffffffff81200000ull
#define DATA_VA    0xffffffff81300000ull
#define STACK_VA   0xffffffff81400000ull
#define JUMPS_VA   0xffffffff81500000ull
#define SLOT       3
#define FAULT      (PT_VA + SLOT * 8)
#define OLD        ((DATA_MFN << 12) | PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define PF_W       7
#define RCX_VALUE  0x1111222233334444ull
#define R11_VALUE  0x5555666677778888ull
#define FLAGS      0x246ull

static struct mm_frame_info frame_table[FRAMES];
static struct cpu_regs regs;

static uint64_t *pte(void)
{
    return (uint64_t *)host_env_frame(PT_MFN) + SLOT;
}

static uint8_t *text(uint64_t va)
{
    return (uint8_t *)host_env_frame(CODE_MFN) + (va - CODE_VA);
}

static struct perch_patch_site *site(unsigned i)
{
    return &perch_shared.stats.patch_sites[i];
}

static long setup(void)
{
    long rc;

    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FRAMES - GUEST_BASE;
    perch_shared.boot.kernel_text_start = CODE_VA;
    perch_shared.boot.kernel_text_end = CODE_VA + 0x2000;
    perch_shared.boot.kernel_symbols = PERCH_SYMBOLS_READ;
    perch_shared.boot.r11_readers[0] = THUNK_VA;
    memset(frame_table, 0, sizeof(frame_table));
    mm_frames = frame_table;
    mm_strict = false;
    mm_shared_info_mfn = INVALID_MFN;
    optimizations_off = 0;
    vm_assist_enabled = 1ull << VMASST_TYPE_writable_pagetables;
    host_env_map_range(CODE_VA, CODE_MFN, 2, HOST_ENV_RO);
    host_env_map(PT_VA, PT_MFN, HOST_ENV_RO);
    host_env_map(DATA_VA, DATA_MFN, HOST_ENV_RW);
    host_env_map(STACK_VA, STACK_MFN, HOST_ENV_RW);
    host_env_map(JUMPS_VA, JUMPS_MFN, HOST_ENV_RO);
    perch_shared.boot.jump_table_start = perch_shared.boot.jump_table_end = JUMPS_VA;
    *pte() = OLD;
    rc = mm_boot();
    if (!rc)
        rc = mm_pin(PT_MFN, MM_L1);
    memset(&regs, 0, sizeof(regs));
    regs.rflags = 0x202;
    return rc;
}

/* The store `code` (len bytes, then `after`) at va traps and is emulated;
 * returns whether ptwr took it. */
static bool trap_at(uint64_t va, const uint8_t *code, size_t len, const uint8_t *after,
                    size_t after_len)
{
    uint64_t rip = va;

    memcpy(text(va), code, len);
    memcpy(text(va) + len, after, after_len);
    regs.rip = va;
    regs.rdx = FAULT;
    if (ptwr_emulate(&regs, FAULT, PF_W))
        return false;
    insn_patch_trapped(rip, (unsigned)(regs.rip - rip));
    return true;
}

static const uint8_t lock_btr[6] = { 0xf0, 0x48, 0x0f, 0xba, 0x32, 0x01 };  /* lock btrq $1,(%rdx) */
static const uint8_t xchg_rbx[3] = { 0x48, 0x87, 0x1a };                    /* xchg %rbx,(%rdx) */
static const uint8_t ret[1] = { 0xc3 };

/* The CPU's state at the Host's entry from a patch: rcx, then (saving
 * both) r11 pushed, `syscall` made. */
static void enter_patch(uint64_t return_rip, bool both)
{
    uint64_t *stack = (uint64_t *)host_env_frame(STACK_MFN);

    stack[510] = both ? R11_VALUE : RCX_VALUE;
    stack[511] = RCX_VALUE;
    regs.rsp = STACK_VA + (both ? 510 : 511) * 8;
    regs.rcx = return_rip;
    regs.r11 = FLAGS;
    regs.rip = 0;                     /* the Host's own entry: no guest rip */
}

/* ---- Which sites, patched into what ------------------------------------------ */

static void long_store_patched_saving_both(void)
{
    static const uint8_t want[6] = { 0x51, 0x41, 0x53, 0x0f, 0x05, 0xcc };

    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(*pte() == (OLD & ~PTE_RW));
    CHECK(perch_shared.stats.nr_patch_sites == 1);
    CHECK(site(0)->rip == CODE_VA && site(0)->len == 6 && site(0)->traps == 1);
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->patch_len == 5);
    CHECK(!memcmp(text(CODE_VA), want, 6));
    CHECK(!memcmp(site(0)->original, lock_btr, 6));
}

static void store_through_the_patch(void)
{
    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    *pte() = OLD;
    regs.rdx = FAULT;
    enter_patch(CODE_VA + 5, true);
    CHECK(insn_patch_entry(&regs));
    CHECK(*pte() == (OLD & ~PTE_RW));
    CHECK(regs.rip == CODE_VA + 6);
    CHECK(regs.rcx == RCX_VALUE && regs.r11 == R11_VALUE);
    CHECK(regs.rsp == STACK_VA + 512 * 8);
    CHECK(regs.rflags == (FLAGS | 1));            /* CF: the bit was set */
    CHECK(site(0)->calls == 1 && perch_shared.stats.patched_stores == 1);
    CHECK(perch_shared.stats.ptwr_emulations == 1);   /* only the first trapped */
}

/* With direct calls on, five bytes become `call xen_hypercall_pv`, which
 * the direct entry hands over by return address; the syscall road does
 * not take such a patch, and a short site keeps its syscall form. */
#define HYPERCALL_VA (CODE_VA + 0x1000)
static void long_store_patched_into_a_call(void)
{
    static const uint8_t want[6] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00, 0xcc };  /* call +0xffb */
    static const uint8_t short_want[3] = { 0x51, 0x0f, 0x05 };

    CHECK(setup() == 0);
    perch_shared.stats.direct_state = PERCH_DIRECT_ACTIVE;
    perch_shared.boot.hypercall_func = HYPERCALL_VA;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->patch_len == 5 && site(0)->by_call);
    CHECK(!memcmp(text(CODE_VA), want, 6));
    /* the call came: rip its return address, rsp above it, flags the guest's */
    *pte() = OLD;
    regs.rdx = FAULT;
    regs.rcx = RCX_VALUE, regs.r11 = R11_VALUE, regs.rflags = FLAGS;
    regs.rsp = STACK_VA + 512 * 8;
    regs.rip = CODE_VA + 5;
    CHECK(insn_patch_call(&regs));
    CHECK(*pte() == (OLD & ~PTE_RW) && regs.rip == CODE_VA + 6);
    CHECK(regs.rcx == RCX_VALUE && regs.r11 == R11_VALUE && regs.rsp == STACK_VA + 512 * 8);
    CHECK(regs.rflags == (FLAGS | 1));
    CHECK(site(0)->calls == 1 && perch_shared.stats.patched_stores == 1);
    /* the syscall road does not take it; any other return address is a hypercall */
    enter_patch(CODE_VA + 5, true);
    CHECK(!insn_patch_entry(&regs));
    regs.rip = CODE_VA + 4;
    CHECK(!insn_patch_call(&regs));
    /* too short for a call: the syscall form, where r11 is dead after it */
    CHECK(trap_at(CODE_VA + 0x100, xchg_rbx, 3, (const uint8_t *)"\x4d\x31\xdb", 3));
    CHECK(site(1)->patch_len == 3 && !site(1)->by_call);
    CHECK(!memcmp(text(CODE_VA + 0x100), short_want, 3));
}

/* Several vCPUs: each rewrite as Linux's text_poke_bp (the other vCPU
 * made to serialize; here it is in the Host, so no IPI); a vCPU that met
 * the int3 meanwhile goes back to the site; the syscall form is written
 * too; an undo goes by the protocol as well. */
static void several_vcpus_patch_by_text_poke(void)
{
    static const uint8_t want[6] = { 0xe8, 0xfb, 0x0f, 0x00, 0x00, 0xcc };

    CHECK(setup() == 0);
    host_nr_vcpus = 2;
    perch_shared.stats.direct_state = PERCH_DIRECT_ACTIVE;
    perch_shared.boot.hypercall_func = HYPERCALL_VA;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->by_call);
    CHECK(!memcmp(text(CODE_VA), want, 6));
    CHECK(vcpu_of(1)->must_serialize && host_env_ipis == 0);
    regs.rip = CODE_VA + 1;
    CHECK(insn_patch_stray_int3(&regs) && regs.rip == CODE_VA);
    /* an int3 still there, or at no site, is the guest's own */
    text(CODE_VA)[0] = 0xcc;
    regs.rip = CODE_VA + 1;
    CHECK(!insn_patch_stray_int3(&regs) && regs.rip == CODE_VA + 1);
    text(CODE_VA)[0] = want[0];
    regs.rip = CODE_VA + 0x201;
    CHECK(!insn_patch_stray_int3(&regs));
    CHECK(trap_at(CODE_VA + 0x100, xchg_rbx, 3, (const uint8_t *)"\x4d\x31\xdb", 3));
    CHECK(site(1)->state == PERCH_PATCH_ACTIVE && site(1)->patch_len == 3);
    CHECK(!memcmp(text(CODE_VA + 0x100), "\x51\x0f\x05", 3));
    vcpu_of(1)->must_serialize = false;
    insn_patch_frame_writable(CODE_MFN);
    CHECK(!memcmp(text(CODE_VA), lock_btr, 6) && vcpu_of(1)->must_serialize);
    CHECK(!memcmp(text(CODE_VA + 0x100), xchg_rbx, 3));
    host_nr_vcpus = 1;
}

/* An event that stops guest code between a `syscall` patch's instructions
 * puts it back to before the patch: after push %rcx one word, after push
 * %r11 (the 5-byte form) two; anywhere else, nothing. So does an undo in
 * between: the site's record still says where its pushes end. */
static void event_inside_a_syscall_patch_goes_back_to_the_site(void)
{
    const uint64_t site3 = CODE_VA + 0x100, rsp = STACK_VA + 0x800;
    static const struct { uint64_t rip, rsp; } cases[] = {
        { CODE_VA + 1, STACK_VA + 0x808 },     /* after push %rcx */
        { CODE_VA + 3, STACK_VA + 0x810 },     /* after push %r11 */
        { CODE_VA + 0x101, STACK_VA + 0x808 }, /* 3 bytes: after push %rcx */
    };

    CHECK(setup() == 0);
    perch_shared.stats.direct_state = PERCH_DIRECT_OFF;   /* 5 bytes: the syscall form */
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(trap_at(site3, xchg_rbx, 3, ret, 1));
    CHECK(site(0)->patch_len == 5 && !site(0)->by_call && site(1)->patch_len == 3);
    for (unsigned undone = 0; undone < 2; undone++) {
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            regs.rip = cases[i].rip;
            regs.rsp = rsp;
            insn_patch_leave_interior(&regs);
            CHECK(regs.rip == (cases[i].rip < site3 ? CODE_VA : site3));
            CHECK(regs.rsp == cases[i].rsp);
        }
        /* a site's own first byte, the syscall's second, or past the
         * patch: no place between its instructions */
        static const uint64_t elsewhere[] = { CODE_VA, CODE_VA + 2, CODE_VA + 4, CODE_VA + 5,
                                              site3 + 2, site3 + 3 };
        for (unsigned i = 0; i < sizeof(elsewhere) / sizeof(elsewhere[0]); i++) {
            regs.rip = elsewhere[i];
            regs.rsp = rsp;
            insn_patch_leave_interior(&regs);
            CHECK(regs.rip == elsewhere[i] && regs.rsp == rsp);
        }
        insn_patch_frame_writable(CODE_MFN);
        CHECK(site(0)->state == PERCH_PATCH_WAITING && !memcmp(text(CODE_VA), lock_btr, 6));
    }
}

/* With several vCPUs a `syscall` may leave the patch just before another
 * vCPU undoes it: its registers come back from the stack as through the
 * patch, and it goes back to the site instead of doing the store. */
static void syscall_from_an_undone_patch_goes_back_to_the_site(void)
{
    CHECK(setup() == 0);
    host_nr_vcpus = 2;
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->patch_len == 3);
    insn_patch_frame_writable(CODE_MFN);
    CHECK(site(0)->state == PERCH_PATCH_WAITING && !memcmp(text(CODE_VA), xchg_rbx, 3));
    *pte() = OLD;
    regs.rbx = 0;
    enter_patch(CODE_VA + 3, false);
    CHECK(insn_patch_entry(&regs));
    CHECK(regs.rip == CODE_VA && regs.rcx == RCX_VALUE && regs.rflags == FLAGS);
    CHECK(regs.rsp == STACK_VA + 512 * 8);
    CHECK(*pte() == OLD && regs.rbx == 0);   /* nothing stored */
    /* no site ends there: a hypercall */
    enter_patch(CODE_VA + 0x40, false);
    CHECK(!insn_patch_entry(&regs) && regs.rcx == CODE_VA + 0x40);
    host_nr_vcpus = 1;
}

/* Two races with several vCPUs, each served by the site's own record: a
 * call that left the patch just before another vCPU undid it goes back to
 * the site, its registers as they were; a store that faulted just before
 * another vCPU patched its site (ptwr now finds the call there) is done
 * as the original. */
static void several_vcpus_races_at_a_site(void)
{
    CHECK(setup() == 0);
    host_nr_vcpus = 2;
    perch_shared.stats.direct_state = PERCH_DIRECT_ACTIVE;
    perch_shared.boot.hypercall_func = HYPERCALL_VA;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    /* the fault taken on the old bytes, served after the patch was written */
    *pte() = OLD;
    regs.rdx = FAULT;
    regs.rip = CODE_VA;
    CHECK(ptwr_emulate(&regs, FAULT, PF_W) != 0);   /* the call is no store */
    CHECK(insn_patch_fault_at_site(&regs));
    CHECK(*pte() == (OLD & ~PTE_RW) && regs.rip == CODE_VA + 6);
    /* the call in flight while the site was given its bytes back */
    insn_patch_frame_writable(CODE_MFN);
    CHECK(site(0)->state == PERCH_PATCH_WAITING);
    *pte() = OLD;
    regs.rip = CODE_VA + 5;
    regs.rax = 0x1234;
    CHECK(insn_patch_call(&regs) && regs.rip == CODE_VA && regs.rax == 0x1234);
    CHECK(*pte() == OLD);
    /* a fault at a site no longer active is not one of these */
    regs.rip = CODE_VA;
    CHECK(!insn_patch_fault_at_site(&regs));
    /* with one vCPU no call can be in flight: a hypercall */
    host_nr_vcpus = 1;
    regs.rip = CODE_VA + 5;
    CHECK(!insn_patch_call(&regs));
}

/* Without direct calls (--trap-hypercalls, --gdb) five bytes stay the
 * syscall form. */
static void no_call_without_direct_calls(void)
{
    CHECK(setup() == 0);
    perch_shared.stats.direct_state = PERCH_DIRECT_OFF;
    perch_shared.boot.hypercall_func = HYPERCALL_VA;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->patch_len == 5 && !site(0)->by_call && text(CODE_VA)[0] == 0x51);
}

static void short_store_with_r11_dead_saves_rcx(void)
{
    static const uint8_t want[3] = { 0x51, 0x0f, 0x05 };

    CHECK(setup() == 0);
    regs.rbx = 0;
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, ret, 1));
    CHECK(*pte() == 0 && regs.rbx == OLD);
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->patch_len == 3);
    CHECK(!memcmp(text(CODE_VA), want, 3));
    /* And through it: rcx from the stack, r11 given up. */
    *pte() = OLD;
    regs.rbx = 0;
    regs.rdx = FAULT;
    enter_patch(CODE_VA + 3, false);
    CHECK(insn_patch_entry(&regs));
    CHECK(*pte() == 0 && regs.rbx == OLD);
    CHECK(regs.rip == CODE_VA + 3 && regs.rcx == RCX_VALUE);
    CHECK(regs.rsp == STACK_VA + 512 * 8 && regs.rflags == FLAGS);
}

/* List a jump label at `code` jumping to `target`, as Linux's table has it
 * (each field relative to itself). */
static void add_jump_label(uint64_t code, uint64_t target)
{
    uint64_t entry = perch_shared.boot.jump_table_end;
    int32_t *e = (int32_t *)((uint8_t *)host_env_frame(JUMPS_MFN) + (entry - JUMPS_VA));

    e[0] = (int32_t)(code - entry);
    e[1] = (int32_t)(target - (entry + 4));
    perch_shared.boot.jump_table_end = entry + 16;
}

/* After the 3-byte store at CODE_VA, `after`: is it patched? */
static int short_store_verdict(const uint8_t *after, size_t len)
{
    if (setup() || !trap_at(CODE_VA, xchg_rbx, 3, after, len))
        return -1;
    return site(0)->state;
}

static void r11_read_after_keeps_the_trap(void)
{
    static const uint8_t reads[] = { 0x4c, 0x89, 0xd8, 0xc3 };          /* mov %r11,%rax */
    static const uint8_t pushes[] = { 0x41, 0x53, 0xc3 };               /* push %r11 */
    static const uint8_t base[] = { 0x49, 0x8b, 0x03, 0xc3 };           /* mov (%r11),%rax */
    static const uint8_t partial[] = { 0x41, 0xb3, 0x01, 0xc3 };        /* mov $1,%r11b */

    CHECK(short_store_verdict(reads, sizeof(reads)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(pushes, sizeof(pushes)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(base, sizeof(base)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(partial, sizeof(partial)) == PERCH_PATCH_TOO_SHORT);
    CHECK(!memcmp(text(CODE_VA), xchg_rbx, 3));
}

static void r11_overwritten_after_allows_it(void)
{
    static const uint8_t xor_first[] = { 0x45, 0x31, 0xdb, 0x4c, 0x89, 0xd8, 0xc3 };
    static const uint8_t mov_first[] = { 0x4c, 0x8b, 0x1f, 0x4c, 0x89, 0xd8, 0xc3 };
    static const uint8_t imm_first[] = { 0x41, 0xbb, 1, 0, 0, 0, 0x4c, 0x89, 0xd8, 0xc3 };
    static const uint8_t self_xchg[] = { 0x4d, 0x87, 0xdb, 0xc3 };      /* xchg %r11,%r11 */

    CHECK(short_store_verdict(xor_first, sizeof(xor_first)) == PERCH_PATCH_ACTIVE);
    CHECK(short_store_verdict(mov_first, sizeof(mov_first)) == PERCH_PATCH_ACTIVE);
    CHECK(short_store_verdict(imm_first, sizeof(imm_first)) == PERCH_PATCH_ACTIVE);
    CHECK(short_store_verdict(self_xchg, sizeof(self_xchg)) == PERCH_PATCH_TOO_SHORT);
}

/* A jump label is a branch both ways; with no table any nop or jmp may be
 * one. The code after the store starts at CODE_VA + 3. */
static void jump_labels(void)
{
    static const uint8_t nop5_then_ret[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3, 0x4c, 0x89, 0xd8 };
    static const uint8_t nop2_then_ret[] = { 0x66, 0x90, 0xc3, 0x4c, 0x89, 0xd8 };
    static const uint8_t jmp_over_read[] = { 0xeb, 0x03, 0x4c, 0x89, 0xd8, 0xc3 };

    /* Listed, jumping to the read of r11 after the ret. */
    CHECK(setup() == 0);
    add_jump_label(CODE_VA + 3, CODE_VA + 9);
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, nop5_then_ret, sizeof(nop5_then_ret)));
    CHECK(site(0)->state == PERCH_PATCH_TOO_SHORT);
    CHECK(setup() == 0);
    add_jump_label(CODE_VA + 3, CODE_VA + 6);
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, nop2_then_ret, sizeof(nop2_then_ret)));
    CHECK(site(0)->state == PERCH_PATCH_TOO_SHORT);
    /* Listed, jumping to the ret: dead both ways. */
    CHECK(setup() == 0);
    add_jump_label(CODE_VA + 3, CODE_VA + 8);
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, nop5_then_ret, sizeof(nop5_then_ret)));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE);
    /* An enabled one (a jmp) can be a nop again: its fall-through counts. */
    CHECK(setup() == 0);
    add_jump_label(CODE_VA + 3, CODE_VA + 8);
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, jmp_over_read, sizeof(jmp_over_read)));
    CHECK(site(0)->state == PERCH_PATCH_TOO_SHORT);
    /* An ordinary jmp over the read is just a jump. */
    CHECK(short_store_verdict(jmp_over_read, sizeof(jmp_over_read)) == PERCH_PATCH_ACTIVE);
    /* Unlisted nops are nops. */
    CHECK(short_store_verdict(nop5_then_ret, sizeof(nop5_then_ret)) == PERCH_PATCH_ACTIVE);
    /* Without a table, every nop and jmp may be a jump label. */
    CHECK(setup() == 0);
    perch_shared.boot.jump_table_start = perch_shared.boot.jump_table_end = 0;
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, jmp_over_read, sizeof(jmp_over_read)));
    CHECK(site(0)->state == PERCH_PATCH_TOO_SHORT);
}

static void branches_calls_and_jumps(void)
{
    /* je +4 over a read of r11: the fall-through reads it. */
    static const uint8_t read_on_one_way[] = { 0x74, 0x04, 0x4c, 0x89, 0xd8, 0x90, 0xc3 };
    static const uint8_t both_return[] = { 0x74, 0x01, 0xc3, 0xc3 };
    static const uint8_t loop[] = { 0xeb, 0xfe };                       /* jmp . */
    static const uint8_t indirect_jump[] = { 0xff, 0xe0 };              /* jmp *%rax */
    static const uint8_t int3[] = { 0xcc };
    static const uint8_t warn[] = { 0x0f, 0x0b, 0xc3 };                 /* ud2, then on */
    uint8_t call_thunk[6] = { 0xe8 }, call_other[6] = { 0xe8 };
    int32_t to_thunk = (int32_t)(THUNK_VA - (CODE_VA + 8)), to_other = 0x100;

    memcpy(call_thunk + 1, &to_thunk, 4);
    memcpy(call_other + 1, &to_other, 4);
    call_thunk[5] = call_other[5] = 0xc3;
    CHECK(short_store_verdict(read_on_one_way, sizeof(read_on_one_way)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(both_return, sizeof(both_return)) == PERCH_PATCH_ACTIVE);
    CHECK(short_store_verdict(loop, sizeof(loop)) == PERCH_PATCH_ACTIVE);
    CHECK(short_store_verdict(indirect_jump, sizeof(indirect_jump)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(int3, sizeof(int3)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(warn, sizeof(warn)) == PERCH_PATCH_ACTIVE);
    CHECK(short_store_verdict(call_thunk, sizeof(call_thunk)) == PERCH_PATCH_TOO_SHORT);
    CHECK(short_store_verdict(call_other, sizeof(call_other)) == PERCH_PATCH_ACTIVE);
    /* Without the kernel's symbols any call may be to a thunk. */
    CHECK(setup() == 0);
    perch_shared.boot.kernel_symbols = PERCH_SYMBOLS_NONE;
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, call_other, sizeof(call_other)));
    CHECK(site(0)->state == PERCH_PATCH_TOO_SHORT);
    /* While the Launcher still reads them, a short site waits; a long one
     * needs no scan. */
    CHECK(setup() == 0);
    perch_shared.boot.kernel_symbols = PERCH_SYMBOLS_PENDING;
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, call_other, sizeof(call_other)));
    CHECK(site(0)->state == PERCH_PATCH_WAITING);
    perch_shared.boot.kernel_symbols = PERCH_SYMBOLS_READ;
    *pte() = OLD;
    CHECK(trap_at(CODE_VA, xchg_rbx, 3, call_other, sizeof(call_other)));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE);
    CHECK(setup() == 0);
    perch_shared.boot.kernel_symbols = PERCH_SYMBOLS_PENDING;
    CHECK(trap_at(CODE_VA + 0x100, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE);
}

/* A path that leaves the text, or runs too long, is a possible read. */
static void scan_bounds(void)
{
    CHECK(setup() == 0);
    memset(text(CODE_VA), 0x90, 0x2000);           /* nops to the end of the text */
    CHECK(!insn_r11_dead_after(CODE_VA));
    CHECK(!insn_r11_dead_after(CODE_VA + 0x2000));
    text(CODE_VA)[0x10] = 0xc3;
    CHECK(insn_r11_dead_after(CODE_VA));
}

static void where_patches_are_not_made(void)
{
    CHECK(setup() == 0);
    optimizations_off = PERCH_OPT_INSN_PATCHING;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_OFF && !memcmp(text(CODE_VA), lock_btr, 6));

    CHECK(setup() == 0);
    perch_shared.boot.kernel_text_end = CODE_VA + 0x1000;     /* the site is past it */
    CHECK(trap_at(CODE_VA + 0x1000, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_NOT_TEXT);

    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA + 0xffd, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_CROSSES_PAGE);

    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, (const uint8_t[]){ 0x48, 0x89, 0x1a }, 3,
                  (const uint8_t[]){ 0x4c, 0x89, 0xd8 }, 3));   /* mov; r11 read */
    CHECK(site(0)->state == PERCH_PATCH_TOO_SHORT);
}

/* Until Linux write-protects its text, it may rewrite it unseen. */
static void writable_text_waits(void)
{
    CHECK(setup() == 0);
    host_env_map(CODE_VA, CODE_MFN, HOST_ENV_RW);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_WAITING && !memcmp(text(CODE_VA), lock_btr, 6));
    host_env_map(CODE_VA, CODE_MFN, HOST_ENV_RO);
    *pte() = OLD;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->traps == 2);
    CHECK(perch_shared.stats.nr_patch_sites == 1);
}

/* ---- The guest's bytes come back ----------------------------------------------- */

static void writable_mapping_restores_the_original(void)
{
    uint64_t l1e = (uint64_t)PT_MFN * 4096 + 7 * 8;

    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE);
    /* The guest maps the text's frame writable (text_poke does). */
    CHECK(mm_write_entry(l1e, (CODE_MFN << 12) | PTE_P | PTE_RW, MM_L1, false) == 0);
    CHECK(!memcmp(text(CODE_VA), lock_btr, 6));
    CHECK(site(0)->state == PERCH_PATCH_WAITING && site(0)->rewrites == 1);
    /* The patch's return address is an ordinary one again. */
    enter_patch(CODE_VA + 5, true);
    CHECK(!insn_patch_entry(&regs) && regs.rcx == CODE_VA + 5);
    /* The next trap, with the page read-only again, patches it again. */
    *pte() = OLD;
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE && site(0)->traps == 2);
    /* Rewritten too often, it is left alone. */
    for (unsigned i = 1; i < PERCH_PATCH_MAX_REWRITES; i++) {
        insn_patch_frame_writable(CODE_MFN);
        *pte() = OLD;
        CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    }
    CHECK(site(0)->state == PERCH_PATCH_UNDONE_WRITE);
    CHECK(!memcmp(text(CODE_VA), lock_btr, 6));
}

/* The guest rewrote the site as a shorter store: the next patch covers
 * that store only, and the byte after it stays the guest's. */
static void rewritten_to_another_length(void)
{
    static const uint8_t lock_andb[5] = { 0xf0, 0x80, 0x22, 0xfd, 0x90 };   /* lock andb $~2,(%rdx); nop */
    static const uint8_t want[3] = { 0x51, 0x0f, 0x05 };   /* r11 dead: nop, ret */

    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    insn_patch_frame_writable(CODE_MFN);
    *pte() = OLD;
    memcpy(text(CODE_VA), lock_andb, sizeof(lock_andb));   /* 4 bytes, a nop, then btr's last */
    CHECK(trap_at(CODE_VA, lock_andb, 4, (const uint8_t[]){ 0x90, 0xc3 }, 2));
    CHECK(*pte() == (OLD & ~PTE_RW));
    CHECK(site(0)->len == 4 && site(0)->state == PERCH_PATCH_ACTIVE && site(0)->patch_len == 3);
    CHECK(!memcmp(text(CODE_VA), want, 3) && text(CODE_VA)[3] == 0xcc && text(CODE_VA)[4] == 0x90);
    CHECK(!memcmp(site(0)->original, lock_andb, 4));
}

static void other_frames_keep_their_patches(void)
{
    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    insn_patch_frame_writable(CODE_MFN + 1);
    insn_patch_frame_writable(DATA_MFN);
    CHECK(site(0)->state == PERCH_PATCH_ACTIVE);
}

/* The same instruction storing to an ordinary page: the original runs. */
static void other_target_restores_and_reruns(void)
{
    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    regs.rdx = DATA_VA;
    enter_patch(CODE_VA + 5, true);
    CHECK(insn_patch_entry(&regs));
    CHECK(regs.rip == CODE_VA && regs.rcx == RCX_VALUE && regs.r11 == R11_VALUE);
    CHECK(regs.rsp == STACK_VA + 512 * 8);
    CHECK(!memcmp(text(CODE_VA), lock_btr, 6));
    CHECK(site(0)->state == PERCH_PATCH_UNDONE_TARGET);
    CHECK(perch_shared.stats.patched_stores == 0);
}

/* ---- Hostile entries ------------------------------------------------------------- */

static void forged_entries(void)
{
    CHECK(setup() == 0);
    CHECK(trap_at(CODE_VA, lock_btr, 6, ret, 1));
    /* A return address inside the patch is no patch's. */
    enter_patch(CODE_VA + 4, true);
    CHECK(!insn_patch_entry(&regs));
    /* The patch's own, with a stack in the hole: stopped, no Host read. */
    enter_patch(CODE_VA + 5, true);
    regs.rsp = XEN_HOLE_START + 0x1000;
    CHECK(HOST_ENV_EXPECT_STOP(insn_patch_entry(&regs)));
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    /* A corrupted site count reads no further than the table. */
    perch_shared.stats.nr_patch_sites = 0xffffffffu;
    insn_patch_frame_writable(CODE_MFN);
    CHECK(!memcmp(text(CODE_VA), lock_btr, 6));
}

static void table_full(void)
{
    CHECK(setup() == 0);
    for (unsigned i = 0; i <= PERCH_PATCH_SITES; i++) {
        *pte() = OLD;
        CHECK(trap_at(CODE_VA + i * 16, lock_btr, 6, ret, 1));
    }
    CHECK(perch_shared.stats.nr_patch_sites == PERCH_PATCH_SITES);
    CHECK(perch_shared.stats.patch_sites_unlisted == 1);
    CHECK(!memcmp(text(CODE_VA + PERCH_PATCH_SITES * 16), lock_btr, 6));
    /* Every listed one is found by its return address. */
    for (unsigned i = 0; i < PERCH_PATCH_SITES; i++) {
        *pte() = OLD;
        regs.rdx = FAULT;
        enter_patch(CODE_VA + i * 16 + 5, true);
        CHECK(insn_patch_entry(&regs) && regs.rip == CODE_VA + i * 16 + 6);
    }
}

int main(void)
{
    RUN(long_store_patched_saving_both);
    RUN(store_through_the_patch);
    RUN(long_store_patched_into_a_call);
    RUN(no_call_without_direct_calls);
    RUN(several_vcpus_patch_by_text_poke);
    RUN(event_inside_a_syscall_patch_goes_back_to_the_site);
    RUN(syscall_from_an_undone_patch_goes_back_to_the_site);
    RUN(several_vcpus_races_at_a_site);
    RUN(short_store_with_r11_dead_saves_rcx);
    RUN(r11_read_after_keeps_the_trap);
    RUN(r11_overwritten_after_allows_it);
    RUN(branches_calls_and_jumps);
    RUN(jump_labels);
    RUN(scan_bounds);
    RUN(where_patches_are_not_made);
    RUN(writable_text_waits);
    RUN(writable_mapping_restores_the_original);
    RUN(rewritten_to_another_length);
    RUN(other_frames_keep_their_patches);
    RUN(other_target_restores_and_reruns);
    RUN(forged_entries);
    RUN(table_full);
    return check_exit_status();
}
