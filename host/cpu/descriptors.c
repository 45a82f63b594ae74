/*
 * Segment descriptors: set_gdt and update_descriptor.
 *
 * The guest's GDT frames are mapped into the Switcher's GDT (its first 14
 * pages; pages 14-15 are Xen's reserved selectors, perch's too). Every
 * descriptor is checked as Xen does for a 64-bit PV guest: code and data
 * segments get DPL 3 (the guest kernel runs at CPL3), call gates are kept
 * with DPL 0 so that using one faults, and any other system descriptor is
 * refused, so no descriptor the guest writes can reach ring 0.
 */
#include "descriptors.h"
#include "../core/env.h"
#include "../core/host.h"
#include "../core/vcpu.h"

#define DESC_S        (1ull << 44)        /* code or data */
#define DESC_DPL      (3ull << 45)
#define DESC_P        (1ull << 47)
#define DESC_TYPE     (0xfull << 40)
#define DESC_CALLGATE (0xcull << 40)
#define DESCS_PER_FRAME 512

/* Xen's check_descriptor for a 64-bit PV guest; fixes *d up in place. */
static bool descriptor_ok(uint64_t *d)
{
    uint64_t v = *d;

    if (!(v & DESC_P))
        return true;              /* a not-present descriptor always faults */
    if (v & DESC_S) {
        *d = v | DESC_DPL;        /* code and data: DPL 3 */
        return true;
    }
    if ((v & DESC_TYPE) == 0)
        return true;              /* the upper half of a call gate */
    if ((v & DESC_TYPE) != DESC_CALLGATE)
        return false;             /* TSS, LDT, interrupt and trap gates */
    /* A call gate: target selector must be a guest one; the DPL moves into
     * the selector's RPL and the gate itself gets DPL 0, so it faults. */
    {
        uint64_t sel = (v >> 16) & 0xffff, dpl = (v >> 45) & 3;

        if ((sel & 3) != 3 && (sel & ~7ull) >= FIRST_RESERVED_GDT_ENTRY * 8)
            return false;
        if (v & (0xffull << 32))
            return false;         /* reserved bits */
        *d = (v & ~(DESC_DPL | (0xffffull << 16))) | (((sel & ~3ull) | dpl) << 16);
        return true;
    }
}

long do_update_descriptor(uint64_t maddr, uint64_t desc, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    if (maddr & 7 || !guest_owns_frame(maddr >> XEN_PAGE_SHIFT) || !descriptor_ok(&desc))
        return -XEN_EINVAL;
    *(volatile uint64_t *)(env_alias_base() + maddr) = desc;
    return 0;
}

/* Check (and fix up) all descriptors of one guest frame. */
static bool frame_ok(uint64_t mfn)
{
    uint64_t *descs;

    /* The frame first: a pointer past machine memory is undefined even
     * unused (fuzz_multicall found one with mfn near 2^64 / 4096). */
    if (!guest_owns_frame(mfn))
        return false;
    descs = (uint64_t *)(env_alias_base() + (mfn << XEN_PAGE_SHIFT));
    for (unsigned i = 0; i < DESCS_PER_FRAME; i++)
        if (!descriptor_ok(&descs[i]))
            return false;
    return true;
}

static unsigned gdt_frames(uint64_t entries)
{
    return (entries + DESCS_PER_FRAME - 1) / DESCS_PER_FRAME;
}

long descriptors_load_gdt(struct vcpu *v, const uint64_t *frames, uint64_t entries)
{
    unsigned nr = gdt_frames(entries);
    volatile uint64_t *gdt_l1 = (volatile uint64_t *)(env_alias_base() +
                                                      perch_shared.boot.gdt_l1_maddr[v->id]);

    if (entries > FIRST_RESERVED_GDT_ENTRY)
        return -XEN_EINVAL;
    for (unsigned i = 0; i < nr; i++)
        if (!frame_ok(frames[i]))
            return -XEN_EINVAL;
    /* Ring 0 only, writable: the CPU sets accessed bits in descriptors. */
    for (unsigned i = 0; i < FIRST_RESERVED_GDT_PAGE; i++)
        gdt_l1[i] = (i < nr ? frames[i] << XEN_PAGE_SHIFT
                            : perch_shared.boot.gdt_zero_maddr) |
                    PTE_P | PTE_RW | PTE_A | PTE_D | PTE_NX;
    v->pending |= PENDING_TLB_FLUSH;
    return 0;
}

long do_set_gdt(uint64_t frame_list, uint64_t entries, uint64_t a3, uint64_t a4, uint64_t a5)
{
    uint64_t frames[FIRST_RESERVED_GDT_PAGE];

    (void)a3, (void)a4, (void)a5;
    if (entries > FIRST_RESERVED_GDT_ENTRY)
        return -XEN_EINVAL;
    if (copy_from_guest(frames, frame_list, gdt_frames(entries) * sizeof(frames[0])))
        return -XEN_EFAULT;
    return descriptors_load_gdt(current, frames, entries);
}
