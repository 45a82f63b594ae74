/*
 * Unit tests of privileged-instruction emulation (host/cpu/emulate.c): the
 * instruction bytes sit in guest memory at rip, the trap is a #UD or a #GP
 * from guest-kernel mode, and the test checks the registers, rip and the
 * verdict.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/cpu/emulate.h"
#include "../../host/core/vcpu.h"
#include "../../host/cpu/cpuid.h"
#include "../../host/cpu/noop_patch.h"

#define FRAMES    64
#define CODE_VA   0xffffffff81000000ull
#define CODE_MFN  8
#define BITMAP_VA 0xffffffff81100000ull
#define BITMAP_MFN 12

/* A fake CPU for the CPUID paths: Intel, every feature bit set. */
static void fake_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    (void)subleaf;
    out[0] = out[1] = out[2] = out[3] = 0xffffffffu;
    if (leaf == 0) {
        out[0] = 0xd;
        out[1] = 0x756e6547, out[2] = 0x6c65746e, out[3] = 0x49656e69;
    } else if (leaf == 0x80000000) {
        out[0] = 0x80000008;
    }
}

static struct cpu_regs regs;

/* The registers before emulation, to tell what changed. */
static struct cpu_regs before;

/* The fake CPU, its guest code running with xcr0 (x87, SSE, AVX and PKRU
 * in the default setup). */
static void setup_xcr0(uint64_t xcr0)
{
    host_env_reset(FRAMES);
    host_env_describe_cpu(fake_cpuid, xcr0);
    host_env_map(CODE_VA, CODE_MFN, HOST_ENV_RO);
    emulate_reset();
    vm_assist_enabled = 0;
    current->iopl = 1;                   /* what Linux sets at boot */
    current->iobitmap = 0;
    current->iobitmap_ports = 0;
    current->traps[13].address = 0xffffffff81800000ull;   /* a #GP handler */
    for (size_t i = 0; i < sizeof(regs) / 8; i++)
        ((uint64_t *)&regs)[i] = 0x5a5a5a5a00000000ull + i;
    regs.rflags = 0x10202;              /* IF, RF */
    regs.error_code = 0;
}

static void setup(void)
{
    setup_xcr0(0x207);
}

/* Put `len` instruction bytes at CODE_VA + off and point rip at them. */
static void code(uint64_t off, const char *bytes, size_t len)
{
    memcpy((uint8_t *)host_env_frame(CODE_MFN) + off, bytes, len);
    regs.rip = CODE_VA + off;
}
#define CODE(off, s) code((off), (s), sizeof(s) - 1)

static enum emul_result run(uint64_t vector)
{
    regs.vector = vector;
    before = regs;
    return emulate_privileged(&regs);
}

/* Every register but those at the listed offsets is as before. */
static int unchanged_but(const size_t *offsets, size_t n)
{
    struct cpu_regs x = before, y = regs;

    for (size_t i = 0; i < n; i++) {
        memset((uint8_t *)&x + offsets[i], 0, 8);
        memset((uint8_t *)&y + offsets[i], 0, 8);
    }
    return memcmp(&x, &y, sizeof(x)) == 0;
}
#define OFF(r) offsetof(struct cpu_regs, r)
#define ONLY_CHANGED(...)                                                  \
    unchanged_but((const size_t[]){ __VA_ARGS__ },                         \
                  sizeof((const size_t[]){ __VA_ARGS__ }) / sizeof(size_t))

/* Nothing changed at all: an exception goes to the guest as it was. */
static int untouched(void)
{
    return memcmp(&before, &regs, sizeof(regs)) == 0;
}

/* ---- Forced-emulation CPUID (#UD) ---------------------------------------- */

#define FORCED_CPUID "\x0f\x0bxen\x0f\xa2"

static void forced_cpuid_signature(void)
{
    setup();
    CODE(0, FORCED_CPUID);
    regs.rax = 0x40000000;
    CHECK(run(6) == EMUL_DONE);
    CHECK(regs.rip == CODE_VA + 7);
    CHECK(regs.rax == 0x40000005);
    CHECK(regs.rbx == 0x566e6558 && regs.rcx == 0x65584d4d && regs.rdx == 0x4d4d566e);
    CHECK(!(regs.rflags & (1ull << 16)));      /* RF cleared */
    CHECK(ONLY_CHANGED(OFF(rax), OFF(rbx), OFF(rcx), OFF(rdx), OFF(rip), OFF(rflags)));
}

