/*
 * The CPU perch describes to the Host (struct perch_cpu, abi/layout.h):
 * read from the machine perch runs on, or replayed from a recorded profile
 * merged with it (`perch run --cpu-profile FILE`), and written out as a
 * profile (`perch cpu record`). docs/kvm.md, "One view of the CPU".
 *
 * A profile is text, the layout of `cpuid -r` for one CPU plus two kinds
 * of line of its own:
 *     # a comment
 *     CPU 0:                                    (optional; CPU 1: ends it)
 *        0x00000007 0x00: eax=0x... ebx=0x... ecx=0x... edx=0x...
 *     xcr0=0x2e7
 *     msr 0x8b=0x...                            (microcode revision)
 *     msr 0x1a0=0x...                           (Intel's MISC_ENABLE)
 */
#ifndef PERCH_CPU_PROFILE_H
#define PERCH_CPU_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "../../abi/layout.h"
#include "../base/error.h"

/* The machine perch runs on: its CPUID as this process reads it, its XCR0
 * (which guest code runs with), the microcode revision /proc/cpuinfo
 * gives, and MISC_ENABLE (from /dev/cpu/0/msr where readable, else
 * FAST_STRING alone, what every firmware sets). Returns 0 or -1. */
int cpu_profile_read_host(struct perch_cpu *cpu, struct error *e);

/* Parse a profile's text; -1 with e naming the line that is wrong. */
int cpu_profile_parse(const char *text, size_t len, struct perch_cpu *cpu,
                      struct error *e);

/* Read and parse the profile at path. */
int cpu_profile_load(const char *path, struct perch_cpu *cpu, struct error *e);

/* Write cpu in the profile format, after a comment line saying what it is. */
void cpu_profile_write(FILE *f, const struct perch_cpu *cpu, const char *comment);

/*
 * What the Host is told when a profile is replayed on the real CPU: the
 * profile's vendor, family, model, caches, leaves and MSR values, but a
 * feature bit only where the real CPU has it too, and the XSAVE layout
 * (leaf 0xd) and XCR0 of the real CPU, which executes the guest's XSAVE.
 */
void cpu_profile_merge(const struct perch_cpu *real, const struct perch_cpu *profile,
                       struct perch_cpu *out);

/* Can a guest that was shown `promised` run on `machine` (`perch
 * restore`)? Every feature bit it was offered, and every XCR0 component,
 * must be there. 0, or -1 with e naming the first missing one. */
int cpu_profile_covers(const struct perch_cpu *machine, const struct perch_cpu *promised,
                       struct error *e);

/* What the Host is told for `perch run`: this CPU, or the profile at
 * profile_path (if not NULL) merged with it. Returns 0 or -1. */
int cpu_profile_for_guest(const char *profile_path, struct perch_cpu *out, struct error *e);

/* `perch cpu record [FILE]`: the host's profile to FILE (a new file) or
 * standard output. argv[0] is the subcommand. Returns the exit status. */
int cpu_main(int argc, char **argv, struct error *e);

#endif
