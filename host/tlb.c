/*
 * What the guest's TLB may still hold. Under KVM's shadow paging a
 * not-present entry is never cached and a write to a read-only one faults
 * into KVM, which walks the guest's tables again (measured: docs/kvm.md).
 * So a change from not-present to present, or one that only adds write
 * access or the accessed and dirty bits, is seen at once; any other change
 * of a present entry leaves the TLB stale until a flush. The guest's flush
 * requests cost a ring-0 visit only while something is stale (seed 002's
 * lazy flush, taken one step further). Only changes the Host makes are
 * seen here: a guest that writes live tables behind its back breaks Xen's
 * rules and gets what its own TLB holds.
 */
#include "tlb.h"

#include "host.h"
#include "vcpu.h"

#define KEPT_BITS (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)

bool tlb_change_is_visible(uint64_t old, uint64_t new)
{
    if (!(old & PTE_P))
        return true;
    /* Nothing taken away, nothing else (frame, NX, caching, PS) changed. */
    return (new & PTE_P) && !(old & ~new & KEPT_BITS) &&
           !((old ^ new) & ~(PTE_RW | PTE_A | PTE_D));
}

static bool elision_on(void)
{
    return !(optimizations_off & PERCH_OPT_FLUSH_ELISION);
}

/* Upper-level changes are flushed by the hypervisor itself, as Xen does;
 * L1 changes wait for the guest's request. */
void tlb_note_change(uint64_t old, uint64_t new, int level)
{
    /* tour fault.7: the kernel's fix is a new mapping: KVM sees it without a flush */
    if (!(old & PTE_P) || old == new)
        return;
    if (elision_on() && tlb_change_is_visible(old, new))
        return;
    if (level >= 2)
        current->pending |= PENDING_TLB_FLUSH;
    else
        current->tlb_stale = true;
}

void tlb_flush_requested(void)
{
    /* tour multicall.5: a flush request only marks the batch, and only if something is stale */
    if (elision_on() && !current->tlb_stale) {
        perch_shared.stats.tlb_flushes_elided++;
        return;
    }
    current->pending |= PENDING_TLB_FLUSH;
}

void tlb_flushed(void)
{
    current->pending &= ~PENDING_TLB_FLUSH;
    current->tlb_stale = false;
}
