/*
 * Unit tests of the guest's CPUID (host/cpu/cpuid.c): on a fake CPU that
 * claims every feature, the guest sees Xen's PV policy: hidden bits really
 * cleared, the hypervisor bit set, Xen's leaves, zeros where Xen gives
 * zeros.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/cpu/cpuid.h"
#include "../../host/core/vcpu.h"

#define ALL 0xffffffffu

/* ---- A fake CPU: every feature bit set, Intel or AMD --------------------- */

static int fake_amd;
static uint32_t fake_leaf7_ebx_clear;   /* feature bits this CPU lacks */

static void set4(uint32_t out[4], uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}

static void fake_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    switch (leaf) {
    case 0:
        if (fake_amd)
            set4(out, 0x10, 0x68747541, 0x444d4163, 0x69746e65);  /* AuthenticAMD */
        else
            set4(out, 0x16, 0x756e6547, 0x6c65746e, 0x49656e69);  /* GenuineIntel */
        break;
    case 1:
        /* Processor type 1, APIC ID 5, 16 logical CPUs, clflush 8. */
        set4(out, 0x000916ea, 0x05100800, ALL, ALL);
        break;
    case 0xd:
        /* XSAVE: x87, SSE, AVX (256 bytes at 576), AVX-512 (64 at 1088,
         * 512 at 1152, 1024 at 1664) and PKRU (8 at 2688), Intel's layout. */
        if (subleaf == 0)
            set4(out, 0x2e7, 2696, 2696, 0);
        else if (subleaf == 1)
            set4(out, 0xf, 0, 0, 0);
        else if (subleaf == 2)
            set4(out, 256, 576, 0, 0);
        else if (subleaf == 5)
            set4(out, 64, 1088, 0, 0);
        else if (subleaf == 6)
            set4(out, 512, 1152, 0, 0);
        else if (subleaf == 7)
            set4(out, 1024, 1664, 0, 0);
        else if (subleaf == 9)
            set4(out, 8, 2688, 0, 0);
        else
            set4(out, 0, 0, 0, 0);
        break;
    case 4:
        if (subleaf < 4)
            set4(out, 0xfc00ffe1u | (subleaf == 3 ? 0x60 : 0x20), 0x01c0003f, 0x3f, ALL);
        else
            set4(out, 0, 0, 0, 0);
        break;
    case 7:
        set4(out, subleaf == 0 ? 3 : ALL, subleaf == 0 ? ALL & ~fake_leaf7_ebx_clear : ALL,
             ALL, ALL);
        break;
    case 0x80000000:
        set4(out, fake_amd ? 0x80000028 : 0x80000008, 0x11111111, 0x22222222, 0x33333333);
        break;
    case 0x80000008:
        set4(out, 0x3927, ALL, ALL, ALL);      /* 39 physical, 57 linear bits */
        break;
    default:
        set4(out, ALL, ALL, ALL, ALL);
        break;
    }
}

static uint32_t r[4];

static void cpuid(uint32_t leaf, uint32_t subleaf)
{
    guest_cpuid(leaf, subleaf, r);
}

/* The fake CPU described to the Host, its guest code running with xcr0. */
static void setup_cpu(int amd, uint64_t xcr0, uint32_t leaf7_ebx_clear)
{
    host_env_reset(64);
    fake_amd = amd;
    fake_leaf7_ebx_clear = leaf7_ebx_clear;
    host_env_describe_cpu(fake_cpuid, xcr0);
    current->cr4 = 0;
    current->xcr0 = 3;
}

static void setup(int amd)
{
    setup_cpu(amd, 0x207, 0);
}

/* ---- Tests ------------------------------------------------------------------ */

