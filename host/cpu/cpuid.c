/*
 * The CPUID a PV guest sees.
 *
 * Xen builds a PV guest's CPUID from the real CPU's: feature bits pass only
 * if Xen's PV policy allows them (the features xen/include/public/arch-x86/
 * cpufeatureset.h marks 'A', 4.17), leaves it does not virtualise read as
 * zero, and its own leaves sit at 0x40000000. perch does the same, and then
 * hides what it does not emulate (cpuid_hidden[] below, with reasons).
 * Leaves beyond the advertised maxima read as zero, as on AMD.
 */
#include "../core/env.h"
#include "../core/host.h"
#include "cpuid.h"
#include "../core/vcpu.h"
#include "../../lib/cpuid_table.h"

#define BIT(n) (1u << (n))
#define ANY_SUBLEAF 0xffffffffu

/* Xen's leaves (public/arch-x86/cpuid.h). */
#define XEN_LEAF_BASE        0x40000000u
#define XEN_LEAF_COUNT       5                 /* leaves base+1 .. base+5 */
#define XEN_SIGNATURE_EBX    0x566e6558u       /* "XenV" */
#define XEN_SIGNATURE_ECX    0x65584d4du       /* "MMXe" */
#define XEN_SIGNATURE_EDX    0x4d4d566eu       /* "nVMM" */
#define XEN_VERSION          ((4u << 16) | 17u)  /* as XENVER_version says */
#define XEN_MSR_BASE         0x40000000u
#define XEN_FEAT1_PRESERVE_AD BIT(0)           /* MMU_PT_UPDATE_PRESERVE_AD */

#define MAX_BASIC_LEAF       0xdu
#define MAX_EXTD_LEAF_INTEL  0x80000008u
#define MAX_EXTD_LEAF_AMD    0x80000021u
#define MAX_LEAF7_SUBLEAF    2u
#define HYPERVISOR_BIT       BIT(31)           /* leaf 1 ecx */

/*
 * Xen 4.17's PV feature words: the bits cpufeatureset.h marks 'A'. The
 * "!"-marked FDP_EXCP_ONLY and NO_FPU_SEL (leaf 7 ebx bits 6, 13) are the
 * host's and pass through too; HYPERVISOR is set separately.
 */
struct feature_word {
    uint32_t leaf, subleaf;
    uint8_t reg;
    uint32_t allowed;
};

