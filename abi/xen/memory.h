/*
 * memory_op (Xen 4.17's public/memory.h): reservations, the memory map and
 * where the M2P table is.
 */
#ifndef PERCH_ABI_XEN_MEMORY_H
#define PERCH_ABI_XEN_MEMORY_H

#include "xen.h"

#define XENMEM_increase_reservation  0
#define XENMEM_decrease_reservation  1
#define XENMEM_maximum_ram_page      2
#define XENMEM_current_reservation   3
#define XENMEM_maximum_reservation   4
#define XENMEM_machphys_mfn_list     5
#define XENMEM_populate_physmap      6
#define XENMEM_add_to_physmap        7
#define XENMEM_memory_map            9
#define XENMEM_machine_memory_map   10
#define XENMEM_exchange             11
#define XENMEM_machphys_mapping     12
#define XENMEM_maximum_gpfn         14

/*
 * The command's low 6 bits are the operation; the rest is the extent to
 * start from, which Xen's continuations of the reservation calls use.
 */
#define MEMOP_EXTENT_SHIFT 6
#define MEMOP_CMD_MASK     ((1u << MEMOP_EXTENT_SHIFT) - 1)

/* An e820 entry's type: usable RAM. */
#define E820_RAM 1u

#ifndef __ASSEMBLER__

/* increase/decrease_reservation and populate_physmap. */
struct xen_memory_reservation {
    uint64_t extent_start;     /* guest VA of the frame numbers */
    uint64_t nr_extents;
    uint32_t extent_order;
    uint32_t mem_flags;
    domid_t domid;
};
_Static_assert(sizeof(struct xen_memory_reservation) == 32, "memory_reservation");
_Static_assert(offsetof(struct xen_memory_reservation, extent_order) == 16, "extent_order");
_Static_assert(offsetof(struct xen_memory_reservation, domid) == 24, "reservation.domid");

struct xen_memory_map {
    uint32_t nr_entries;       /* in: room in buffer; out: entries written */
    uint32_t pad;
    uint64_t buffer;           /* guest VA of e820 entries */
};
_Static_assert(sizeof(struct xen_memory_map) == 16, "xen_memory_map");
_Static_assert(offsetof(struct xen_memory_map, buffer) == 8, "memory_map.buffer");

/* One BIOS e820 entry, as the memory map hands them out: packed, 20 bytes. */
struct e820_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;             /* E820_* */
} __attribute__((packed));
_Static_assert(sizeof(struct e820_entry) == 20, "e820_entry");

struct xen_machphys_mapping {
    uint64_t v_start, v_end;   /* where the guest kernel reads the M2P */
    uint64_t max_mfn;          /* last frame it has an entry for */
};
_Static_assert(sizeof(struct xen_machphys_mapping) == 24, "machphys_mapping");

#endif /* !__ASSEMBLER__ */

#endif
