/* Where a vCPU's traps and events go (host/xen/callbacks.c), for the hypercalls
 * that set them and for VCPUOP_initialise (host/xen/vcpu_context.c). */
#ifndef PERCH_HOST_CALLBACKS_H
#define PERCH_HOST_CALLBACKS_H

#include "../core/host.h"
#include "../core/vcpu.h"

/* May the guest kernel's code lie at va (0: none, allowed)? */
bool callbacks_handler_ok(uint64_t va);

/* A whole virtual IDT, entry v for vector v (Xen's trap_ctxt): every
 * handler checked first, then all set; 0 or -XEN_EINVAL. */
long callbacks_load_traps(struct vcpu *v, const struct trap_info table[256]);

#endif