static const struct feature_word xen_pv_features[] = {
    { 1, ANY_SUBLEAF, CPUID_EDX,   /* FPU DE TSC MSR PAE MCE CX8 APIC SEP
                                    * MCA CMOV PAT CLFLUSH ACPI MMX FXSR SSE
                                    * SSE2 SS HTT */
      BIT(0) | BIT(2) | BIT(4) | BIT(5) | BIT(6) | BIT(7) | BIT(8) | BIT(9) |
      BIT(11) | BIT(14) | BIT(15) | BIT(16) | BIT(19) | BIT(22) | BIT(23) |
      BIT(24) | BIT(25) | BIT(26) | BIT(27) | BIT(28) },
    { 1, ANY_SUBLEAF, CPUID_ECX,   /* SSE3 PCLMULQDQ SSSE3 FMA CX16 SSE4.1
                                    * SSE4.2 X2APIC MOVBE POPCNT AESNI XSAVE
                                    * AVX F16C RDRAND */
      BIT(0) | BIT(1) | BIT(9) | BIT(12) | BIT(13) | BIT(19) | BIT(20) |
      BIT(21) | BIT(22) | BIT(23) | BIT(25) | BIT(26) | BIT(28) | BIT(29) |
      BIT(30) },
    { 7, 0, CPUID_EBX,             /* FSGSBASE BMI1 AVX2 FDP_EXCP_ONLY BMI2
                                    * ERMS RTM NO_FPU_SEL AVX512F/DQ RDSEED
                                    * ADX AVX512IFMA CLFLUSHOPT CLWB
                                    * AVX512PF/ER/CD SHA AVX512BW/VL */
      BIT(0) | BIT(3) | BIT(5) | BIT(6) | BIT(8) | BIT(9) | BIT(11) |
      BIT(13) | BIT(16) | BIT(17) | BIT(18) | BIT(19) | BIT(21) | BIT(23) |
      BIT(24) | BIT(26) | BIT(27) | BIT(28) | BIT(29) | BIT(30) | BIT(31) },
    { 7, 0, CPUID_ECX,             /* PREFETCHWT1 AVX512VBMI AVX512VBMI2 GFNI
                                    * VAES VPCLMULQDQ AVX512VNNI/BITALG
                                    * AVX512VPOPCNTDQ RDPID CLDEMOTE */
      BIT(0) | BIT(1) | BIT(6) | BIT(8) | BIT(9) | BIT(10) | BIT(11) |
      BIT(12) | BIT(14) | BIT(22) | BIT(25) },
    { 7, 0, CPUID_EDX,             /* AVX512_4VNNIW/4FMAPS FSRM MD_CLEAR
                                    * SERIALIZE IBRSB STIBP SSBD */
      BIT(2) | BIT(3) | BIT(4) | BIT(10) | BIT(14) | BIT(26) | BIT(27) |
      BIT(31) },
    { 7, 1, CPUID_EAX,             /* AVX_VNNI AVX512_BF16 FZRM FSRS FSRCS */
      BIT(4) | BIT(5) | BIT(10) | BIT(11) | BIT(12) },
    { 7, 1, CPUID_EBX, 0 },
    { 7, 1, CPUID_ECX, 0 },
    { 7, 1, CPUID_EDX, 0 },
    { 7, 2, CPUID_EAX, 0 },
    { 7, 2, CPUID_EBX, 0 },
    { 7, 2, CPUID_ECX, 0 },
    { 7, 2, CPUID_EDX, BIT(0) | BIT(5) },           /* INTEL_PSFD MCDT_NO */
    { 0x80000001, ANY_SUBLEAF, CPUID_EDX,  /* SYSCALL NX MMXEXT FFXSR RDTSCP
                                            * LM 3DNOWEXT 3DNOW */
      BIT(11) | BIT(20) | BIT(22) | BIT(25) | BIT(27) | BIT(29) | BIT(30) |
      BIT(31) },
    { 0x80000001, ANY_SUBLEAF, CPUID_ECX,  /* LAHF_LM CMP_LEGACY ABM SSE4A
                                            * MISALIGNSSE 3DNOWPREFETCH XOP
                                            * FMA4 TBM DBEXT */
      BIT(0) | BIT(1) | BIT(5) | BIT(6) | BIT(7) | BIT(8) | BIT(11) |
      BIT(16) | BIT(21) | BIT(26) },
    { 0x80000007, ANY_SUBLEAF, CPUID_EDX, 0 },       /* ITSC is opt-in only */
    { 0x80000008, ANY_SUBLEAF, CPUID_EBX,  /* CLZERO RSTR_FP_ERR_PTRS IBPB
                                            * SSB_NO BTC_NO IBPB_RET */
      BIT(0) | BIT(2) | BIT(12) | BIT(26) | BIT(29) | BIT(30) },
    { 0x80000021, ANY_SUBLEAF, CPUID_EAX, BIT(2) | BIT(6) },  /* LFENCE_DISPATCH
                                                               * NSCB */
};

/*
 * What perch hides on top of Xen's policy, and the bits the brief names
 * that Xen already hides from PV guests (marked "Xen:"). Linux reads each
 * as "absent" and leaves the feature, and its MSRs, alone.
 */
#define XSAVE_DEP "XSAVE state perch does not offer the guest kernel (host/cpu/cpuid.c: x87, SSE, AVX, AVX-512)"
#define SPEC_MSR  "enumerates MSR_SPEC_CTRL/PRED_CMD, which perch does not emulate"

