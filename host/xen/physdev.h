/* physdev_op's I/O privilege, as the guest left it (host/xen/physdev.c). */
#ifndef PERCH_HOST_PHYSDEV_H
#define PERCH_HOST_PHYSDEV_H

#include <stdint.h>

/* The guest kernel's virtual I/O privilege level and I/O bitmap are the
 * vCPU's (struct vcpu: iopl, iobitmap, iobitmap_ports), as
 * PHYSDEVOP_set_iopl / set_iobitmap leave them. */
extern uint64_t physdev_pirq_eoi_mfn;    /* pirq_eoi_gmfn's frame, 0: none */

#endif
