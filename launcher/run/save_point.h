/*
 * Is a held vCPU's state whole, so that a snapshot of it resumes right?
 * KVM on PVM keeps an event the vCPU took at CPL3 but has not yet
 * delivered into ring 0 out of the state KVM hands back (KVM_GET_VCPU_EVENTS
 * shows none): a vCPU kicked in that window and restored would run on
 * past an int3 or a syscall that never reached its handler, or have an
 * interrupt in service that nobody handles. Such a state is recognised by
 * where it stands (right after an instruction that traps into ring 0, at
 * CPL3) or by an interrupt in service; the save then lets the guest run a
 * moment and holds it again. A state merely looking like one costs a retry.
 */
#ifndef PERCH_SAVE_POINT_H
#define PERCH_SAVE_POINT_H

#include <stdbool.h>

#include "../vm/guest_memory.h"
#include "../vm/kvm_state.h"

bool save_point_whole(struct guest_memory *gm, const struct kvm_vcpu_state *st);

#endif
