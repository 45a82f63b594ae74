/*
 * A vCPU's whole state as KVM holds it, for `perch save` and `perch
 * restore`: registers, segments and control registers, the FPU and vector
 * state, the local APIC (its timer included), pending events, debug
 * registers, whether it is halted, and the MSRs perch set or the guest
 * moves (the TSC among them, so guest time goes on from where it was).
 * The KVM structures are stored as linux/kvm.h lays them out on x86-64.
 */
#ifndef PERCH_KVM_STATE_H
#define PERCH_KVM_STATE_H

#include <linux/kvm.h>
#include <stdint.h>

#include "../base/error.h"
#include "kvm.h"

#define KVM_STATE_MSRS 12

struct kvm_vcpu_state {
    struct kvm_regs regs;
    struct kvm_sregs sregs;
    struct kvm_xcrs xcrs;
    struct kvm_lapic_state lapic;
    struct kvm_vcpu_events events;
    struct kvm_debugregs debugregs;
    struct kvm_mp_state mp_state;
    uint32_t nr_msrs;                 /* a prefix of kvm_state_msr_list */
    uint32_t pad;
    struct kvm_msr_entry msrs[KVM_STATE_MSRS];
    struct kvm_xsave xsave;
};

/* What perch put in vCPU `cpu` that no guest can change: its selectors'
 * tables, its syscall entry into the Host, its steal-time area. */
struct kvm_state_expected {
    unsigned cpu;
    uint64_t lstar;
    uint64_t steal_gpa;
    uint64_t memory_bytes;            /* CR3 lies below */
};

/* The TSC MSR of a state (the first of its MSRs). */
static inline uint64_t kvm_vcpu_state_tsc(const struct kvm_vcpu_state *st)
{
    return st->msrs[0].data;
}

/* The vCPU's TSC as KVM holds it now: after a restore, the saved value
 * where KVM can offset it, the machine's where it will not. 0, or -1. */
int kvm_vcpu_tsc(struct kvm_vcpu *vcpu, uint64_t *tsc, struct error *e);

/* Read the state of a vCPU that is out of KVM_RUN (held: base/hold.h). */
int kvm_vcpu_state_get(struct kvm_vcpu *vcpu, struct kvm_vcpu_state *st, struct error *e);

/* Is st a state a perch vCPU can have been in? 0, or -1 with e naming the
 * first value no guest could have put there. */
int kvm_vcpu_state_check(const struct kvm_vcpu_state *st, const struct kvm_state_expected *x,
                         struct error *e);

/* Load a checked state into a vCPU that has not run; KVM refusing a part
 * (an FPU state this CPU cannot hold, say) is an error. */
int kvm_vcpu_state_set(struct kvm_vcpu *vcpu, const struct kvm_vcpu_state *st,
                       struct error *e);

#endif
