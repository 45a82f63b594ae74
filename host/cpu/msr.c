/*
 * The MSR policy: what rdmsr and wrmsr of a PV guest kernel get.
 *
 * The guest kernel runs at CPL3, so every rdmsr and wrmsr it makes traps
 * and lands here (host/cpu/emulate.c decodes it). perch answers as Xen 4.17
 * answers a PV domU (xen/arch/x86/msr.c guest_rdmsr/guest_wrmsr, then
 * pv/emul-priv-op.c read_msr/write_msr), vendor by vendor, with the vendor
 * and the values Xen would read from the hardware taken from the CPU the
 * Launcher described (perch_shared.boot.cpu). docs/xen-pv.md ("MSRs")
 * lists each answer. An MSR not named here is a #GP, as in Xen, except
 * before the guest has a #GP handler.
 *
 * Why it matters: Linux's Intel start-up reads MISC_ENABLE and, seeing
 * FAST_STRING clear after a #GP, drops ERMS but keeps FSRM; its memmove
 * then ran away on every short copy and no boot survived.
 */
#include "msr.h"
#include "cpuid.h"
#include "../core/host.h"
#include "../core/env.h"
#include "../core/vcpu.h"

#define MSR_TSC                0x00000010u
#define MSR_APIC_BASE          0x0000001bu
#define MSR_FEATURE_CONTROL    0x0000003au
#define MSR_UCODE_REV          0x0000008bu   /* AMD: PATCHLEVEL, the same MSR */
#define MSR_PLATFORM_INFO      0x000000ceu
#define MSR_MPERF              0x000000e7u
#define MSR_APERF              0x000000e8u
#define MSR_MISC_FEATURES      0x00000140u   /* MISC_FEATURES_ENABLES */
#define MSR_PERF_STATUS        0x00000198u
#define MSR_PERF_CTL           0x00000199u
#define MSR_THERM_STATUS       0x0000019cu
#define MSR_MISC_ENABLE        0x000001a0u
#define MSR_PAT                0x00000277u
#define MSR_PERF_CAPABILITIES  0x00000345u
#define MSR_EFER               0xc0000080u
#define MSR_FS_BASE            0xc0000100u
#define MSR_GS_BASE            0xc0000101u
#define MSR_KERNEL_GS_BASE     0xc0000102u
#define MSR_AMD_NB_CFG         0xc001001fu
#define MSR_AMD_HWCR           0xc0010015u
#define MSR_AMD_FID_VID_CTL    0xc0010041u
#define MSR_AMD_FID_VID_STATUS 0xc0010042u
#define MSR_AMD_MMIO_CONF_BASE 0xc0010058u
#define MSR_AMD_PSTATE_FIRST   0xc0010061u   /* PSTATE_LIMIT, CTRL, STATUS, */
#define MSR_AMD_PSTATE_LAST    0xc001006bu   /* PSTATE0 .. PSTATE7 */
#define MSR_AMD_DE_CFG         0xc0011029u

/* Performance counters, which Xen's vPMU (off by default) reads as 0 and
 * takes writes to: Intel's P6 and fixed counters, AMD's K7 and family 15h
 * ones. */
#define MSR_P6_PERFCTR_FIRST   0x000000c1u
#define MSR_P6_PERFCTR_LAST    0x000000c8u
#define MSR_P6_EVNTSEL_FIRST   0x00000186u
#define MSR_P6_EVNTSEL_LAST    0x0000018du
#define MSR_FIXED_CTR_FIRST    0x00000309u
#define MSR_FIXED_CTR_LAST     0x0000030bu
#define MSR_PERF_GLOBAL_FIRST  0x0000038du   /* FIXED_CTR_CTRL .. GLOBAL_OVF_CTRL */
#define MSR_PERF_GLOBAL_LAST   0x00000390u
#define MSR_AMD_K7_PERF_FIRST  0xc0010000u   /* EVNTSEL0-3, PERFCTR0-3 */
#define MSR_AMD_K7_PERF_LAST   0xc0010007u
#define MSR_AMD_F15H_PERF_FIRST 0xc0010200u
#define MSR_AMD_F15H_PERF_LAST 0xc001020bu

