/*
 * Timing with the TSC inside a test guest, virtbench style: batches of an
 * operation, RT_SAMPLES samples, the empty loop's cost subtracted, the
 * median and range reported as "<guest>: NAME cycles MEDIAN (MIN - MAX) per
 * op, N ops", which the scripts in tests/guests read.
 */
#ifndef PERCH_RT_TIMING_H
#define PERCH_RT_TIMING_H

#include <stdint.h>

#define RT_SAMPLES 11

uint64_t rt_rdtsc(void);

/* Time op (0 = success) and print the line; -1 without a line if op
 * failed, so the caller can say why. */
int rt_time(const char *name, long (*op)(void), unsigned batch);

#endif
