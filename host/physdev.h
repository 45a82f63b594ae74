/* physdev_op's I/O privilege, as the guest left it (host/physdev.c). */
#ifndef PERCH_HOST_PHYSDEV_H
#define PERCH_HOST_PHYSDEV_H

#include <stdint.h>

/* The guest kernel's virtual I/O privilege level and I/O bitmap, as
 * PHYSDEVOP_set_iopl / set_iobitmap left them (host/emulate.c reads them). */
extern uint32_t physdev_iopl;
extern uint64_t physdev_iobitmap;        /* guest VA of the bitmap */
extern uint32_t physdev_iobitmap_ports;  /* ports it covers */
extern uint64_t physdev_pirq_eoi_mfn;    /* pirq_eoi_gmfn's frame, 0: none */

#endif