#define FEATURE_CONTROL_LOCK   (1ull << 0)
#define DE_CFG_LFENCE_SERIALISE (1ull << 1)

/* MISC_ENABLE bits Xen changes (guest_misc_enable): no performance
 * monitoring or MONITOR for a PV guest; BTS, PEBS and xTPR unavailable. */
#define MISC_ENABLE_PERF_AVAIL     (1ull << 7)
#define MISC_ENABLE_BTS_UNAVAIL    (1ull << 11)
#define MISC_ENABLE_PEBS_UNAVAIL   (1ull << 12)
#define MISC_ENABLE_MONITOR_ENABLE (1ull << 18)
#define MISC_ENABLE_XTPR_DISABLE   (1ull << 23)

/* Xen's fixed PAT for PV guests: WB, WT, UC-, UC, WC, WP, UC, UC. */
#define XEN_PV_PAT             0x0000050100070406ull

static uint64_t guest_misc_enable(void)
{
    uint64_t v = perch_shared.boot.cpu.misc_enable;

    v &= ~(MISC_ENABLE_PERF_AVAIL | MISC_ENABLE_MONITOR_ENABLE);
    return v | MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL | MISC_ENABLE_XTPR_DISABLE;
}

static bool in(uint32_t msr, uint32_t first, uint32_t last)
{
    return msr >= first && msr <= last;
}

/* A counter of the vendor's PMU: with Xen's vPMU off, it reads as 0 and
 * writes to it are dropped. */
static bool pmu_msr(uint32_t msr)
{
    if (cpu_vendor_is_intel())
        return in(msr, MSR_P6_PERFCTR_FIRST, MSR_P6_PERFCTR_LAST) ||
               in(msr, MSR_P6_EVNTSEL_FIRST, MSR_P6_EVNTSEL_LAST) ||
               in(msr, MSR_FIXED_CTR_FIRST, MSR_FIXED_CTR_LAST) ||
               in(msr, MSR_PERF_GLOBAL_FIRST, MSR_PERF_GLOBAL_LAST);
    return cpu_vendor_is_amd() &&
           (in(msr, MSR_AMD_K7_PERF_FIRST, MSR_AMD_K7_PERF_LAST) ||
            in(msr, MSR_AMD_F15H_PERF_FIRST, MSR_AMD_F15H_PERF_LAST));
}

/* AMD's family (base plus extended), for the one MSR only some have. */
static bool amd_family_10h_to_16h(void)
{
    uint32_t r[4], family;

    guest_cpuid(1, 0, r);
    family = (r[0] >> 8 & 0xf) + (r[0] >> 20 & 0xff);
    return family >= 0x10 && family < 0x17;
}

/* Reads that depend on the vendor; false for a #GP. */
static bool vendor_msr_read(uint32_t msr, uint64_t *val)
{
    bool intel = cpu_vendor_is_intel(), amd = cpu_vendor_is_amd();

    switch (msr) {
    case MSR_FEATURE_CONTROL:      /* locked, no VMX offered */
        *val = FEATURE_CONTROL_LOCK;
        return intel;
    case MSR_MISC_ENABLE:
        *val = guest_misc_enable();
        return intel;
    case MSR_PERF_STATUS:          /* read as zero: no cpufreq for a domU */
    case MSR_PERF_CTL:
    case MSR_THERM_STATUS:
        *val = 0;
        return intel;
    case MSR_UCODE_REV:
        *val = perch_shared.boot.cpu.ucode_rev;
        return intel || amd;
    case MSR_AMD_HWCR:
    case MSR_AMD_NB_CFG:
    case MSR_AMD_FID_VID_CTL:
    case MSR_AMD_FID_VID_STATUS:
        *val = 0;
        return amd;
    case MSR_AMD_MMIO_CONF_BASE:
        *val = 0;
        return amd && amd_family_10h_to_16h();
    case MSR_AMD_DE_CFG:
        *val = DE_CFG_LFENCE_SERIALISE;
        return amd;
    }
    *val = 0;
    return (amd && in(msr, MSR_AMD_PSTATE_FIRST, MSR_AMD_PSTATE_LAST)) || pmu_msr(msr);
}

