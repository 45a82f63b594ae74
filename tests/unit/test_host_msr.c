/*
 * Unit tests of the MSR policy (host/cpu/msr.c) on each recorded CPU
 * (tests/cpus/): what rdmsr and wrmsr of a PV guest kernel get, as Xen
 * answers them, vendor by vendor.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/cpu/msr.h"
#include "../../host/core/vcpu.h"
#include "../../launcher/cpu/cpu_profile.h"

#define GP 0xdeadull               /* what read() returns for a #GP */

static void describe(const char *profile)
{
    struct error e;

    host_env_reset(16);
    if (cpu_profile_load(profile, &perch_shared.boot.cpu, &e))
        printf("test_host_msr: %s\n", e.msg);
    current->traps[13].address = 0xffffffff81800000ull;    /* a #GP handler */
}

static uint64_t read(uint32_t msr)
{
    uint64_t v;

    return msr_read(msr, &v) ? v : GP;
}

static void intel(void)
{
    describe("tests/cpus/intel-xeon-06a7.txt");
    /* FAST_STRING as the firmware left it; BTS, PEBS and xTPR off. */
    CHECK(read(0x1a0) == 0x801801);
    CHECK(msr_write(0x1a0, 0) && msr_write(0x1a0, 0x801801));     /* dropped */
    CHECK(read(0x1a0) == 0x801801);
    CHECK(read(0x3a) == 1);                     /* FEATURE_CONTROL: locked */
    CHECK(!msr_write(0x3a, 5));
    CHECK(read(0x8b) == perch_shared.boot.cpu.ucode_rev);
    CHECK(msr_write(0x8b, 0) && !msr_write(0x8b, 1));
    CHECK(read(0xce) == 0 && !msr_write(0xce, 0));       /* PLATFORM_INFO */
    CHECK(read(0x140) == 0 && msr_write(0x140, 0) && !msr_write(0x140, 1));
    CHECK(read(0x198) == 0 && read(0x199) == 0 && read(0x19c) == 0);
    CHECK(read(0x345) == 0);                             /* PERF_CAPABILITIES */
    CHECK(read(0x277) == 0x0000050100070406ull);         /* Xen's PAT */
    /* AMD's own MSRs are not there on Intel. */
    CHECK(read(0xc0010015) == GP && read(0xc0011029) == GP && read(0xc0010064) == GP);
    CHECK(!msr_write(0xc0011029, 2));
    /* The PMU's counters, as Xen's vPMU when it is off: 0, writes dropped. */
    CHECK(read(0xc1) == 0 && read(0x186) == 0 && read(0x309) == 0 && read(0x38f) == 0);
    CHECK(msr_write(0x186, 0x430076) && read(0xc9) == GP && read(0x391) == GP);
    CHECK(read(0xc0010000) == GP && read(0xc0010200) == GP);
}

static void amd(void)
{
    describe("tests/cpus/amd-epyc-19-11.txt");
    CHECK(read(0x1a0) == GP && !msr_write(0x1a0, 1));    /* Intel's MISC_ENABLE */
    CHECK(read(0x3a) == GP);
    CHECK(read(0x8b) == perch_shared.boot.cpu.ucode_rev && read(0x8b) != 0);
    CHECK(!msr_write(0x8b, 0));                          /* Intel's ritual only */
    CHECK(read(0xc0010015) == 0 && msr_write(0xc0010015, 0x10));  /* HWCR */
    CHECK(read(0xc0011029) == 2 && msr_write(0xc0011029, 0));     /* DE_CFG */
    CHECK(read(0xc0010061) == 0 && read(0xc001006b) == 0 && read(0xc001006c) == GP);
    CHECK(read(0xc0010058) == GP);                       /* MMIO_CONF: fam 10h-16h */
    CHECK(read(0x198) == GP && read(0x19c) == GP);
    CHECK(read(0xce) == 0 && read(0x140) == 0);
    CHECK(read(0xc0010000) == 0 && read(0xc0010007) == 0 && read(0xc001020b) == 0);
    CHECK(msr_write(0xc0010000, 0x430076) && read(0xc0010008) == GP);
    CHECK(read(0xc1) == GP && read(0x186) == GP && !msr_write(0x186, 0));
}

/* Speculation, architectural capabilities and unknown MSRs: a #GP on both
 * vendors, as in Xen for what is not offered. */
static void not_offered_is_gp(void)
{
    static const char *profiles[] = { "tests/cpus/intel-xeon-06a7.txt",
                                      "tests/cpus/amd-epyc-19-11.txt" };

    for (int i = 0; i < 2; i++) {
        describe(profiles[i]);
        CHECK(read(0x48) == GP && read(0x10a) == GP && read(0x10b) == GP);
        CHECK(!msr_write(0x48, 1) && !msr_write(0x49, 1));
        CHECK(read(0xc0000103) == GP);                   /* TSC_AUX: no RDTSCP */
        CHECK(read(0x12345) == GP && !msr_write(0x12345, 0));
        current->traps[13].address = 0;                  /* no handler yet */
        CHECK(read(0x12345) == 0 && read(0x40000000) == GP);
    }
}

int main(void)
{
    RUN(intel);
    RUN(amd);
    RUN(not_offered_is_gp);
    return check_exit_status();
}
