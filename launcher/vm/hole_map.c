/* Perch-private frames mapped into the hole's template L4, before the vCPU runs. */
#include "hole_map.h"

#include <string.h>

#include "pagetable.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t hole_alloc_private(void *gm)
{
    return gm_alloc_private(gm);
}

/* Machine address of the L1 table that maps `va` under `l4` (0 if none). */
uint64_t hole_table_of(struct guest_memory *gm, uint64_t l4, uint64_t va)
{
    uint64_t table = l4 << PAGE_SHIFT;

    for (int level = 4; level > 1; level--) {
        uint64_t *t = gm_frame(gm, table >> PAGE_SHIFT);
        uint64_t entry = t ? t[pt_index(va, level)] : 0;

        if (!(entry & PTE_P))
            return 0;
        table = entry & PTE_ADDR_MASK;
    }
    return table;
}

/* Machine address that `va` maps to in the tree under `l4`, or 0. */
uint64_t hole_lookup(struct guest_memory *gm, uint64_t l4, uint64_t va)
{
    uint64_t l1 = hole_table_of(gm, l4, va);
    uint64_t *t = l1 ? gm_frame(gm, l1 >> PAGE_SHIFT) : NULL;
    uint64_t entry = t ? t[pt_index(va, 1)] : 0;

    return entry & PTE_P ? entry & PTE_ADDR_MASK : 0;
}

/*
 * Allocate consecutive private frames for [va, va + bytes), fill them from
 * `data` (data_bytes of it; the rest stays zero) and map them with `flags`
 * in the template L4. Returns the first frame, or INVALID_MFN.
 */
uint64_t hole_map_range(struct guest_memory *gm, uint64_t l4, uint64_t va,
                              uint64_t bytes, uint64_t flags, const void *data,
                              uint64_t data_bytes)
{
    uint64_t n = div_up(bytes, PAGE_SIZE), first = gm_alloc_private_range(gm, n);

    if (first == INVALID_MFN)
        return INVALID_MFN;
    if (data_bytes)
        memcpy(gm_frame(gm, first), data, data_bytes);
    for (uint64_t i = 0; i < n; i++)
        if (pt_map(gm, l4, va + i * PAGE_SIZE, 1,
                   ((first + i) << PAGE_SHIFT) | flags, hole_alloc_private, gm))
            return INVALID_MFN;
    return first;
}

/* Map [to_va, to_va + bytes) under to_l4 to the frames that [from_va, ...)
 * maps under from_l4, with `flags`: 0, or -1 (a page unmapped, or out of
 * frames for tables). */
int hole_map_again(struct guest_memory *gm, uint64_t from_l4, uint64_t from_va,
                   uint64_t to_l4, uint64_t to_va, uint64_t bytes, uint64_t flags)
{
    for (uint64_t off = 0; off < bytes; off += PAGE_SIZE) {
        uint64_t maddr = hole_lookup(gm, from_l4, from_va + off);

        if (!maddr || pt_map(gm, to_l4, to_va + off, 1, maddr | flags,
                             hole_alloc_private, gm))
            return -1;
    }
    return 0;
}

/* Like map_new_range, but hands back the host pointer to the first byte. */
void *hole_map_new(struct guest_memory *gm, uint64_t l4, uint64_t va,
                     uint64_t bytes, uint64_t flags)
{
    uint64_t mfn = hole_map_range(gm, l4, va, bytes, flags, NULL, 0);

    return mfn == INVALID_MFN ? NULL : gm_frame(gm, mfn);
}