static void forced_cpuid_xen_leaves(void)
{
    setup();
    CODE(0, FORCED_CPUID);
    regs.rax = 0xffffffff40000001ull;         /* only eax counts */
    CHECK(run(6) == EMUL_DONE);
    CHECK(regs.rax == 0x40011 && regs.rbx == 0 && regs.rcx == 0 && regs.rdx == 0);
    regs.rip = CODE_VA;
    regs.rax = 0x40000002;
    CHECK(run(6) == EMUL_DONE);
    CHECK(regs.rax == 1 && regs.rbx == 0x40000000 && regs.rcx == 1 && regs.rdx == 0);
    regs.rip = CODE_VA;
    regs.rax = 0x40000100;
    CHECK(run(6) == EMUL_DONE);
    CHECK(regs.rax == 0 && regs.rbx == 0 && regs.rcx == 0 && regs.rdx == 0);
}

static void forced_cpuid_leaf1_policy(void)
{
    setup();
    CODE(0, FORCED_CPUID);
    regs.rax = 1;
    regs.rcx = 0;
    CHECK(run(6) == EMUL_DONE);
    CHECK(regs.rcx & (1ull << 31));            /* hypervisor */
    CHECK((regs.rcx & (1ull << 26)) && (regs.rcx & (1ull << 27)));    /* XSAVE, OSXSAVE on */
    CHECK(!(regs.rcx & (1ull << 17)));         /* PCID */
    CHECK(!(regs.rdx & (1ull << 3)) && !(regs.rdx & (1ull << 13)));   /* PSE PGE */
    CHECK(regs.rcx >> 32 == 0 && regs.rdx >> 32 == 0);
}

static void forced_prefix_without_cpuid_is_ud(void)
{
    setup();
    CODE(0, "\x0f\x0bxen\x0f\x30");           /* only cpuid is emulated */
    CHECK(run(6) == EMUL_INJECT_UD && untouched());
    CODE(0, "\x0f\x0bxex\x0f\xa2");
    CHECK(run(6) == EMUL_INJECT_UD && untouched());
    CODE(0, "\x0f\x0b\x90\x90\x90\x90\x90");    /* a plain ud2 */
    CHECK(run(6) == EMUL_INJECT_UD && untouched());
}

/* A #UD is only ever the forced CPUID: privileged instructions under #UD
 * go back as #UD. */
static void ud_never_runs_other_emulation(void)
{
    setup();
    CODE(0, "\x0f\x32");
    regs.rcx = 0xc0000100;
    CHECK(run(6) == EMUL_INJECT_UD && untouched());
    CODE(0, "\x0f\x01\xd0");                   /* xsetbv: XSAVE is hidden */
    CHECK(run(6) == EMUL_INJECT_UD && untouched());
}

static void unreadable_bytes_are_a_page_fault(void)
{
    setup();
    regs.rip = 0xffffffff82000000ull;          /* unmapped */
    CHECK(run(6) == EMUL_INJECT_PF && untouched());
    CHECK(current->emulated_fault_address == 0xffffffff82000000ull);
    CHECK(run(13) == EMUL_INJECT_PF && untouched());
    CHECK(current->emulated_fault_address == 0xffffffff82000000ull);
    /* The signature fits the page, the cpuid after it does not. */
    CODE(4096 - 5, "\x0f\x0bxen");
    CHECK(run(6) == EMUL_INJECT_PF && untouched());
    CHECK(current->emulated_fault_address == CODE_VA + 4096);
    /* Part of the signature on the next page. */
    CODE(4096 - 3, "\x0f\x0bx");
    CHECK(run(6) == EMUL_INJECT_PF);
    CHECK(current->emulated_fault_address == CODE_VA + 4096);
    /* in al, imm8 whose port byte is on the unmapped page. */
    CODE(4096 - 1, "\xe4");
    CHECK(run(13) == EMUL_INJECT_PF && untouched());
    CHECK(current->emulated_fault_address == CODE_VA + 4096);
}

/* An instruction that ends where the mapping ends is fine. */
static void instruction_at_the_end_of_the_mapping(void)
{
    setup();
    CODE(4096 - 7, FORCED_CPUID);
    regs.rax = 0x40000001;
    CHECK(run(6) == EMUL_DONE);
    CHECK(regs.rip == CODE_VA + 4096 && regs.rax == 0x40011);
    CODE(4096 - 2, "\x0f\x09");
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 4096);
}

