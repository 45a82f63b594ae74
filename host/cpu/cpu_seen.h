/* What the guest kernel asked of the CPU, kept for --stats (host/cpu/cpu_seen.c). */
#ifndef PERCH_HOST_CPU_SEEN_H
#define PERCH_HOST_CPU_SEEN_H

#include <stdbool.h>
#include <stdint.h>

/* An rdmsr or wrmsr and how it was answered (ok false: a #GP). */
void cpu_seen_msr(uint32_t msr, bool write, bool ok, uint64_t value);

/* A CPUID leaf and perch's answer. */
void cpu_seen_cpuid(uint32_t leaf, uint32_t subleaf, const uint32_t reg[4]);

#endif
