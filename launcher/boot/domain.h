/*
 * The PV domain builder: lays out a guest's pseudo-physical memory and
 * start-of-day state the way Xen's domain builder does for a 64-bit PV guest
 * (docs/xen-pv.md section 2; tools/libs/guest/xg_dom_x86.c), so that a
 * kernel's PV entry code accepts it:
 *
 *   pfn 0 ..             padding (mapped RAM), then the kernel by p_paddr,
 *                        [a mapped initrd without MOD_START_PFN],
 *                        [the p2m list without INIT_P2M],
 *                        start_info, xenstore page, console page,
 *                        page tables (L4, L3, L2, L1s), boot stack, padding
 *                        up to a 4 MiB boundary (with 512 KiB to spare),
 *                        [the unmapped initrd with MOD_START_PFN],
 *                        [the p2m list at INIT_P2M and its page tables].
 *
 * Everything it writes goes into guest memory before the vCPU first runs
 * (the only time the Launcher may write page tables, see docs/kvm.md).
 */
#ifndef PERCH_DOMAIN_H
#define PERCH_DOMAIN_H

#include <stdint.h>

#include "../base/error.h"
#include "../vm/guest_memory.h"
#include "pv_image.h"

struct domain_config {
    const char *cmdline;            /* may be NULL */
    const uint8_t *initrd;          /* may be NULL */
    uint64_t initrd_bytes;
    uint64_t shared_info_mfn;       /* perch-private frame */
    uint32_t console_evtchn;        /* 0: no ring console */
    uint32_t store_evtchn;          /* 0: no xenstore */
};

struct domain_layout {
    uint64_t entry;                 /* rip */
    uint64_t stack_top;             /* rsp: top of the boot stack page */
    uint64_t start_info_va;         /* rsi */
    uint64_t start_info_pfn;
    uint64_t l4_mfn;                /* cr3 = l4_mfn << 12 */
    uint64_t pt_base_va;
    uint64_t nr_pt_frames;
    uint64_t console_pfn;
    uint64_t store_pfn;
    uint64_t p2m_va;
    uint64_t virt_pgtab_end;        /* end of the initial mapping */
    uint64_t pfns_used;             /* pfns handed out by the builder */
};

/* Build the domain into gm from an image pv_image_parse() accepted (its
 * rules on the file, such as where segment bytes lie, are not checked
 * again). Returns 0, or -1 with e filled (for instance when a segment lies
 * outside guest memory, memory is too small or the command line is longer
 * than start_info's MAX_GUEST_CMDLINE - 1 bytes). */
int domain_build(struct guest_memory *gm, const struct pv_image *img,
                 const struct domain_config *cfg, struct domain_layout *out,
                 struct error *e);

/* Fill a 4 KiB hypercall page: slot N issues hypercall N with `syscall`
 * (slot 23, iret, pushes rax first and never returns). */
void domain_fill_hypercall_page(uint8_t page[4096]);

#endif
