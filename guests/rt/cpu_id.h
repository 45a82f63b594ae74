/*
 * Which vCPU code runs on, for every part of the runtime. Each vCPU's
 * kernel GS base points at a record of smp.c's whose first word is its id;
 * vCPU 0 takes its record before any other vCPU runs (rt_cpu_id_start),
 * and until then every caller is vCPU 0.
 */
#ifndef PERCH_RT_CPU_ID_H
#define PERCH_RT_CPU_ID_H

#define RT_MAX_CPUS 8

/* The vCPU this code runs on (0 until a second one was started). */
unsigned rt_cpu_id(void);

/* vCPU 0 takes `record` (its id, 0, first) as its kernel GS base, once:
 * 0, or the error of set_segment_base. */
long rt_cpu_id_start(const unsigned *record);

#endif
