/*
 * Several vCPUs in a test guest: vCPU N brought up as a 64-bit PV kernel
 * brings up a CPU (VCPUOP_initialise with a context of the guest's own,
 * then VCPUOP_up), running a C function on a stack of its own. When the
 * function returns the vCPU takes itself down (VCPUOP_down) until the
 * next rt_cpu_run gives it another.
 *
 * Each vCPU's kernel GS base points at its own record, so code can ask
 * which vCPU it runs on (rt_cpu_id) and the event callback finds that
 * vCPU's vcpu_info. rt_events_init must have run before the first
 * rt_cpu_run; every vCPU started here binds its own VIRQ_TIMER, so
 * rt_nap and rt_wait work on it too.
 */
#ifndef PERCH_RT_SMP_H
#define PERCH_RT_SMP_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/vcpu.h"
#include "cpu_id.h"

#define RT_CPU_STACK 0x4000

/* How many vCPUs the domain has: VCPUOP_is_up answers -ENOENT past the
 * last. */
unsigned rt_cpu_count(void);

/* vcpu_op(cmd, id, arg). */
long rt_vcpu_op(unsigned cmd, unsigned long id, void *arg);

/* The context rt_cpu_run gives vCPU id (1 to RT_MAX_CPUS - 1): the
 * runtime's entry with the record in rdi, the vCPU's own stack, the L4
 * the guest runs on, the runtime's event callback, its kernel GS base;
 * no GDT frames, no trap table. Attacks spoil a copy. */
void rt_cpu_context(struct vcpu_guest_context *c, unsigned id);

/* Run fn(arg) on vCPU id: VCPUOP_initialise the first time, then
 * VCPUOP_up. The vCPU must be down (never started, or its last function
 * returned). 0, or the error of the vcpu_op that refused. */
long rt_cpu_run(unsigned id, void (*fn)(void *), void *arg);

/* Wait up to ms for vCPU id's function to return; true if it did. */
bool rt_cpu_wait(unsigned id, uint64_t ms);

#endif
