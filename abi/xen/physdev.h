/*
 * physdev_op (Xen 4.17's public/physdev.h): I/O privilege and the physical
 * IRQ and PCI operations (perch serves only the first).
 */
#ifndef PERCH_ABI_XEN_PHYSDEV_H
#define PERCH_ABI_XEN_PHYSDEV_H

#include "xen.h"

#define PHYSDEVOP_IRQ_UNMASK_NOTIFY  4
#define PHYSDEVOP_irq_status_query   5
#define PHYSDEVOP_set_iopl           6
#define PHYSDEVOP_set_iobitmap       7
#define PHYSDEVOP_apic_read          8
#define PHYSDEVOP_apic_write         9
#define PHYSDEVOP_eoi               12
#define PHYSDEVOP_map_pirq          13
#define PHYSDEVOP_unmap_pirq        14
#define PHYSDEVOP_pirq_eoi_gmfn_v1  17
#define PHYSDEVOP_pci_device_add    25
#define PHYSDEVOP_pirq_eoi_gmfn_v2  28
#define PHYSDEVOP_dbgp_op           29

/* physdev_op_compat's argument: the command, then the operation's own
 * argument 8-byte aligned, in a union whose largest member is 16 bytes. */
#define PHYSDEV_OP_ARG_OFFSET 8
#define PHYSDEV_OP_BYTES      24

#ifndef __ASSEMBLER__

struct physdev_set_iopl {
    uint32_t iopl;             /* 0..3 */
};
_Static_assert(sizeof(struct physdev_set_iopl) == 4, "physdev_set_iopl");

struct physdev_set_iobitmap {
    uint64_t bitmap;           /* guest VA */
    uint32_t nr_ports;
    uint32_t pad;
};
_Static_assert(sizeof(struct physdev_set_iobitmap) == 16, "physdev_set_iobitmap");
_Static_assert(offsetof(struct physdev_set_iobitmap, nr_ports) == 8, "iobitmap.nr_ports");

struct physdev_pirq_eoi_gmfn {
    uint64_t gmfn;             /* a PV guest gives a machine frame */
};
_Static_assert(sizeof(struct physdev_pirq_eoi_gmfn) == 8, "pirq_eoi_gmfn");

#endif /* !__ASSEMBLER__ */

#endif
