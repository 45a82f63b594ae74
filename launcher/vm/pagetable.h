/*
 * Writing x86-64 4-level page tables into guest memory before the vCPU
 * first runs (afterwards only the vCPU may write page tables: docs/kvm.md).
 */
#ifndef PERCH_PAGETABLE_H
#define PERCH_PAGETABLE_H

#include <stdint.h>

#include "guest_memory.h"

/* Flags of the entries perch writes above L1: present, writable, user
 * (the guest kernel and the Host run at CPL3), accessed, dirty. */
#define PT_TABLE_FLAGS (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)

/* Gives a zeroed frame for a new table, or INVALID_MFN. */
typedef uint64_t (*pt_alloc_fn)(void *ctx);

/*
 * Install `entry` (frame address | flags) for `va` at `level` (1: a 4 KiB
 * page, 2: a 2 MiB page with PTE_PS set by the caller) below the L4 at
 * `l4_mfn`, allocating missing tables. Returns 0, or -1 when a table cannot
 * be allocated or an existing entry is a large page in the way.
 */
int pt_map(struct guest_memory *gm, uint64_t l4_mfn, uint64_t va, int level,
           uint64_t entry, pt_alloc_fn alloc, void *ctx);

/*
 * Read a tree the guest built (a debugger's view of its memory): the
 * machine frame that `va` maps to under the L4 at machine frame `l4_mfn`,
 * or INVALID_MFN. Every table and the page itself must be a frame of the
 * guest's own (never perch's private ones, which include the hole's
 * tables), each entry present and no superpage (the Host never accepts
 * one). The guest may change the tree at any time: only walk it while
 * the vCPU is stopped, and take the answer as a frame inside guest RAM,
 * no more.
 */
uint64_t pt_guest_lookup(const struct guest_memory *gm, uint64_t l4_mfn, uint64_t va);

/* Index of `va` in its table at `level` (4 = L4 ... 1 = L1). */
static inline unsigned pt_index(uint64_t va, int level)
{
    return (va >> (12 + 9 * (level - 1))) & 511;
}

#endif
