/*
 * What the Host counts for --stats (abi/layout.h: perch_shared.stats, the
 * totals, written under the Host lock; perch_shared.vcpu_stats, each
 * vCPU's own, written by that vCPU alone and so without the lock).
 */
#ifndef PERCH_HOST_STATS_H
#define PERCH_HOST_STATS_H

#include "host.h"
#include "vcpu.h"

/* This vCPU's counts. */
static inline struct perch_vcpu_stats *vcpu_stats(void)
{
    return &perch_shared.vcpu_stats[current->id];
}

/* A ring-0 visit of this kind: in the totals and for this vCPU. */
static inline void count_visit_of(enum perch_visit kind)
{
    perch_shared.stats.visits[kind]++;
    vcpu_stats()->visits++;
}

/* A ring-0 visit to load CR3, and why. */
static inline void count_cr3_load(enum perch_cr3_cause cause)
{
    perch_shared.stats.cr3_loads[cause]++;
    count_visit_of(PERCH_VISIT_SERVICE_CR3);
}

#endif
