/*
 * Guest-physical ("machine") memory as the Launcher sees it: one host
 * mapping of the whole KVM memslot. Frames below guest_mfn_base are perch's;
 * the guest's pseudo-physical frame N is machine frame guest_mfn_base + N.
 *
 * Every access by frame number goes through these helpers, which check the
 * frame against the memslot: values that came from the guest are never
 * trusted to be in range.
 */
#ifndef PERCH_GUEST_MEMORY_H
#define PERCH_GUEST_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

#define PAGE_SIZE 4096ull
#define PAGE_SHIFT 12

struct guest_memory {
    uint8_t *base;            /* host address of machine address 0 */
    uint64_t bytes;           /* size of the memslot */
    uint64_t guest_mfn_base;  /* machine frame of the guest's pfn 0 */
    uint64_t nr_pages;        /* pages the guest owns */
    uint64_t next_private;    /* next free perch-private frame */
};

/* The memory is anonymous and reserved lazily (MAP_NORESERVE), but a
 * guest given more than the host has would be killed when it used it:
 * 0 if mib MiB fit the host, else -1 with e naming the host's figure. */
int guest_memory_fits_host(uint64_t mib, struct error *e);

/* Map `bytes` of anonymous memory: `private_frames` for perch, then
 * `nr_pages` for the guest. Returns -1 with errno set on failure. */
int guest_memory_init(struct guest_memory *gm, uint64_t private_frames,
                      uint64_t nr_pages);
void guest_memory_release(struct guest_memory *gm);

/* Host pointer to machine frame `mfn`, or NULL when it is outside the memslot. */
void *gm_frame(const struct guest_memory *gm, uint64_t mfn);

/* Host pointer to [maddr, maddr + len), or NULL unless wholly inside. */
void *gm_range(const struct guest_memory *gm, uint64_t maddr, uint64_t len);

static inline uint64_t gm_pfn_to_mfn(const struct guest_memory *gm, uint64_t pfn)
{
    return gm->guest_mfn_base + pfn;
}

static inline bool gm_pfn_valid(const struct guest_memory *gm, uint64_t pfn)
{
    return pfn < gm->nr_pages;
}

/* Host pointer to the guest's pseudo-physical frame `pfn`, or NULL. */
void *gm_pfn(const struct guest_memory *gm, uint64_t pfn);

/* Take the next zeroed perch-private frame; returns its mfn, or
 * INVALID_MFN when the private area is exhausted. */
uint64_t gm_alloc_private(struct guest_memory *gm);

/* Take n (>= 1) consecutive zeroed perch-private frames; returns the
 * first, or INVALID_MFN (taking none) when fewer than n are left. */
uint64_t gm_alloc_private_range(struct guest_memory *gm, uint64_t n);

#endif
