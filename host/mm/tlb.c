/*
 * What the guest's TLB may still hold. Under KVM's shadow paging a
 * not-present entry is never cached and a write to a read-only one faults
 * into KVM, which walks the guest's tables again (measured: docs/kvm.md).
 * So a change from not-present to present, or one that only adds write
 * access or the accessed and dirty bits, is seen at once; any other change
 * of a present entry leaves the TLB stale until a flush. The guest's flush
 * requests cost a ring-0 visit only while something is stale (lguest's
 * lazy-flush patch, taken one step further). Only changes the Host makes are
 * seen here: a guest that writes live tables behind its back breaks Xen's
 * rules and gets what its own TLB holds.
 *
 * With several vCPUs a change made on one may be stale in any other's TLB:
 * staleness is marked on all, and a flush owed by others (one they were
 * asked for, an upper-level change, a writable frame turned into a table)
 * is a shootdown at the end of the hypercall, as Xen defers its flush to
 * the end of a batch: each such vCPU that runs guest code is sent an IPI
 * and waited for until it has left the guest; it flushes on its way back
 * (PENDING_TLB_FLUSH, under the Host lock). One running Host code or
 * asleep holds nothing it will use before that way back.
 */
#include "tlb.h"

#include "../core/env.h"
#include "../core/host.h"
#include "../core/host_lock.h"
#include "../core/vcpu.h"

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

static uint64_t others(void)
{
    uint64_t all = host_nr_vcpus == 64 ? ~0ull : (1ull << host_nr_vcpus) - 1;

    return all & ~(1ull << current->id);
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
    if (level >= 2) {
        tlb_flush_everywhere();
        return;
    }
    for (unsigned i = 0; i < host_nr_vcpus; i++)
        vcpu_of(i)->tlb_stale = true;
}

void tlb_flush_everywhere(void)
{
    current->pending |= PENDING_TLB_FLUSH;
    current->shootdown |= others();
}

void tlb_flush_vcpus(uint64_t mask)
{
    mask &= others() | (1ull << current->id);
    if (mask & (1ull << current->id))
        tlb_flush_requested();
    current->shootdown |= mask & ~(1ull << current->id);
}

void tlb_shootdown(void)
{
    uint64_t mask = current->shootdown;

    current->shootdown = 0;
    for (unsigned i = 0; i < host_nr_vcpus; i++)
        if (mask >> i & 1)
            vcpu_of(i)->pending |= PENDING_TLB_FLUSH;
    if (mask)
        perch_shared.stats.tlb_shootdowns++;
    host_kick_out_of_guest(mask);
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