const struct cpuid_hidden_bit cpuid_hidden[] = {
    { 1, ANY_SUBLEAF, CPUID_EDX, 3, "PSE", "Xen: HVM only; PV guests use no superpages" },
    { 1, ANY_SUBLEAF, CPUID_EDX, 7, "MCE", "machine-check MSRs (MCG_CAP, MCi_*) are not emulated" },
    { 1, ANY_SUBLEAF, CPUID_EDX, 12, "MTRR", "Xen: not for PV; MTRR MSRs are not emulated" },
    { 1, ANY_SUBLEAF, CPUID_EDX, 13, "PGE", "Xen: HVM only; the guest cannot set CR4.PGE" },
    { 1, ANY_SUBLEAF, CPUID_EDX, 14, "MCA", "machine-check MSRs are not emulated" },
    { 1, ANY_SUBLEAF, CPUID_EDX, 22, "ACPI", "thermal-control MSRs; Linux clears it for a domU" },
    { 1, ANY_SUBLEAF, CPUID_ECX, 3, "MONITOR", "Xen: not for PV; monitor/mwait fault at CPL3" },
    { 1, ANY_SUBLEAF, CPUID_ECX, 15, "PDCM", "Xen: not for PV; PERF_CAPABILITIES MSR" },
    { 1, ANY_SUBLEAF, CPUID_ECX, 17, "PCID", "Xen: HVM only; CR3 loads are perch's, without PCIDs" },
    { 1, ANY_SUBLEAF, CPUID_ECX, 18, "DCA", "Xen: not for PV; DCA MSRs" },
    { 1, ANY_SUBLEAF, CPUID_ECX, 21, "X2APIC", "no x2APIC MSRs; Linux clears it under Xen PV" },
    { 1, ANY_SUBLEAF, CPUID_ECX, 24, "TSC_DEADLINE", "Xen: HVM only; TSC_DEADLINE MSR" },
    { 7, 0, CPUID_EBX, 0, "FSGSBASE", "wr{fs,gs}base would bypass the vCPU's segment bases" },
    { 7, 0, CPUID_EBX, 1, "TSC_ADJUST", "Xen: HVM only; TSC_ADJUST MSR" },
    { 7, 0, CPUID_EBX, 7, "SMEP", "Xen: HVM only; the guest cannot set CR4.SMEP" },
    { 7, 0, CPUID_EBX, 10, "INVPCID", "Xen: HVM only; follows PCID" },
    { 7, 0, CPUID_EBX, 14, "MPX", XSAVE_DEP },
    { 7, 0, CPUID_EBX, 20, "SMAP", "Xen: HVM only; the guest cannot set CR4.SMAP" },
    { 7, 0, CPUID_ECX, 3, "PKU", "Xen: HVM only; PKRU is XSAVE state" },
    { 7, 0, CPUID_ECX, 16, "LA57", "Xen: not for PV; PV paging is 4-level" },
    { 7, 0, CPUID_ECX, 22, "RDPID", "Linux would write MSR_TSC_AUX for it" },
    { 7, 0, CPUID_EDX, 26, "IBRSB", SPEC_MSR },
    { 7, 0, CPUID_EDX, 27, "STIBP", SPEC_MSR },
    { 7, 0, CPUID_EDX, 28, "L1D_FLUSH", "Xen: HVM only; MSR_FLUSH_CMD" },
    { 7, 0, CPUID_EDX, 29, "ARCH_CAPS", "Xen: opt-in only; ARCH_CAPABILITIES MSR" },
    { 7, 0, CPUID_EDX, 31, "SSBD", SPEC_MSR },
    { 7, 2, CPUID_EDX, 0, "INTEL_PSFD", SPEC_MSR },
    { 0x80000001, ANY_SUBLEAF, CPUID_EDX, 26, "PAGE1GB", "Xen: HVM only; no superpages" },
    { 0x80000001, ANY_SUBLEAF, CPUID_EDX, 27, "RDTSCP", "Linux would write MSR_TSC_AUX for it" },
    { 0x80000001, ANY_SUBLEAF, CPUID_ECX, 26, "DBEXT", "debug address-mask MSRs are not emulated" },
    { 0x80000001, ANY_SUBLEAF, CPUID_ECX, 29, "MONITORX", "Xen: not for PV; monitorx/mwaitx" },
    { 0x80000008, ANY_SUBLEAF, CPUID_EBX, 12, "IBPB", SPEC_MSR },
    { 0x80000008, ANY_SUBLEAF, CPUID_EBX, 14, "IBRS", SPEC_MSR },
    { 0x80000008, ANY_SUBLEAF, CPUID_EBX, 24, "AMD_SSBD", SPEC_MSR },
    { 0x80000008, ANY_SUBLEAF, CPUID_EBX, 25, "VIRT_SSBD", "Xen: special; VIRT_SPEC_CTRL MSR" },
    { 0x80000008, ANY_SUBLEAF, CPUID_EBX, 30, "IBPB_RET", "meaningless without IBPB" },
};
const size_t cpuid_hidden_count = sizeof(cpuid_hidden) / sizeof(cpuid_hidden[0]);

/* The CPU as the Launcher described it: the one source of the Host's
 * knowledge of the CPU (abi/layout.h, struct perch_cpu). */
