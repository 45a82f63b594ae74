/*
 * The machine hypervisor's own counts of a vCPU: KVM's binary statistics
 * (KVM_GET_STATS_FD, Linux 5.14). Every trap of the guest through KVM is
 * an exit there, whatever perch meant by it (a ring-0 visit, a `syscall`,
 * an emulated page-table write, a shadow page fault), so these are the
 * traps perch's own counters cannot see.
 */
#ifndef PERCH_KVM_STATS_H
#define PERCH_KVM_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* The counts perch reads, each by KVM's name for it. */
enum kvm_count {
    KVM_COUNT_EXITS,          /* "exits": every exit of the vCPU into KVM */
    KVM_COUNT_PF_TAKEN,       /* page faults KVM took */
    KVM_COUNT_PF_FIXED,       /* of them, shadow entries filled in */
    KVM_COUNT_PF_EMULATE,     /* of them, writes to a shadowed table, emulated */
    KVM_COUNT_PF_SPURIOUS,    /* of them, nothing to do */
    KVM_COUNT_PF_GUEST,       /* of them, the guest's own, reflected */
    KVM_COUNT_INSN_EMULATION, /* instructions KVM emulated (ring 0 among them) */
    KVM_COUNT_TLB_FLUSH,      /* TLB flushes KVM made for the vCPU */
    KVM_COUNTS
};

/* One vCPU's statistics file: where each count lies in it. */
struct kvm_stats {
    int fd;                       /* -1: KVM offers none */
    int64_t offset[KVM_COUNTS];   /* -1: KVM has no such count */
};

/* KVM's name of count c. */
const char *kvm_count_name(enum kvm_count c);

/* Find the counts of the vCPU behind vcpu_fd; without KVM's statistics
 * (an older kernel), s->fd is -1 and every count reads 0. */
void kvm_stats_open(struct kvm_stats *s, int vcpu_fd);
void kvm_stats_close(struct kvm_stats *s);

/* Add the vCPU's counts now to sum[]; false if KVM offers none. */
bool kvm_stats_add(const struct kvm_stats *s, uint64_t sum[KVM_COUNTS]);

#endif