/* ---- #GP: cpuid, MSRs ------------------------------------------------------- */

static void plain_cpuid(void)
{
    setup();
    CODE(0, "\x0f\xa2");
    regs.rax = 0x40000000;
    CHECK(run(13) == EMUL_DONE);
    CHECK(regs.rip == CODE_VA + 2);
    CHECK(regs.rbx == 0x566e6558);
}

static void gp_with_error_code_is_not_emulated(void)
{
    setup();
    CODE(0, "\x0f\xa2");
    regs.error_code = 0x1a;                    /* a selector fault */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
}

static uint64_t rdmsr(uint32_t msr)
{
    CODE(0, "\x0f\x32");
    regs.rcx = 0xdead00000000ull | msr;
    regs.rax = regs.rdx = 0x1111111111111111ull;
    if (run(13) != EMUL_DONE || regs.rip != CODE_VA + 2 ||
        regs.rax >> 32 || regs.rdx >> 32 ||
        !ONLY_CHANGED(OFF(rax), OFF(rdx), OFF(rip), OFF(rflags)))
        return 0xbadbadbadull;
    return regs.rdx << 32 | regs.rax;
}

static enum emul_result wrmsr(uint32_t msr, uint64_t val)
{
    CODE(0, "\x0f\x30");
    regs.rcx = msr;
    regs.rax = 0xffffffff00000000ull | (uint32_t)val;   /* high halves ignored */
    regs.rdx = 0xffffffff00000000ull | (val >> 32);
    return run(13);
}

static void segment_base_msrs(void)
{
    setup();
    current->fs_base = 0x1000;
    current->gs_base_kernel = 0xffff888000002000ull;
    current->gs_base_user = 0x3000;
    CHECK(rdmsr(0xc0000100) == 0x1000);
    CHECK(rdmsr(0xc0000101) == 0xffff888000002000ull);
    CHECK(rdmsr(0xc0000102) == 0x3000);
    CHECK(!current->segments_dirty);

    CHECK(wrmsr(0xc0000100, 0x7f0000001000ull) == EMUL_DONE);
    CHECK(regs.rip == CODE_VA + 2);
    CHECK(current->fs_base == 0x7f0000001000ull && current->segments_dirty);
    current->segments_dirty = false;
    CHECK(wrmsr(0xc0000101, 0xffff888000abc000ull) == EMUL_DONE);
    CHECK(current->gs_base_kernel == 0xffff888000abc000ull && current->segments_dirty);
    current->segments_dirty = false;
    CHECK(wrmsr(0xc0000102, 0x5000) == EMUL_DONE);
    CHECK(current->gs_base_user == 0x5000 && current->segments_dirty);
    CHECK(current->fs_base == 0x7f0000001000ull);
    CHECK(rdmsr(0xc0000101) == 0xffff888000abc000ull);
}

static void non_canonical_base_is_gp(void)
{
    setup();
    current->fs_base = 0x1000;
    CHECK(wrmsr(0xc0000100, 0x0000800000000000ull) == EMUL_INJECT_GP);
    CHECK(untouched());
    CHECK(current->fs_base == 0x1000 && !current->segments_dirty);
    CHECK(wrmsr(0xc0000101, 0x8000000000000000ull) == EMUL_INJECT_GP);
}

static void apic_base_pat_and_efer(void)
{
    setup();
    CHECK(rdmsr(0x1b) == 0xfee00900ull);
    CHECK(rdmsr(0x277) == 0x0000050100070406ull);
    CHECK(rdmsr(0xc0000080) == 0xd01);
    CHECK(wrmsr(0xc0000080, 0xd01) == EMUL_DONE);
    CHECK(wrmsr(0xc0000080, 0x501) == EMUL_INJECT_GP && untouched());
    CHECK(wrmsr(0x277, 0x0007040600070406ull) == EMUL_INJECT_GP && untouched());
    CHECK(wrmsr(0x1b, 0xfee00900ull) == EMUL_INJECT_GP);
}