static void real_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    cpuid_table_read(&perch_shared.boot.cpu, leaf, subleaf, out);
}

static bool matches(uint32_t leaf, uint32_t subleaf, uint32_t want_leaf, uint32_t want_sub)
{
    return leaf == want_leaf && (want_sub == ANY_SUBLEAF || subleaf == want_sub);
}

/* Clear every feature bit the policy and the hidden table do not allow. */
static void apply_feature_policy(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    for (size_t i = 0; i < sizeof(xen_pv_features) / sizeof(xen_pv_features[0]); i++) {
        const struct feature_word *w = &xen_pv_features[i];

        if (matches(leaf, subleaf, w->leaf, w->subleaf))
            r[w->reg] &= w->allowed;
    }
    for (size_t i = 0; i < cpuid_hidden_count; i++) {
        const struct cpuid_hidden_bit *h = &cpuid_hidden[i];

        if (matches(leaf, subleaf, h->leaf, h->subleaf))
            r[h->reg] &= ~BIT(h->bit);
    }
}

static void set4(uint32_t out[4], uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}

static uint32_t min32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* Highest set bit, counting from 1 (0 for 0). */
static unsigned fls64(uint64_t x)
{
    return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/*
 * Xen's own leaves. A PV guest has them at 0x40000000 only (the copy at
 * 0x40000100 is for Viridian HVM guests), so base+0x100.. read as zero.
 */
static void xen_leaf(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    uint32_t idx = leaf - XEN_LEAF_BASE;
    uint32_t raw[4];

    switch (idx) {
    case 0:
        set4(out, XEN_LEAF_BASE + XEN_LEAF_COUNT, XEN_SIGNATURE_EBX,
             XEN_SIGNATURE_ECX, XEN_SIGNATURE_EDX);
        break;
    case 1:
        out[0] = XEN_VERSION;
        break;
    case 2:
        /* One hypercall page, the MSR that would load it, and the PV
         * feature Linux depends on. */
        set4(out, 1, XEN_MSR_BASE, XEN_FEAT1_PRESERVE_AD, 0);
        break;
    case 3:
        /* Time, subleaf 0: no TSC emulation (bit 0 clear), TSC reliable if
         * invariant, no RDTSCP (hidden); tsc_mode 0 (default). perch does
         * not know the TSC frequency here: 0. */
        if (subleaf == 0) {
            real_cpuid(0x80000007, 0, raw);
            out[0] = (raw[3] & BIT(8)) ? BIT(1) : 0;
        }
        break;
    case 5:
        /* PV parameters: the width of a machine address. */
        if (subleaf == 0)
            out[1] = fls64(perch_shared.boot.machine_frames - 1) + XEN_PAGE_SHIFT;
        break;
    default:
        /* 4 is for HVM guests; beyond 5 there is nothing. */
        break;
    }
}

static bool vendor_is_amd(const uint32_t leaf0[4])
{
    return (leaf0[1] == 0x68747541u && leaf0[3] == 0x69746e65u) ||  /* AuthenticAMD */
           (leaf0[1] == 0x6f677948u && leaf0[3] == 0x6e65476eu);    /* HygonGenuine */
}

bool cpu_vendor_is_amd(void)
{
    uint32_t leaf0[4];

    real_cpuid(0, 0, leaf0);
    return vendor_is_amd(leaf0);
}

bool cpu_vendor_is_intel(void)
{
    uint32_t leaf0[4];

    real_cpuid(0, 0, leaf0);
    return leaf0[1] == 0x756e6547u && leaf0[2] == 0x6c65746eu &&
           leaf0[3] == 0x49656e69u;                             /* GenuineIntel */
}

/* Leaf 4 on Intel: the cache parameters, reserved bits cleared. */
static void cache_leaf(uint32_t subleaf, uint32_t r[4])
{
    uint32_t type = r[0] & 0x1f;

    if (subleaf > 5 || type < 1 || type > 3) {
        set4(r, 0, 0, 0, 0);
        return;
    }
    r[0] &= 0xffffc3ffu;
    r[3] &= 0x7u;
}

/* ---- XSAVE ----------------------------------------------------------------- */

/*
 * Guest processes run at CPL3 with the XCR0 of the machine (docs/kvm.md):
 * whatever CPUID they or the guest kernel are shown, every component in it
 * executes, so its registers are only private to a process if the guest
 * kernel saves them. perch therefore offers the kernel XSAVE for every
 * component of the real XCR0 that Linux can save in the standard format,
 * and makes the features that enable their use follow that offer, not the
 * profile (CPUID hiding does not stop an instruction). PKRU and AMX's tiles
 * are not offered (PKU is HVM-only in Xen, AMX needs XFD, neither can be
 * switched by a PV kernel): docs/xen-pv.md says what that leaves. XSAVEC
 * and XSAVES stay hidden: they need ring 0 or sizes perch would invent.
 */
#define XSAVE_LEGACY_AND_HEADER 576u     /* the FXSAVE image, then the header */
#define XSAVEOPT_BIT BIT(0)              /* leaf 0xd subleaf 1, eax */
#define XCR0_OFFERED PERCH_XCR0_OFFERED
_Static_assert(XCR0_OFFERED == (XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_AVX512),
               "abi/layout.h's offer is the components named here");

#define LEAF1_ECX_XSAVE   BIT(26)
#define LEAF1_ECX_OSXSAVE BIT(27)
#define LEAF1_ECX_AVX     BIT(28)
#define LEAF7_EBX_AVX512F BIT(16)

uint64_t guest_xcr0_allowed(void)
{
    uint64_t real = perch_shared.boot.cpu.xcr0, allowed;

    if ((real & (XCR0_X87 | XCR0_SSE)) != (XCR0_X87 | XCR0_SSE))
        return 0;
    allowed = real & XCR0_OFFERED;
    /* Linux takes AVX-512's three components together, on top of AVX. */
    if ((allowed & XCR0_AVX512) != XCR0_AVX512 || !(allowed & XCR0_AVX))
        allowed &= ~XCR0_AVX512;
    return allowed;
}

/* Bytes of a standard-format XSAVE area for the components in mask, as
 * the real CPU lays them out (it executes the kernel's XSAVE). */
static uint32_t xsave_size(uint64_t mask)
{
    uint32_t size = XSAVE_LEGACY_AND_HEADER, r[4];

    for (unsigned i = 2; i < 32; i++) {
        if (!(mask >> i & 1))
            continue;
        real_cpuid(0xd, i, r);            /* eax size, ebx offset */
        if (r[1] + r[0] > size)
            size = r[1] + r[0];
    }
    return size;
}

/* Leaf 0xd: the components offered, their sizes, XSAVEOPT only. */
static void xsave_leaf(uint32_t subleaf, uint32_t r[4])
{
    uint64_t allowed = guest_xcr0_allowed();

    if (!allowed || (subleaf >= 2 && !(allowed >> subleaf & 1)) || subleaf >= 32) {
        set4(r, 0, 0, 0, 0);
        return;
    }
    if (subleaf == 0)
        set4(r, (uint32_t)allowed, xsave_size(current->xcr0), xsave_size(allowed), 0);
    else if (subleaf == 1)
        set4(r, r[0] & XSAVEOPT_BIT, 0, 0, 0);
    else
        r[2] = r[3] = 0;      /* user state, standard offsets */
}

/* XSAVE, AVX and AVX512F exactly as far as their state is offered: on a
 * CPU that runs them, a guest kernel that did not know would not save
 * them. OSXSAVE as the guest set its CR4. */
static void xsave_features(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    uint64_t allowed = guest_xcr0_allowed();

    if (leaf == 1) {
        r[2] &= ~(LEAF1_ECX_XSAVE | LEAF1_ECX_OSXSAVE | LEAF1_ECX_AVX);
        if (allowed)
            r[2] |= LEAF1_ECX_XSAVE;
        if (allowed && (current->cr4 & CR4_OSXSAVE))
            r[2] |= LEAF1_ECX_OSXSAVE;
        if (allowed & XCR0_AVX)
            r[2] |= LEAF1_ECX_AVX;
    } else if (leaf == 7 && subleaf == 0) {
        r[1] &= ~LEAF7_EBX_AVX512F;
        if (allowed & XCR0_AVX512)
            r[1] |= LEAF7_EBX_AVX512F;
    }
}

/* ---- Dependencies between features ---------------------------------------- */

/*
 * A feature offered without the one it builds on is a CPU no one made, and
 * kernels trust such pairs: Linux 6.1's memmove takes FSRM to imply ERMS,
 * and ran away when a kernel cleared ERMS alone. So a feature goes when
 * the one it needs is absent, as in Xen's deep dependency table. Parents
 * come before their children; a parent in an earlier leaf is read back
 * through guest_cpuid().
 */
struct feature {
    uint32_t leaf, subleaf;
    uint8_t reg, bit;
};
struct dependency {
    struct feature needs, child;
};

#define F(l, s, r, b) { l, s, CPUID_##r, b }
static const struct dependency dependencies[] = {
    /* Fast short rep movsb, zero-length stosb, cmpsb builds on ERMS. */
    { F(7, 0, EBX, 9), F(7, 0, EDX, 4) },        /* ERMS -> FSRM */
    { F(7, 0, EBX, 9), F(7, 1, EAX, 10) },       /* ERMS -> FZRM */
    { F(7, 0, EBX, 9), F(7, 1, EAX, 11) },       /* ERMS -> FSRS */
    { F(7, 0, EBX, 9), F(7, 1, EAX, 12) },       /* ERMS -> FSRCS */
    /* What uses the ymm registers builds on AVX. */
    { F(1, 0, ECX, 28), F(1, 0, ECX, 12) },      /* AVX -> FMA */
    { F(1, 0, ECX, 28), F(1, 0, ECX, 29) },      /* AVX -> F16C */
    { F(1, 0, ECX, 28), F(7, 0, EBX, 5) },       /* AVX -> AVX2 */
    { F(1, 0, ECX, 28), F(7, 0, ECX, 9) },       /* AVX -> VAES */
    { F(1, 0, ECX, 28), F(7, 0, ECX, 10) },      /* AVX -> VPCLMULQDQ */
    { F(1, 0, ECX, 28), F(7, 1, EAX, 4) },       /* AVX -> AVX_VNNI */
    { F(1, 0, ECX, 28), F(0x80000001, 0, ECX, 11) },  /* AVX -> XOP */
    { F(1, 0, ECX, 28), F(0x80000001, 0, ECX, 16) },  /* AVX -> FMA4 */
    /* Every AVX-512 extension builds on AVX512F (and its state). */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 17) },      /* DQ */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 21) },      /* IFMA */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 26) },      /* PF */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 27) },      /* ER */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 28) },      /* CD */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 30) },      /* BW */
    { F(7, 0, EBX, 16), F(7, 0, EBX, 31) },      /* VL */
    { F(7, 0, EBX, 16), F(7, 0, ECX, 1) },       /* VBMI */
    { F(7, 0, EBX, 16), F(7, 0, ECX, 6) },       /* VBMI2 */
    { F(7, 0, EBX, 16), F(7, 0, ECX, 11) },      /* VNNI */
    { F(7, 0, EBX, 16), F(7, 0, ECX, 12) },      /* BITALG */
    { F(7, 0, EBX, 16), F(7, 0, ECX, 14) },      /* VPOPCNTDQ */
    { F(7, 0, EBX, 16), F(7, 0, EDX, 2) },       /* 4VNNIW */
    { F(7, 0, EBX, 16), F(7, 0, EDX, 3) },       /* 4FMAPS */
    { F(7, 0, EBX, 16), F(7, 1, EAX, 5) },       /* BF16 */
};
#undef F

