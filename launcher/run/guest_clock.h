/*
 * The guest's clock across `perch save` and `perch restore`. The Host's
 * clock and the guest's pvclock count the TSC the guest reads. Where KVM
 * can set that TSC (a VMX or SVM guest), restoring the saved TSC MSR
 * carries the clock on; on PVM, which runs CPL3 rdtsc natively, the guest
 * reads the machine's own TSC, which went on while the guest lay in its
 * file. So a save notes which TSC the guest reads and its value, and a
 * restore makes the Host skip the ticks in between (perch_shared.boot's
 * tsc_skip) and moves each vCPU's pvclock record on by as many: the guest's
 * time goes on from where it was, without a jump.
 */
#ifndef PERCH_GUEST_CLOCK_H
#define PERCH_GUEST_CLOCK_H

#include <stdint.h>

#include "../../abi/layout.h"
#include "../vm/guest_memory.h"

/* Which TSC the guest reads: `kvm_tsc`, the TSC MSR KVM holds for vCPU 0,
 * or the machine's own. The Host's last pvclock record tells: its
 * timestamp was read not long ago, and lies nearer the one the guest
 * reads. Returns that TSC now, and *native whether it is the machine's. */
uint64_t guest_clock_at_save(const struct perch_shared *sh, const struct guest_memory *gm,
                             uint64_t shared_info_maddr, uint64_t kvm_tsc, bool *native);

/* Before any vCPU of a restored guest runs: the ticks between the save's
 * TSC and the one the guest reads now are skipped. kvm_tsc: KVM's TSC of
 * vCPU 0 read back once restored, which is the saved one only where KVM
 * could set it (some KVMs keep every guest on the machine's TSC). */
void guest_clock_resume(struct perch_shared *sh, struct guest_memory *gm,
                        uint64_t shared_info_maddr, unsigned nr_cpus, bool native,
                        uint64_t tsc_at_save, uint64_t kvm_tsc);

#endif
