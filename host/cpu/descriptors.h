/* Segment descriptors (host/cpu/descriptors.c), for set_gdt and for
 * VCPUOP_initialise (host/xen/vcpu_context.c). */
#ifndef PERCH_HOST_DESCRIPTORS_H
#define PERCH_HOST_DESCRIPTORS_H

#include "../core/host.h"
#include "../core/vcpu.h"

/* Give vCPU v the GDT of `entries` descriptors in guest frames `frames`
 * (as many as the entries fill), each checked and fixed up as Xen does;
 * its TLB is flushed on its way back to the guest. 0 or -XEN_EINVAL. */
long descriptors_load_gdt(struct vcpu *v, const uint64_t *frames, uint64_t entries);

#endif
