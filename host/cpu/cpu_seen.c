/*
 * What the guest kernel asked of the CPU: each distinct MSR and CPUID leaf,
 * how often, and perch's last answer, in perch_shared.stats for --stats.
 * This is how a developer sees what a kernel reads on a CPU (or a replayed
 * profile) and what perch told it; past the tables' size the rest goes
 * uncounted.
 */
#include "cpu_seen.h"
#include "../core/host.h"

void cpu_seen_msr(uint32_t msr, bool write, bool ok, uint64_t value)
{
    uint32_t n = perch_shared.stats.nr_msrs_seen, i;
    struct perch_msr_seen *s = perch_shared.stats.msrs_seen;

    for (i = 0; i < n && i < PERCH_MSRS_SEEN && s[i].msr != msr; i++)
        ;
    if (i >= PERCH_MSRS_SEEN)
        return;
    if (i == n) {
        s[i] = (struct perch_msr_seen){ .msr = msr };
        perch_shared.stats.nr_msrs_seen = n + 1;
    }
    if (write)
        s[i].writes++;
    else
        s[i].reads++;
    if (!ok)
        s[i].refused++;
    else
        s[i].value = value;
}

void cpu_seen_cpuid(uint32_t leaf, uint32_t subleaf, const uint32_t reg[4])
{
    uint32_t n = perch_shared.stats.nr_cpuids_seen, i;
    struct perch_cpuid_seen *s = perch_shared.stats.cpuids_seen;

    /* Linux looks for a hypervisor's signature every 0x100 leaves up to
     * 0x4000ff00: past Xen's own leaves, one entry counts that scan. */
    if (leaf >= PERCH_CPUID_SCAN_FIRST && leaf < PERCH_CPUID_SCAN_END) {
        leaf = PERCH_CPUID_SCAN_FIRST;
        subleaf = PERCH_CPUID_SCAN_SUBLEAF;
    }

    for (i = 0; i < n && i < PERCH_CPUIDS_SEEN &&
                (s[i].leaf != leaf || s[i].subleaf != subleaf); i++)
        ;
    if (i >= PERCH_CPUIDS_SEEN)
        return;
    if (i == n) {
        s[i] = (struct perch_cpuid_seen){ .leaf = leaf, .subleaf = subleaf };
        perch_shared.stats.nr_cpuids_seen = n + 1;
    }
    s[i].count++;
    for (int r = 0; r < 4; r++)
        s[i].reg[r] = reg[r];
}
