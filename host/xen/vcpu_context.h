/*
 * vCPUs past the first (host/xen/vcpu_context.c): the context
 * VCPUOP_initialise gives one, and its wait until VCPUOP_up lets it go
 * (then host/entry/boot.c enters the guest kernel as the context says).
 */
#ifndef PERCH_HOST_VCPU_CONTEXT_H
#define PERCH_HOST_VCPU_CONTEXT_H

#include "../core/host.h"
#include "../core/vcpu.h"

/* Check the guest's vcpu_guest_context at guest VA arg and give it to v
 * (VCPU_OFF, not the current vCPU): 0, -XEN_EFAULT or -XEN_EINVAL (or an
 * error of its L4's validation). */
long vcpu_context_load(struct vcpu *v, uint64_t arg);

/* Sleep until another vCPU brings this one up (VCPUOP_up). */
void vcpu_context_wait_up(void);

#endif