static void other_msrs_are_gp(void)
{
    setup();
    CODE(0, "\x0f\x32");
    regs.rcx = 0x10a;                          /* ARCH_CAPABILITIES */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    regs.rcx = 0x48;                           /* SPEC_CTRL */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CHECK(wrmsr(0x48, 1) == EMUL_INJECT_GP && untouched());
    CHECK(wrmsr(0xc0000082, 0xffffffff81000000ull) == EMUL_INJECT_GP);  /* LSTAR */
}

/* Before the guest has a #GP handler, Xen reads unknown MSRs as 0. */
static void unknown_msr_reads_zero_without_a_gp_handler(void)
{
    setup();
    current->traps[13].address = 0;
    CHECK(rdmsr(0x123) == 0);
    CODE(0, "\x0f\x32");
    regs.rcx = 0x40000000;                     /* Xen's own range: still #GP */
    CHECK(run(13) == EMUL_INJECT_GP);
    CHECK(wrmsr(0x123, 0) == EMUL_INJECT_GP);
}

/* ---- #GP: in and out ---------------------------------------------------------- */

struct io_case {
    const char *bytes;
    size_t len;
    uint64_t rax_after;        /* from rax = 0x1234567812345678 */
};

static void in_of_each_size(void)
{
    static const struct io_case cases[] = {
        { "\xe4\x70", 2, 0x12345678123456ffull },           /* in al, 0x70 */
        { "\xe5\x40", 2, 0x00000000ffffffffull },           /* in eax, 0x40 */
        { "\x66\xe5\x40", 3, 0x123456781234ffffull },       /* in ax, 0x40 */
        { "\xec", 1, 0x12345678123456ffull },               /* in al, dx */
        { "\xed", 1, 0x00000000ffffffffull },               /* in eax, dx */
        { "\x66\xed", 2, 0x123456781234ffffull },           /* in ax, dx */
        { "\x48\xed", 2, 0x00000000ffffffffull },           /* REX.W: still 32 */
        { "\x66\x48\xed", 3, 0x00000000ffffffffull },       /* 66 then REX.W */
        { "\x48\x66\xed", 3, 0x123456781234ffffull },       /* REX lost before 66 */
        { "\x2e\x67\xec", 3, 0x12345678123456ffull },       /* other prefixes */
    };

    setup();
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        code(16 * i, cases[i].bytes, cases[i].len);
        regs.rax = 0x1234567812345678ull;
        regs.rdx = 0xffffffff00000cfcull;
        CHECK(run(13) == EMUL_DONE);
        CHECK(regs.rip == CODE_VA + 16 * i + cases[i].len);
        CHECK(regs.rax == cases[i].rax_after);
        CHECK(ONLY_CHANGED(OFF(rax), OFF(rip), OFF(rflags)));
    }
}

static void out_of_each_size_is_dropped(void)
{
    static const struct io_case cases[] = {
        { "\xe6\x80", 2, 0 }, { "\xe7\x80", 2, 0 }, { "\x66\xe7\x80", 3, 0 },
        { "\xee", 1, 0 }, { "\xef", 1, 0 }, { "\x66\xef", 2, 0 },
    };

    setup();
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        code(16 * i, cases[i].bytes, cases[i].len);
        regs.rax = 0x1234567812345678ull;
        regs.rdx = 0xcf8;
        CHECK(run(13) == EMUL_DONE);
        CHECK(regs.rip == CODE_VA + 16 * i + cases[i].len);
        CHECK(ONLY_CHANGED(OFF(rip), OFF(rflags)));
    }
}

static void io_needs_iopl(void)
{
    setup();
    current->iopl = 0;
    CODE(0, "\xec");
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\xe6\x80");
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    /* architectural_iopl: the kernel counts as ring 0, which IOPL 0 allows. */
    vm_assist_enabled = 1ull << VMASST_TYPE_architectural_iopl;
    CHECK(run(13) == EMUL_DONE);
}

static void io_bitmap_permits_ports(void)
{
    uint8_t *bitmap;

    setup();
    current->iopl = 0;
    host_env_map(BITMAP_VA, BITMAP_MFN, HOST_ENV_RW);
    bitmap = host_env_frame(BITMAP_MFN);
    memset(bitmap, 0xff, 4096);
    bitmap[0x80 / 8] = 0xfe;                   /* port 0x80 allowed */
    current->iobitmap = BITMAP_VA;
    current->iobitmap_ports = 0x400;
    CODE(0, "\xe6\x80");                       /* out 0x80, al */
    CHECK(run(13) == EMUL_DONE);
    CODE(0, "\xe7\x80");                       /* out 0x80, eax: 0x81-0x83 too */
    CHECK(run(13) == EMUL_INJECT_GP);
    bitmap[0x80 / 8] = 0xf0;
    CHECK(run(13) == EMUL_DONE);
    CODE(0, "\xe4\x81");
    current->iobitmap_ports = 0x81;             /* beyond the bitmap's ports */
    CHECK(run(13) == EMUL_INJECT_GP);
}

