/*
 * A PV kernel image as the domain builder needs it: the ELF64 file's
 * loadable segments and what its Xen ELF notes say (entry, virtual base,
 * hypercall page, initial p2m address, ...), checked for consistency.
 *
 * The parser reads an untrusted file: every offset, size and note length is
 * checked against the buffer before use, and a file that is not a loadable
 * x86-64 Xen PV kernel gets one line saying why.
 */
#ifndef PERCH_PV_IMAGE_H
#define PERCH_PV_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

#define PV_IMAGE_MAX_SEGMENTS 16
#define PV_NOTE_STRING_MAX 64

struct pv_segment {
    uint64_t paddr;        /* p_paddr: where it is loaded (libxc uses p_paddr) */
    uint64_t file_offset;
    uint64_t filesz;
    uint64_t memsz;        /* >= filesz; the rest is zeroed */
    bool text;             /* read and execute, not write (p_flags R E) */
};

struct pv_image {
    const uint8_t *file;
    size_t file_size;

    unsigned nr_segments;
    struct pv_segment segments[PV_IMAGE_MAX_SEGMENTS];

    /* From the Xen notes (__xen_guest strings are not supported). */
    uint64_t entry;            /* ENTRY, else e_entry */
    uint64_t virt_base;        /* VIRT_BASE */
    uint64_t paddr_offset;     /* PADDR_OFFSET, default 0 */
    uint64_t hypercall_page;   /* HYPERCALL_PAGE VA, 0 when absent */
    uint64_t init_p2m;         /* INIT_P2M VA, 0 when absent */
    uint64_t hv_start_low;     /* HV_START_LOW, 0 when absent */
    bool mod_start_pfn;        /* MOD_START_PFN = 1 */
    char xen_version[PV_NOTE_STRING_MAX];   /* must start with "xen-3.0" */
    char guest_os[PV_NOTE_STRING_MAX];
    char loader[PV_NOTE_STRING_MAX];
    char features[256];        /* the FEATURES string, as given */
    uint32_t features_required;   /* XENFEAT bits named with a leading '!' */

    /* Derived: virt_kstart = min(paddr) + virt_base - paddr_offset,
     * virt_kend likewise from max(paddr + memsz); the entry lies inside. */
    uint64_t virt_kstart;
    uint64_t virt_kend;
    /* The first text segment's span, likewise; 0, 0 without one. */
    uint64_t virt_text_start;
    uint64_t virt_text_end;
};

/* Parse an ELF64 x86-64 PV kernel held in memory. The image keeps pointing
 * into `file`, which must outlive it. Returns 0, or -1 with e filled. */
int pv_image_parse(const void *file, size_t size, struct pv_image *img,
                   struct error *e);

#endif
