/* Building 4-level page tables in machine memory before the vCPU runs. */
#include "pagetable.h"

#include "../../abi/xen/xen.h"

int pt_map(struct guest_memory *gm, uint64_t l4_mfn, uint64_t va, int level,
           uint64_t entry, pt_alloc_fn alloc, void *ctx)
{
    uint64_t table_mfn = l4_mfn;

    for (int l = 4; l > level; l--) {
        uint64_t *table = gm_frame(gm, table_mfn);
        uint64_t *slot;

        if (!table)
            return -1;
        slot = &table[pt_index(va, l)];
        if (!(*slot & PTE_P)) {
            uint64_t mfn = alloc(ctx);

            if (mfn == INVALID_MFN)
                return -1;
            *slot = (mfn << PAGE_SHIFT) | PT_TABLE_FLAGS;
        } else if (*slot & PTE_PS) {
            return -1;
        }
        table_mfn = (*slot & PTE_ADDR_MASK) >> PAGE_SHIFT;
    }
    uint64_t *table = gm_frame(gm, table_mfn);

    if (!table)
        return -1;
    table[pt_index(va, level)] = entry;
    return 0;
}

static bool is_guest_frame(const struct guest_memory *gm, uint64_t mfn)
{
    return mfn >= gm->guest_mfn_base && gm_pfn_valid(gm, mfn - gm->guest_mfn_base);
}

uint64_t pt_guest_lookup(const struct guest_memory *gm, uint64_t l4_mfn, uint64_t va)
{
    uint64_t mfn = l4_mfn;

    for (int level = 4; level >= 1; level--) {
        const volatile uint64_t *table;
        uint64_t entry;

        if (!is_guest_frame(gm, mfn))
            return INVALID_MFN;
        table = gm_frame(gm, mfn);
        entry = table[pt_index(va, level)];
        if (!(entry & PTE_P) || (level > 1 && (entry & PTE_PS)))
            return INVALID_MFN;
        mfn = (entry & PTE_ADDR_MASK) >> PAGE_SHIFT;
    }
    return is_guest_frame(gm, mfn) ? mfn : INVALID_MFN;
}