static bool same_leaf(const struct feature *f, uint32_t leaf, uint32_t subleaf)
{
    return f->leaf == leaf && (!cpuid_leaf_has_subleaves(leaf) || f->subleaf == subleaf);
}

static bool feature_offered(const struct feature *f, uint32_t leaf, uint32_t subleaf,
                            const uint32_t r[4])
{
    uint32_t other[4];

    if (same_leaf(f, leaf, subleaf))
        return r[f->reg] & BIT(f->bit);
    guest_cpuid(f->leaf, f->subleaf, other);
    return other[f->reg] & BIT(f->bit);
}

static void apply_dependencies(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
    for (size_t i = 0; i < sizeof(dependencies) / sizeof(dependencies[0]); i++) {
        const struct dependency *d = &dependencies[i];

        if (same_leaf(&d->child, leaf, subleaf) && (r[d->child.reg] & BIT(d->child.bit)) &&
            !feature_offered(&d->needs, leaf, subleaf, r))
            r[d->child.reg] &= ~BIT(d->child.bit);
    }
}

/* Basic leaves 0 .. MAX_BASIC_LEAF, after the feature masks. */
static void basic_leaf(uint32_t leaf, uint32_t subleaf, bool amd, uint32_t r[4])
{
    uint32_t raw7[4];

    switch (leaf) {
    case 0:
        r[0] = min32(r[0], MAX_BASIC_LEAF);
        break;
    case 1:
        r[0] &= 0x0fff0fffu;    /* no processor type */
        r[1] &= 0x00ffffffu;    /* APIC ID 0 */
        r[2] |= HYPERVISOR_BIT;
        break;
    case 2:
        if (amd)
            set4(r, 0, 0, 0, 0);
        break;
    case 4:
        if (amd)
            set4(r, 0, 0, 0, 0);
        else
            cache_leaf(subleaf, r);
        break;
    case 0xd:
        xsave_leaf(subleaf, r);
        break;
    case 7:
        real_cpuid(7, 0, raw7);
        if (subleaf > min32(raw7[0], MAX_LEAF7_SUBLEAF))
            set4(r, 0, 0, 0, 0);
        else if (subleaf == 0)
            r[0] = min32(r[0], MAX_LEAF7_SUBLEAF);
        break;
    default:
        /* 3 serial number, 5 MONITOR, 6 power, 8, 9 DCA, 0xa PMU,
         * 0xb topology, 0xc: none for a PV guest. */
        set4(r, 0, 0, 0, 0);
        break;
    }
}

