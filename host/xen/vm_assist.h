/* vm_assist: the hypervisor help the guest has switched on (host/xen/vm_assist.c). */
#ifndef PERCH_HOST_VM_ASSIST_H
#define PERCH_HOST_VM_ASSIST_H

#include <stdint.h>

/* Enabled VMASST_TYPE_* bits (abi/xen/xen.h), 1 << type. 64 bits wide:
 * m2p_strict is type 32. */
extern uint64_t vm_assist_enabled;

#endif