static void ins_and_outs_are_gp(void)
{
    setup();
    CODE(0, "\x6c");
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\xf3\x6f");
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
}

/* ---- #GP: control registers, cache, interrupts ----------------------------------- */

static void cr0_reads(void)
{
    setup();
    CODE(0, "\x0f\x20\xc0");                   /* mov rax, cr0 */
    CHECK(run(13) == EMUL_DONE);
    CHECK(regs.rax == 0x80050033 && regs.rip == CODE_VA + 3);
    CODE(0, "\x41\x0f\x20\xc3");               /* mov r11, cr0 */
    current->cr0_ts = true;
    CHECK(run(13) == EMUL_DONE);
    CHECK(regs.r11 == 0x8005003b && regs.rip == CODE_VA + 4);
    CHECK(ONLY_CHANGED(OFF(r11), OFF(rip), OFF(rflags)));
}

static void clts_and_cr0_writes(void)
{
    setup();
    current->cr0_ts = true;
    CODE(0, "\x0f\x06");                       /* clts */
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 2);
    CHECK(!current->cr0_ts);
    CODE(0, "\x0f\x22\xc1");                   /* mov cr0, rcx */
    regs.rcx = 0x8005003b;
    CHECK(run(13) == EMUL_DONE && current->cr0_ts);
    regs.rip = CODE_VA;
    regs.rcx = 0x80050033;
    CHECK(run(13) == EMUL_DONE && !current->cr0_ts);
    regs.rip = CODE_VA;
    regs.rcx = 0x80040033;                     /* clears WP: refused */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
}

static void cr4_shadow(void)
{
    setup();
    CODE(0, "\x0f\x20\xe2");                   /* mov rdx, cr4 */
    CHECK(run(13) == EMUL_DONE);
    /* PAE OSFXSR OSXMMEXCPT, and OSXSAVE: XSAVE is offered (the fake CPU
     * has it, host_env.c's XCR0 is 0x207). */
    CHECK(regs.rdx == (0x620 | (1 << 18)));
    CODE(0, "\x0f\x22\xe7");                   /* mov cr4, rdi */
    /* PGE PSE PCE TSD OSXSAVE FSGSBASE SMEP and DE */
    regs.rdi = 0x620 | (1 << 7) | (1 << 4) | (1 << 8) | (1 << 2) | (1 << 18) |
               (1 << 16) | (1 << 20) | (1 << 3);
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 3);
    CHECK(current->cr4 == (0x620 | (1 << 3) | (1 << 18)));
    regs.rdi = 0;                              /* visible bits stay */
    regs.rip = CODE_VA;
    CHECK(run(13) == EMUL_DONE);
    CHECK(current->cr4 == 0x620);
}

/* xsetbv picks among x87, SSE and AVX (what host/cpu/cpuid.c offers from the
 * real XCR0, 0x207 here): anything else, or another XCR, is a #GP. */
static void xsetbv_among_offered(void)
{
    static const uint64_t refused[] = { 0, 2, 5, 0x207, 0x203, 0x100000007ull };

    setup();
    CHECK(current->xcr0 == 3);                 /* x87 and SSE at boot */
    CODE(0, "\x0f\x01\xd1");                  /* xsetbv */
    regs.rcx = 0, regs.rax = 7, regs.rdx = 0;
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 3);
    CHECK(current->xcr0 == 7 && ONLY_CHANGED(OFF(rip), OFF(rflags)));
    regs.rip = CODE_VA, regs.rax = 1;
    CHECK(run(13) == EMUL_DONE && current->xcr0 == 1);
    for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        regs.rip = CODE_VA;
        regs.rax = (uint32_t)refused[i], regs.rdx = refused[i] >> 32;
        CHECK(run(13) == EMUL_INJECT_GP && untouched() && current->xcr0 == 1);
    }
    regs.rip = CODE_VA, regs.rax = 7, regs.rdx = 0, regs.rcx = 1;   /* XCR1 */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\x0f\x01\xd0");                  /* xgetbv: never trapped, not ours */
    regs.rcx = 0;
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
}

