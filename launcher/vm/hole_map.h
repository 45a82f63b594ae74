/* Perch-private frames mapped into the hole's template L4 (launcher/vm/hole_map.c). */
#ifndef PERCH_HOLE_MAP_H
#define PERCH_HOLE_MAP_H

#include <stdint.h>

#include "../../abi/layout.h"
#include "guest_memory.h"

#define SWITCHER_PAGE (PTE_P | PTE_A)                      /* ring 0, r-x */
#define SWITCHER_RO   (PTE_P | PTE_A | PTE_NX)             /* ring 0, r-- */
#define SWITCHER_RW   (PTE_P | PTE_RW | PTE_A | PTE_D | PTE_NX)
#define HOST_RW       (SWITCHER_RW | PTE_US)               /* CPL3 data */
#define HOST_RX       (PTE_P | PTE_US | PTE_A)             /* CPL3 code */
#define HOST_RWX      (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)

/* The next perch-private frame (pt_map's allocator; gm is the guest_memory). */
uint64_t hole_alloc_private(void *gm);

/* Machine address of the L1 table that maps `va` under `l4` (0 if none). */
uint64_t hole_table_of(struct guest_memory *gm, uint64_t l4, uint64_t va);

/* Machine address that `va` maps to in the tree under `l4`, or 0. */
uint64_t hole_lookup(struct guest_memory *gm, uint64_t l4, uint64_t va);

/* Allocate consecutive private frames for [va, va + bytes), fill them from
 * `data` (data_bytes of it; the rest stays zero) and map them with `flags`
 * under l4. Returns the first frame, or INVALID_MFN. */
uint64_t hole_map_range(struct guest_memory *gm, uint64_t l4, uint64_t va,
                        uint64_t bytes, uint64_t flags, const void *data,
                        uint64_t data_bytes);

/* Map [to_va, to_va + bytes) under to_l4 to the same frames as [from_va,
 * from_va + bytes) under from_l4, with `flags`: 0, or -1. */
int hole_map_again(struct guest_memory *gm, uint64_t from_l4, uint64_t from_va,
                   uint64_t to_l4, uint64_t to_va, uint64_t bytes, uint64_t flags);

/* Like hole_map_range without data, handing back the host pointer to the
 * first byte (NULL when out of frames). */
void *hole_map_new(struct guest_memory *gm, uint64_t l4, uint64_t va,
                   uint64_t bytes, uint64_t flags);

#endif
