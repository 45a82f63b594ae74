/* The guest's clock across a save and a restore (guest_clock.h). */
#include "guest_clock.h"

#include <stddef.h>
#include <x86intrin.h>

#include "../../abi/xen/xen.h"

/* vCPU cpu's pvclock record: in the vcpu_info it registered, else in
 * shared_info's; NULL if that lies outside memory. */
static volatile struct vcpu_time_info *time_info(const struct perch_shared *sh,
                                                 const struct guest_memory *gm,
                                                 uint64_t shared_info_maddr, unsigned cpu)
{
    uint64_t maddr = sh->boot.vcpu_info_maddr[cpu];
    volatile struct vcpu_info *vi;

    if (!maddr && cpu >= XEN_LEGACY_MAX_VCPUS)
        return NULL;
    if (!maddr)
        maddr = shared_info_maddr + offsetof(struct shared_info, vcpu_info) +
                cpu * sizeof(struct vcpu_info);
    vi = gm_range(gm, maddr, sizeof(*vi));
    return vi ? &vi->time : NULL;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

uint64_t guest_clock_at_save(const struct perch_shared *sh, const struct guest_memory *gm,
                             uint64_t shared_info_maddr, uint64_t kvm_tsc, bool *native)
{
    volatile struct vcpu_time_info *t = time_info(sh, gm, shared_info_maddr, 0);
    uint64_t machine = __rdtsc(), stamp = t ? t->tsc_timestamp : kvm_tsc;

    *native = distance(stamp, machine) < distance(stamp, kvm_tsc);
    return *native ? machine : kvm_tsc;
}

void guest_clock_resume(struct perch_shared *sh, struct guest_memory *gm,
                        uint64_t shared_info_maddr, unsigned nr_cpus, bool native,
                        uint64_t tsc_at_save, uint64_t kvm_tsc)
{
    /* Modular: a machine whose TSC is behind the save's skips backwards. */
    uint64_t skip = (native ? __rdtsc() : kvm_tsc) - tsc_at_save;

    sh->boot.tsc_skip += skip;
    for (unsigned i = 0; i < nr_cpus; i++) {
        volatile struct vcpu_time_info *t = time_info(sh, gm, shared_info_maddr, i);

        /* No vCPU runs: no reader to keep consistent, but the version
         * moves on as for any update. */
        if (t) {
            t->tsc_timestamp += skip;
            t->version += 2;
        }
    }
}
