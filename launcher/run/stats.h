/* --stats: what the guest cost, printed when it ends. */
#ifndef PERCH_STATS_H
#define PERCH_STATS_H

#include <stdio.h>

#include "../../abi/layout.h"
#include "../net/netif.h"
#include "../symbols/kernel_symbols.h"
#include "../vm/kvm.h"
#include "vcpu_loop.h"

/* Totals at one moment, for `perch bench`'s brackets. Taken from guest
 * memory: untrusted numbers, only ever printed or subtracted. */
struct perch_counters {
    uint64_t hypercalls;                    /* all kinds, served in the Host */
    uint64_t visits;                        /* Switcher visits, all reasons */
    uint64_t visit[PERCH_VISIT_COUNT];      /* by reason */
    uint64_t exits;                         /* exits to the Launcher */
    uint64_t trapped;                       /* page-table writes that trapped */
    uint64_t kvm[KVM_COUNTS];               /* KVM's own counts, all vCPUs */
    bool kvm_known;                         /* false: this KVM keeps none */
};

void stats_snapshot(const struct perch_shared *shared, const struct run_stats *run,
                    const struct kvm_vm *vm, struct perch_counters *out);

/* Name of Switcher visit reason v (< PERCH_VISIT_COUNT). */
const char *stats_visit_name(unsigned v);

/* The counts of a run (each vCPU's too, when there are several), and
 * KVM's own. */
void stats_print(FILE *out, const struct perch_shared *shared,
                 const struct run_stats *run, const struct kvm_vm *vm);

/* --stats-cpu: the MSRs and CPUID leaves the guest kernel asked for, and
 * perch's last answers. */
void stats_print_cpu(FILE *out, const struct perch_shared *shared);

/* What is named with the kernel's symbols when there are any (syms may be
 * NULL): the trapping page-table stores' sites and their patches, and the
 * hypercalls that still came by `syscall`, by caller. */
void stats_print_with_symbols(FILE *out, const struct perch_shared *shared,
                              const struct kernel_symbols *syms);

/* The network card's frames, after stats_print() when there is a card. */
void stats_print_card(FILE *out, const struct netif_counts *c);

/* Name of hypercall nr, or NULL when Xen defines none. */
const char *hypercall_name(unsigned nr);

#endif