/*
 * The MSRs a PV Linux reads. In guest-kernel mode the live GS base is the
 * kernel's; KERNEL_GS_BASE, the one swapgs would bring in, is the user's.
 */
bool msr_read(uint32_t msr, uint64_t *val)
{
    switch (msr) {
    case MSR_FS_BASE:           *val = current->fs_base; return true;
    case MSR_GS_BASE:           *val = current->gs_base_kernel; return true;
    case MSR_KERNEL_GS_BASE:    *val = current->gs_base_user; return true;
    case MSR_APIC_BASE:         *val = PERCH_APIC_BASE_MSR; return true;
    case MSR_PAT:               *val = XEN_PV_PAT; return true;
    case MSR_EFER:              *val = PERCH_VCPU_EFER; return true;
    case MSR_TSC:               *val = env_rdtsc(); return true;
    /* CPUID faulting cannot be offered: guest processes' cpuid never
     * reaches perch. Nothing else of these is either. */
    case MSR_PLATFORM_INFO:     *val = 0; return true;
    case MSR_MISC_FEATURES:     *val = 0; return true;
    case MSR_PERF_CAPABILITIES: *val = 0; return true;
    }
    if (vendor_msr_read(msr, val))
        return true;
    /*
     * Xen reads an unknown MSR as 0 rather than raise a #GP the guest has
     * no handler for yet (outside its own 0x4000xxxx range; Xen also asks
     * the hardware whether the MSR exists, which the Host cannot).
     */
    if (!current->traps[13].address && (msr >> 16) != 0x4000) {
        *val = 0;
        return true;
    }
    return false;
}

/* A segment base, written as the vCPU's and loaded at the next resume. */
static bool write_base(uint64_t *base, uint64_t val)
{
    if (!va_canonical(val))
        return false;
    *base = val;
    current->segments_dirty = true;
    return true;
}

/* Writes Xen takes and drops (or, for UCODE_REV, Intel's "write 0, then
 * cpuid, then read" ritual), by vendor. */
static bool vendor_msr_write(uint32_t msr, uint64_t val)
{
    bool intel = cpu_vendor_is_intel(), amd = cpu_vendor_is_amd();

    switch (msr) {
    case MSR_UCODE_REV:
        return intel && val == 0;
    case MSR_MISC_ENABLE:
    case MSR_PERF_CTL:
        return intel;
    case MSR_MPERF:
    case MSR_APERF:
        return intel || amd;
    case MSR_AMD_HWCR:
    case MSR_AMD_NB_CFG:
    case MSR_AMD_FID_VID_CTL:
    case MSR_AMD_FID_VID_STATUS:
    case MSR_AMD_DE_CFG:
        return amd;
    case MSR_AMD_MMIO_CONF_BASE:
        return amd && amd_family_10h_to_16h();
    }
    return (amd && in(msr, MSR_AMD_PSTATE_FIRST, MSR_AMD_PSTATE_LAST)) || pmu_msr(msr);
}

bool msr_write(uint32_t msr, uint64_t val)
{
    switch (msr) {
    case MSR_FS_BASE:        return write_base(&current->fs_base, val);
    case MSR_GS_BASE:        return write_base(&current->gs_base_kernel, val);
    case MSR_KERNEL_GS_BASE: return write_base(&current->gs_base_user, val);
    case MSR_EFER:
        /* Linux writes EFER back unchanged; Xen allows only that. */
        return val == PERCH_VCPU_EFER;
    case MSR_MISC_FEATURES:
        return val == 0;        /* no CPUID faulting to turn on */
    }
    return vendor_msr_write(msr, val);
}
