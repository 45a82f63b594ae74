/*
 * Which guest mode runs, kernel or user, and the address spaces each needs.
 * The way back to the guest is host/entry/guest_resume.h.
 */
#ifndef PERCH_GUEST_MODE_H
#define PERCH_GUEST_MODE_H

#include "host.h"
#include "vcpu.h"

/* The GS base of the mode the guest is in (kernel or user). */
uint64_t guest_gs_base(void);

/* The vCPU starts in guest-kernel mode with this CR3 already loaded. */
void guest_mode_start(uint64_t kernel_cr3, bool isolation_off);

/* Make the guest kernel's new base pointer the one the Switcher loads. */
void guest_set_kernel_cr3(uint64_t cr3);

#endif
