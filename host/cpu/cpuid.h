/* The CPUID view Xen gives a PV guest, as perch builds it (host/cpu/cpuid.c). */
#ifndef PERCH_HOST_CPUID_H
#define PERCH_HOST_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The CPUID a Xen PV guest sees: leaf/subleaf in, eax..edx out. Built from
 * the CPU the Launcher described (perch_shared.boot.cpu: the real CPU, or a
 * recorded profile merged with it), with Xen 4.17's PV policy, perch's own
 * hidden bits and the dependencies between features applied, plus Xen's
 * leaves at 0x40000000.
 */
void guest_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/* Whether the described CPU is Intel's, or AMD's (or Hygon's): its vendor
 * string, which decides the MSRs Linux reads and Xen answers. */
bool cpu_vendor_is_intel(void);
bool cpu_vendor_is_amd(void);

/* XCR0's components perch can offer, and the CR4 bit that says XSAVE is on:
 * shared by the CPUID it reports (cpuid.c) and the xsetbv and CR4 writes it
 * emulates (emulate.c). */
#define XCR0_X87    1ull
#define XCR0_SSE    2ull
#define XCR0_AVX    4ull
#define XCR0_AVX512 0xe0ull        /* opmask, ZMM_Hi256, Hi16_ZMM */
#define CR4_OSXSAVE (1ull << 18)

/* The XCR0 bits the guest kernel may set with xsetbv: x87, SSE, AVX and
 * AVX-512 where the real XCR0 has them, 0 when guest code runs without
 * XSAVE (then XSAVE is hidden). */
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