static void xen_signature_and_leaves(void)
{
    setup(0);
    cpuid(0x40000000, 0);
    CHECK(r[0] == 0x40000005);
    CHECK(memcmp(&r[1], "XenVMMXenVMM", 12) == 0);
    cpuid(0x40000001, 0);
    CHECK(r[0] == 0x40011 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    cpuid(0x40000002, 0);
    CHECK(r[0] == 1 && r[1] == 0x40000000 && r[2] == 1 && r[3] == 0);
    cpuid(0x40000004, 0);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    /* 64 machine frames: addresses of 6 + 12 bits. */
    cpuid(0x40000005, 0);
    CHECK(r[0] == 0 && r[1] == 18 && r[2] == 0 && r[3] == 0);
    cpuid(0x40000005, 1);
    CHECK(r[1] == 0);
}

static void xen_time_leaf(void)
{
    setup(0);
    cpuid(0x40000003, 0);
    /* Invariant TSC on the fake CPU: reliable; no emulation, no RDTSCP,
     * tsc_mode default. */
    CHECK(r[0] == 2 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    cpuid(0x40000003, 1);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
}

/* A PV guest has no copy of the leaves at 0x40000100 (that is Viridian's). */
static void nothing_at_0x40000100(void)
{
    setup(0);
    for (uint32_t leaf = 0x40000006; leaf < 0x40000200; leaf += 0xfa) {
        cpuid(leaf, 0);
        CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    }
    cpuid(0x40000100, 0);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    cpuid(0x40000102, 0);
    CHECK(r[0] == 0);
}

static void hypervisor_bit_set(void)
{
    setup(0);
    cpuid(1, 0);
    CHECK(r[2] & (1u << 31));
}

static void every_hidden_bit_is_clear(void)
{
    for (int amd = 0; amd < 2; amd++) {
        setup(amd);
        CHECK(cpuid_hidden_count > 30);
        for (size_t i = 0; i < cpuid_hidden_count; i++) {
            const struct cpuid_hidden_bit *h = &cpuid_hidden[i];

            cpuid(h->leaf, h->subleaf == 0xffffffffu ? 0 : h->subleaf);
            if (r[h->reg] & (1u << h->bit)) {
                printf("FAIL %s: %s still visible\n", check_case_name, h->name);
                check_case_failed = 1;
                return;
            }
            CHECK(h->why && h->why[0]);
        }
    }
}

/* The ones the brief names, spelled out. */
static void named_features_hidden(void)
{
    setup(0);
    cpuid(1, 0);
    CHECK(!(r[3] & (1u << 3)));              /* PSE */
    CHECK(!(r[3] & (1u << 12)));             /* MTRR */
    CHECK(!(r[3] & (1u << 13)));             /* PGE */
    CHECK(!(r[2] & (1u << 3)));              /* MONITOR */
    CHECK(!(r[2] & (1u << 17)));             /* PCID */
    CHECK(!(r[2] & (1u << 18)));             /* DCA */
    CHECK(!(r[2] & (1u << 21)));             /* X2APIC */
    cpuid(0x80000001, 0);
    CHECK(!(r[3] & (1u << 27)));             /* RDTSCP */
    cpuid(7, 0);
    CHECK(!(r[2] & (1u << 22)));             /* RDPID */
    CHECK(!(r[3] & (3u << 26)));             /* IBRSB, STIBP */
    CHECK(!(r[3] & (1u << 29)));             /* ARCH_CAPS */
    CHECK(!(r[3] & (1u << 31)));             /* SSBD */
}

static void what_stays_visible(void)
{
    setup(0);
    cpuid(1, 0);
    /* FPU TSC MSR PAE CX8 APIC CMOV PAT MMX FXSR SSE SSE2 HTT */
    CHECK((r[3] & 0x17818371u) == 0x17818371u);
    /* SSE3 SSSE3 CX16 SSE4.1 SSE4.2 POPCNT AESNI */
    CHECK((r[2] & 0x02982201u) == 0x02982201u);
    cpuid(0x80000001, 0);
    CHECK(r[3] & (1u << 20));                /* NX */
    CHECK(r[3] & (1u << 29));                /* LM */
    CHECK(r[3] & (1u << 11));                /* SYSCALL */
    cpuid(7, 0);
    CHECK(r[1] & (1u << 9));                 /* ERMS */
    CHECK(r[3] & (1u << 10));                /* MD_CLEAR */
}

static void leaf1_identity(void)
{
    setup(0);
    cpuid(1, 0);
    CHECK(r[0] == 0x000906ea);               /* processor type cleared */
    CHECK(r[1] == 0x00100800);               /* APIC ID 0 */
}

static void leaf_maxima(void)
{
    setup(0);
    cpuid(0, 0);
    CHECK(r[0] == 0xd);
    CHECK(r[1] == 0x756e6547 && r[3] == 0x49656e69 && r[2] == 0x6c65746e);
    cpuid(0xe, 0);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    cpuid(0x80000000, 0);
    CHECK(r[0] == 0x80000008 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    cpuid(0x80000009, 0);
    CHECK(r[0] == 0 && r[1] == 0);
    cpuid(0xc0000000, 0);
    CHECK(r[0] == 0 && r[3] == 0);
    cpuid(0x20000000, 0);
    CHECK(r[0] == 0 && r[3] == 0);
}

static void leaf7_subleaves(void)
{
    setup(0);
    cpuid(7, 0);
    CHECK(r[0] == 2);
    cpuid(7, 1);
    /* AVX_VNNI (AVX is offered), FZRM FSRS FSRCS; no AVX512_BF16 (AVX-512's
     * state is not in this XCR0). */
    CHECK(r[0] == ((1u << 4) | (1u << 10) | (1u << 11) | (1u << 12)));
    CHECK(r[1] == 0 && r[2] == 0 && r[3] == 0);
    cpuid(7, 2);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == (1u << 5));  /* MCDT_NO */
    cpuid(7, 3);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
}

static void leaves_xen_empties(void)
{
    static const uint32_t empty[] = { 3, 5, 6, 8, 9, 0xa, 0xb, 0xc };

    setup(0);
    for (unsigned i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
        cpuid(empty[i], 0);
        CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
        cpuid(empty[i], 1);
        CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    }
    cpuid(0x80000007, 0);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
}

static void intel_cache_leaf(void)
{
    setup(0);
    cpuid(4, 0);
    CHECK(r[0] == ((0xfc00ffe1u | 0x20) & 0xffffc3ffu));
    CHECK(r[3] == 7);
    cpuid(4, 4);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
}

static void address_sizes(void)
{
    setup(0);
    cpuid(0x80000008, 0);
    CHECK(r[0] == 0x3027);                   /* 48 linear bits: 4-level */
    CHECK(r[2] == 0 && r[3] == 0);
    CHECK(r[1] == ((1u << 0) | (1u << 2) | (1u << 26) | (1u << 29)));
}

static void amd_extended_leaves(void)
{
    uint32_t leaf1_edx;

    setup(1);
    cpuid(0x80000000, 0);
    CHECK(r[0] == 0x80000021 && r[1] == 0x11111111);
    cpuid(1, 0);
    leaf1_edx = r[3];
    cpuid(0x80000001, 0);
    /* AMD repeats the guest's leaf-1 basics (not PSE, MTRR, PGE...). */
    CHECK((r[3] & 0x0183f3ffu) == (leaf1_edx & 0x0183f3ffu));
    CHECK(!(r[3] & (1u << 3)) && !(r[3] & (1u << 13)));
    CHECK(r[1] == 0xff00ffffu);
    cpuid(4, 0);
    CHECK(r[0] == 0 && r[3] == 0);
    cpuid(0x80000019, 0);
    CHECK(r[0] == 0);
    cpuid(0x8000001a, 0);
    CHECK(r[0] == ALL);
    cpuid(0x80000021, 0);
    CHECK(r[0] == ((1u << 2) | (1u << 6)) && r[1] == 0);
    cpuid(0x80000022, 0);
    CHECK(r[0] == 0);
}

/* XSAVE for x87, SSE and AVX as the real XCR0 has them, standard format
 * only (XSAVEOPT, not XSAVEC or XSAVES), OSXSAVE as the guest's CR4 says,
 * sizes for the guest's own XCR0. */
static void xsave_offered(void)
{
    setup(0);
    cpuid(1, 0);
    CHECK((r[2] & (1u << 26)) && !(r[2] & (1u << 27)));      /* XSAVE, no OSXSAVE */
    CHECK((r[2] & (1u << 28)) && (r[2] & (1u << 12)) && (r[2] & (1u << 29)));
    current->cr4 = 1u << 18;
    cpuid(1, 0);
    CHECK(r[2] & (1u << 27));
    cpuid(7, 0);
    CHECK(r[1] & (1u << 5));                                   /* AVX2 */
    cpuid(0xd, 0);
    CHECK(r[0] == 7 && r[1] == 576 && r[2] == 832 && r[3] == 0);
    current->xcr0 = 7;
    cpuid(0xd, 0);
    CHECK(r[1] == 832);
    cpuid(0xd, 1);
    CHECK(r[0] == 1 && r[1] == 0 && r[2] == 0 && r[3] == 0);   /* XSAVEOPT only */
    cpuid(0xd, 2);
    CHECK(r[0] == 256 && r[1] == 576);
    cpuid(0xd, 9);                                             /* PKRU: not offered */
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
}

/* Guest code that runs without XSAVE (XCR0 0), or without AVX in XCR0,
 * gets neither XSAVE nor AVX, nor what builds on them (the kernel could
 * not switch them). */
static void xsave_follows_the_real_cpu(void)
{
    setup_cpu(0, 0, 0);
    cpuid(1, 0);
    CHECK(!(r[2] & (0xfu << 26)) && !(r[2] & (1u << 12)));
    cpuid(7, 0);
    CHECK(!(r[1] & (1u << 5)) && !(r[1] & (1u << 16)));
    cpuid(0xd, 0);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    CHECK(guest_xcr0_allowed() == 0);
    setup_cpu(0, 3, 0);
    cpuid(1, 0);
    CHECK((r[2] & (1u << 26)) && !(r[2] & (1u << 28)));
    cpuid(7, 0);
    CHECK(!(r[1] & (1u << 5)));
    cpuid(0xd, 0);
    CHECK(r[0] == 3 && r[2] == 576);
}

/* Where guest code runs with AVX-512's state on, the kernel is offered it
 * (sizes as the real CPU lays them out) and AVX512F with it, even on a CPU
 * described without AVX512F: a process would use it either way. */
static void avx512_follows_the_real_xcr0(void)
{
    setup_cpu(0, 0x2e7, 1u << 16);
    cpuid(7, 0);
    CHECK(r[1] & (1u << 16));                  /* AVX512F, forced on */
    CHECK(r[1] & (1u << 17));                  /* AVX512DQ */
    cpuid(0xd, 0);
    CHECK(r[0] == 0xe7 && r[2] == 2688);
    cpuid(0xd, 5);
    CHECK(r[0] == 64 && r[1] == 1088 && r[2] == 0 && r[3] == 0);
    cpuid(0xd, 9);
    CHECK(r[0] == 0);                          /* PKRU: not offered */
    setup_cpu(0, 0x207, 0);
    cpuid(7, 0);
    CHECK(!(r[1] & (1u << 16)) && !(r[1] & (1u << 17)) && !(r[1] & (1u << 31)));
    CHECK(!(r[2] & (1u << 1)) && !(r[2] & (1u << 14)));       /* VBMI, VPOPCNTDQ */
    cpuid(7, 1);
    CHECK(!(r[0] & (1u << 5)) && (r[0] & (1u << 4)));         /* no BF16; AVX_VNNI */
    cpuid(0xd, 5);
    CHECK(r[0] == 0);
    /* Only all three components together are AVX-512's. */
    setup_cpu(0, 0x27, 0);
    CHECK(guest_xcr0_allowed() == 7);
}

/* FSRM and its kin build on ERMS: a CPU described without ERMS offers
 * none of them (Linux's memmove takes FSRM to mean ERMS). */
static void fast_strings_need_erms(void)
{
    setup_cpu(0, 0x207, 1u << 9);
    cpuid(7, 0);
    CHECK(!(r[1] & (1u << 9)) && !(r[3] & (1u << 4)));
    cpuid(7, 1);
    CHECK(!(r[0] & (7u << 10)));
    setup(0);
    cpuid(7, 0);
    CHECK((r[1] & (1u << 9)) && (r[3] & (1u << 4)));
}

int main(void)
{
    RUN(xen_signature_and_leaves);
    RUN(xen_time_leaf);
    RUN(nothing_at_0x40000100);
    RUN(hypervisor_bit_set);
    RUN(every_hidden_bit_is_clear);
    RUN(named_features_hidden);
    RUN(what_stays_visible);
    RUN(leaf1_identity);
    RUN(leaf_maxima);
    RUN(leaf7_subleaves);
    RUN(leaves_xen_empties);
    RUN(xsave_offered);
    RUN(xsave_follows_the_real_cpu);
    RUN(avx512_follows_the_real_xcr0);
    RUN(fast_strings_need_erms);
    RUN(intel_cache_leaf);
    RUN(address_sizes);
    RUN(amd_extended_leaves);
    return check_exit_status();
}
