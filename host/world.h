/*
 * The world switch: which guest mode runs (kernel or user), in which
 * address space, and how the Host leaves for it.
 */
#ifndef PERCH_WORLD_H
#define PERCH_WORLD_H

#include "host.h"
#include "vcpu.h"

/* Switch guest mode; the matching address space is loaded on the way out. */
void world_enter_kernel(void);
void world_enter_user(void);

/* The Host was entered with the interrupt flag off (an interrupt, or the
 * kernel view's int3): the way out must bring it back on. */
void world_entered_with_interrupts_off(void);

/* An event from a user view has brought the kernel CR3 with it. */
void world_arrived_from_user(void);

/* Leave the Host for the guest frame in regs, by the cheapest way that is
 * correct: no ring 0 for guest-kernel frames, the RESUME gate when the
 * interrupt flag must come back, CR3_RESUME for another address space or a
 * pending flush. */
_Noreturn void host_return(struct cpu_regs *regs);

/* The vCPU starts in guest-kernel mode with this CR3 already loaded. */
void world_start(uint64_t kernel_cr3);

/* Make the guest kernel's new base pointer the one the Switcher loads. */
void world_set_kernel_cr3(uint64_t cr3);

#endif
