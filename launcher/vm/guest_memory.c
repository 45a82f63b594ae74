/* Machine memory: the memslot's host mapping, perch's private frames, then the guest's. */
#include "guest_memory.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include "../../abi/xen/xen.h"

int guest_memory_fits_host(uint64_t mib, struct error *e)
{
    struct sysinfo si;
    uint64_t host_mib;

    if (sysinfo(&si))
        return 0;
    host_mib = (uint64_t)si.totalram * si.mem_unit >> 20;
    if (mib > host_mib)
        return fail(e, "--mem %lu MiB is more than this host's memory (%lu MiB)", mib,
                    host_mib);
    return 0;
}

int guest_memory_init(struct guest_memory *gm, uint64_t private_frames,
                      uint64_t nr_pages)
{
    uint64_t bytes = (private_frames + nr_pages) * PAGE_SIZE;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        return -1;
    gm->base = p;
    gm->bytes = bytes;
    gm->guest_mfn_base = private_frames;
    gm->nr_pages = nr_pages;
    gm->next_private = 1;   /* frame 0 stays unused: a null maddr is a bug */
    return 0;
}

void guest_memory_release(struct guest_memory *gm)
{
    if (gm->base)
        munmap(gm->base, gm->bytes);
    gm->base = NULL;
}

void *gm_range(const struct guest_memory *gm, uint64_t maddr, uint64_t len)
{
    if (maddr > gm->bytes || len > gm->bytes - maddr)
        return NULL;
    return gm->base + maddr;
}

void *gm_frame(const struct guest_memory *gm, uint64_t mfn)
{
    if (mfn >= gm->bytes / PAGE_SIZE)
        return NULL;
    return gm->base + mfn * PAGE_SIZE;
}

void *gm_pfn(const struct guest_memory *gm, uint64_t pfn)
{
    if (!gm_pfn_valid(gm, pfn))
        return NULL;
    return gm_frame(gm, gm_pfn_to_mfn(gm, pfn));
}

uint64_t gm_alloc_private_range(struct guest_memory *gm, uint64_t n)
{
    uint64_t first = gm->next_private;

    if (!n || first >= gm->guest_mfn_base || n > gm->guest_mfn_base - first)
        return INVALID_MFN;
    /* Anonymous memory starts zeroed and private frames are taken once. */
    gm->next_private += n;
    return first;
}

uint64_t gm_alloc_private(struct guest_memory *gm)
{
    return gm_alloc_private_range(gm, 1);
}
