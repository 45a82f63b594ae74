/* The MSRs a PV guest kernel may read and write, answered as Xen answers
 * them (host/cpu/msr.c). */
#ifndef PERCH_HOST_MSR_H
#define PERCH_HOST_MSR_H

#include <stdbool.h>
#include <stdint.h>

/* rdmsr: true with *val, or false for a #GP. */
bool msr_read(uint32_t msr, uint64_t *val);

/* wrmsr: true if taken (applied or ignored, as Xen does), false for a #GP. */
bool msr_write(uint32_t msr, uint64_t val);

#endif
