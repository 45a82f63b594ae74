/*
 * multicall: a batch of hypercalls in one guest entry. Linux batches its
 * page-table updates this way (lazy MMU mode), so a whole batch runs in one
 * Host call, entry after entry, with each result written back into its
 * entry. Unlike Xen the Host is never preempted, so there are no
 * continuations: the batch simply runs to its end.
 */
#include "../core/host.h"
#include "multicall.h"

uint64_t multicall_stat_entries;

/*
 * A nested multicall is refused with -EINVAL, as Xen's reentry check does.
 * iret is refused too: Xen runs it and ends the batch there, but perch's
 * iret needs the vCPU's frame, which a batch entry does not have. Linux
 * never batches either.
 */
static long run_entry(const struct multicall_entry *e)
{
    if (e->op == HYPERVISOR_multicall || e->op == HYPERVISOR_iret)
        return -XEN_EINVAL;
    return hypercall_dispatch(e->op, e->args);
}

long do_multicall(uint64_t entries, uint64_t count, uint64_t a3, uint64_t a4, uint64_t a5)
{
    /* Xen takes the count as a 32-bit unsigned int. */
    uint32_t n = (uint32_t)count;

    (void)a3, (void)a4, (void)a5;
    /* Like Xen, check the whole array before running any of it. */
    if (!guest_handle_okay(entries, (uint64_t)n * sizeof(struct multicall_entry)))
        return -XEN_EFAULT;
    /* tour multicall.3: each entry copied in, run through the same table, its result written back */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t va = entries + (uint64_t)i * sizeof(struct multicall_entry);
        struct multicall_entry e;

        if (copy_from_guest(&e, va, sizeof(e)))
            return -XEN_EFAULT;
        multicall_stat_entries++;
        e.result = (uint64_t)run_entry(&e);
        if (copy_to_guest(va + offsetof(struct multicall_entry, result),
                          &e.result, sizeof(e.result)))
            return -XEN_EFAULT;
    }
    return 0;
}
