/*
 * Looking up CPUID leaves in a struct perch_cpu (abi/layout.h): shared by
 * the Launcher, which fills the table, and the Host, which answers from it.
 */
#ifndef PERCH_CPUID_TABLE_H
#define PERCH_CPUID_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../abi/layout.h"

/* Leaves whose answer depends on the subleaf in ecx; every other leaf
 * ignores ecx, as the CPU does. */
bool cpuid_leaf_has_subleaves(uint32_t leaf);

/*
 * What `cpuid` with leaf and subleaf would return on the described CPU:
 * the entry recorded for it (for a leaf without subleaves, its subleaf 0),
 * or zeros where the table has none. Returns whether an entry was found.
 */
bool cpuid_table_read(const struct perch_cpu *cpu, uint32_t leaf, uint32_t subleaf,
                      uint32_t out[4]);

/* Record an answer, replacing one for the same leaf and subleaf; false
 * when the table is full. */
bool cpuid_table_write(struct perch_cpu *cpu, uint32_t leaf, uint32_t subleaf,
                       const uint32_t reg[4]);

#endif
