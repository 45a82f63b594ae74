/*
 * The address of a #PF that came through a DPL3 gate, where CR2 cannot be
 * read: proven from the faulting instruction and the guest's page tables
 * when it can be, read in one ring-0 visit (READ_CR2) when not.
 */
#ifndef PERCH_FAULT_ADDRESS_H
#define PERCH_FAULT_ADDRESS_H

#include "../core/host.h"

uint64_t fault_address_cpl3(const struct cpu_regs *regs);

#endif