/* Where guest code runs with AVX-512's state, the kernel may take its three
 * components, together and with AVX only, as the CPU would check. */
static void xsetbv_avx512(void)
{
    static const uint64_t refused[] = { 0x27, 0x67, 0xe3, 0xe1, 0x2e7 };

    setup_xcr0(0xe7);
    CODE(0, "\x0f\x01\xd1");                  /* xsetbv */
    regs.rcx = 0, regs.rax = 0xe7, regs.rdx = 0;
    CHECK(run(13) == EMUL_DONE && current->xcr0 == 0xe7);
    for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        regs.rip = CODE_VA;
        regs.rax = (uint32_t)refused[i];
        CHECK(run(13) == EMUL_INJECT_GP && current->xcr0 == 0xe7);
    }
}

static void other_control_registers_are_gp(void)
{
    setup();
    CODE(0, "\x0f\x20\xd8");                   /* mov rax, cr3 */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\x0f\x20\xd0");                   /* mov rax, cr2 */
    CHECK(run(13) == EMUL_INJECT_GP);
    CODE(0, "\x44\x0f\x20\xc0");               /* mov rax, cr8 */
    CHECK(run(13) == EMUL_INJECT_GP);
    CODE(0, "\x0f\x22\xd8");                   /* mov cr3, rax */
    CHECK(run(13) == EMUL_INJECT_GP);
    CODE(0, "\x0f\x21\xc0");                   /* mov rax, dr0 */
    CHECK(run(13) == EMUL_INJECT_GP);
}

static void wbinvd_cli_sti(void)
{
    setup();
    CODE(0, "\x0f\x09");
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 2);
    CHECK(ONLY_CHANGED(OFF(rip), OFF(rflags)));
    CODE(0, "\xfa");
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 1);
    CODE(0, "\xfb");
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 1);
    current->iopl = 0;
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
}

/* The byte at CODE_VA + off, as the guest's memory holds it now. */
static uint8_t code_byte(uint64_t off)
{
    return ((uint8_t *)host_env_frame(CODE_MFN))[off];
}

/* CODE_VA's page is the guest kernel's text, in a frame the guest owns. */
static void code_is_kernel_text(void)
{
    perch_shared.boot.guest_mfn_base = 0;
    perch_shared.boot.guest_nr_pages = FRAMES;
    perch_shared.boot.kernel_text_start = CODE_VA;
    perch_shared.boot.kernel_text_end = CODE_VA + 0x100;
}

/* In the kernel's text, an emulated cli or sti becomes a nop, once. */
static void cli_and_sti_become_nops(void)
{
    setup();
    noop_patch_init(false);
    code_is_kernel_text();
    CODE(0, "\xfa\xfb");
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 1);
    CHECK(code_byte(0) == 0x90 && code_byte(1) == 0xfb && noop_patch_sites() == 1);
    CHECK(run(13) == EMUL_DONE && code_byte(1) == 0x90 && noop_patch_sites() == 2);
    CODE(0x100, "\xfa");                       /* past the text: emulated only */
    CHECK(run(13) == EMUL_DONE && code_byte(0x100) == 0xfa && noop_patch_sites() == 2);
    noop_patch_recheck();                      /* nothing changed: kept */
    CHECK(code_byte(0) == 0x90 && noop_patch_sites() == 2);
}

/* The bytes come back when a vCPU's privilege would make them trap; a
 * byte the guest has changed since is its own. */
static void nops_come_back_when_iopl_drops(void)
{
    setup();
    noop_patch_init(false);
    code_is_kernel_text();
    CODE(0, "\xfa\xfb");
    CHECK(run(13) == EMUL_DONE);
    regs.rip = CODE_VA + 1;
    CHECK(run(13) == EMUL_DONE && code_byte(0) == 0x90 && code_byte(1) == 0x90);
    ((uint8_t *)host_env_frame(CODE_MFN))[1] = 0xcc;   /* the guest's own write */
    current->iopl = 0;
    noop_patch_recheck();
    CHECK(code_byte(0) == 0xfa && code_byte(1) == 0xcc && noop_patch_sites() == 0);
    regs.rip = CODE_VA;
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
}

