/* The CPUID view Xen gives a PV guest, as perch builds it (host/cpuid.c). */
#ifndef PERCH_HOST_CPUID_H
#define PERCH_HOST_CPUID_H

#include <stddef.h>
#include <stdint.h>

/*
 * The CPUID a Xen PV guest sees: leaf/subleaf in, eax..edx out. Built from
 * the real CPU through env_cpuid, with Xen 4.17's PV policy and perch's own
 * hidden bits applied, plus Xen's leaves at 0x40000000.
 */
void guest_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/*
 * The real CPU's CPUID, where guest_cpuid() starts from: host/vm/env.c runs
 * `cpuid` at CPL3 (KVM answers with the vCPU's CPUID); unit tests bring a
 * fake. Declared here until env.h has it.
 */
void env_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/* XCR0's components perch can offer, and the CR4 bit that says XSAVE is on:
 * shared by the CPUID it reports (cpuid.c) and the xsetbv and CR4 writes it
 * emulates (emulate.c). */
#define XCR0_X87    1ull
#define XCR0_SSE    2ull
#define XCR0_AVX    4ull
#define CR4_OSXSAVE (1ull << 18)

/* The real XCR0 (xgetbv 0); only called while the real CPUID says
 * OSXSAVE, so the instruction is there. Unit tests bring a fake. */
uint64_t env_xcr0(void);

/* The XCR0 bits the guest kernel may set with xsetbv: x87, SSE and AVX
 * where the real XCR0 has them, 0 when the real CPU runs guest code
 * without XSAVE (then XSAVE is hidden, as before). */
uint64_t guest_xcr0_allowed(void);

/* A feature bit perch hides from the guest, and why (for docs and tests). */
enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };
struct cpuid_hidden_bit {
    uint32_t leaf, subleaf;
    uint8_t reg;            /* CPUID_EAX .. CPUID_EDX */
    uint8_t bit;
    const char *name;
    const char *why;
};
extern const struct cpuid_hidden_bit cpuid_hidden[];
extern const size_t cpuid_hidden_count;

#endif