/* Extended leaves 0x80000000 .. the vendor's maximum, after the masks. */
static void extended_leaf(uint32_t leaf, bool amd, uint32_t r[4])
{
    uint32_t leaf1[4];

    switch (leaf) {
    case 0x80000000:
        r[0] = min32(r[0], amd ? MAX_EXTD_LEAF_AMD : MAX_EXTD_LEAF_INTEL);
        if (!amd)
            r[1] = r[2] = r[3] = 0;
        break;
    case 0x80000001:
        if (!amd) {
            r[0] = r[1] = 0;
            break;
        }
        r[1] &= 0xff00ffffu;
        /* AMD repeats leaf 1's basic features here: the guest's, filtered. */
        guest_cpuid(1, 0, leaf1);
        r[3] |= leaf1[3] & (BIT(0) | BIT(1) | BIT(2) | BIT(3) | BIT(4) | BIT(5) |
                            BIT(6) | BIT(7) | BIT(8) | BIT(9) | BIT(12) | BIT(13) |
                            BIT(14) | BIT(15) | BIT(16) | BIT(17) | BIT(23) | BIT(24));
        break;
    case 0x80000002: case 0x80000003: case 0x80000004:
        break;                  /* brand string */
    case 0x80000005:
        if (!amd)
            set4(r, 0, 0, 0, 0);
        break;
    case 0x80000006:
        if (!amd)
            r[0] = r[1] = r[3] = 0;
        break;
    case 0x80000007:
        r[0] = r[1] = r[2] = 0;
        break;
    case 0x80000008:
        /* Physical bits as the CPU has them, 48 linear bits (4-level). */
        r[0] = (r[0] & 0xffu) | (48u << 8);
        r[2] = amd ? r[2] & 0x0003f0ffu : 0;
        r[3] = 0;
        break;
    case 0x8000001a:
        break;                  /* AMD performance hints */
    case 0x80000021:
        r[1] = r[2] = r[3] = 0;
        break;
    default:
        set4(r, 0, 0, 0, 0);
        break;
    }
}

void guest_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    uint32_t leaf0[4], max[4];
    bool amd;

    set4(out, 0, 0, 0, 0);
    if (leaf >= XEN_LEAF_BASE && leaf <= XEN_LEAF_BASE + XEN_LEAF_COUNT) {
        xen_leaf(leaf, subleaf, out);
        return;
    }
    real_cpuid(0, 0, leaf0);
    amd = vendor_is_amd(leaf0);
    if (leaf < 0x80000000u) {
        if (leaf > min32(leaf0[0], MAX_BASIC_LEAF))
            return;
    } else {
        real_cpuid(0x80000000u, 0, max);
        if (leaf > min32(max[0], amd ? MAX_EXTD_LEAF_AMD : MAX_EXTD_LEAF_INTEL))
            return;
    }
    real_cpuid(leaf, subleaf, out);
    apply_feature_policy(leaf, subleaf, out);
    xsave_features(leaf, subleaf, out);
    apply_dependencies(leaf, subleaf, out);
    if (leaf < 0x80000000u)
        basic_leaf(leaf, subleaf, amd, out);
    else
        extended_leaf(leaf, amd, out);
}