/* Not while another vCPU has a context (it could be fetching the byte);
 * one that is still off does not count. */
static void no_nops_while_another_vcpu_runs(void)
{
    setup();
    noop_patch_init(false);
    code_is_kernel_text();
    host_nr_vcpus = 2;
    host_env_cpus[1].vcpu.iopl = 1;
    host_env_cpus[1].vcpu.state = VCPU_UP;
    CODE(0, "\xfa");
    CHECK(run(13) == EMUL_DONE && code_byte(0) == 0xfa && noop_patch_sites() == 0);
    host_env_cpus[1].vcpu.state = VCPU_OFF;
    regs.rip = CODE_VA;
    CHECK(run(13) == EMUL_DONE && code_byte(0) == 0x90 && noop_patch_sites() == 1);
    host_nr_vcpus = 1;
}

/* Not under gdb, nor with --no-insn-patching: the kernel's bytes stay. */
static void no_nops_for_gdb_or_the_switch(void)
{
    setup();
    code_is_kernel_text();
    noop_patch_init(true);
    CODE(0, "\xfa");
    CHECK(run(13) == EMUL_DONE && code_byte(0) == 0xfa && noop_patch_sites() == 0);
    noop_patch_init(false);
    optimizations_off = PERCH_OPT_INSN_PATCHING;
    regs.rip = CODE_VA;
    CHECK(run(13) == EMUL_DONE && code_byte(0) == 0xfa && noop_patch_sites() == 0);
    optimizations_off = 0;
}

static void unknown_instructions_are_gp(void)
{
    setup();
    CODE(0, "\xf4");                           /* hlt */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\x0f\x01\xd0");                   /* xsetbv */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\x0f\x01\xf8");                   /* swapgs */
    CHECK(run(13) == EMUL_INJECT_GP);
    CODE(0, "\x0f\x31");                       /* rdtsc */
    CHECK(run(13) == EMUL_INJECT_GP);
    CODE(0, "\xf0\x0f\x20\xc0");               /* lock mov rax, cr0 */
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    /* 15 prefixes leave no room for an opcode. */
    CODE(0, "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x0f\x09");
    CHECK(run(13) == EMUL_INJECT_GP && untouched());
    CODE(0, "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x0f\x09");
    CHECK(run(13) == EMUL_DONE && regs.rip == CODE_VA + 15);
}

static void reset_restores_boot_state(void)
{
    setup();
    current->cr0_ts = true;
    current->cr4 = 0;
    current->segments_dirty = true;
    emulate_reset();
    CHECK(!current->cr0_ts && current->cr4 == (0x620 | (1 << 18)) && !current->segments_dirty);
    CHECK(current->xcr0 == 3);
}

int main(void)
{
    RUN(forced_cpuid_signature);
    RUN(forced_cpuid_xen_leaves);
    RUN(forced_cpuid_leaf1_policy);
    RUN(forced_prefix_without_cpuid_is_ud);
    RUN(ud_never_runs_other_emulation);
    RUN(unreadable_bytes_are_a_page_fault);
    RUN(instruction_at_the_end_of_the_mapping);
    RUN(plain_cpuid);
    RUN(gp_with_error_code_is_not_emulated);
    RUN(segment_base_msrs);
    RUN(non_canonical_base_is_gp);
    RUN(apic_base_pat_and_efer);
    RUN(other_msrs_are_gp);
    RUN(unknown_msr_reads_zero_without_a_gp_handler);
    RUN(in_of_each_size);
    RUN(out_of_each_size_is_dropped);
    RUN(io_needs_iopl);
    RUN(io_bitmap_permits_ports);
    RUN(ins_and_outs_are_gp);
    RUN(cr0_reads);
    RUN(clts_and_cr0_writes);
    RUN(cr4_shadow);
    RUN(other_control_registers_are_gp);
    RUN(xsetbv_among_offered);
    RUN(xsetbv_avx512);
    RUN(wbinvd_cli_sti);
    RUN(cli_and_sti_become_nops);
    RUN(nops_come_back_when_iopl_drops);
    RUN(no_nops_for_gdb_or_the_switch);
    RUN(no_nops_while_another_vcpu_runs);
    RUN(unknown_instructions_are_gp);
    RUN(reset_restores_boot_state);
    return check_exit_status();
}
