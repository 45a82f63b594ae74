/*
 * perch's part of the VM: the Switcher's and the Host's frames and the page
 * tables of the hypervisor hole, built in perch-private machine frames
 * before the vCPU first runs (the layout is in abi/layout.h).
 *
 * hole_build() fills a template L4 whose slots 257 (Switcher, Host, M2P) and
 * 258 (the alias of machine memory) are then copied into every guest-kernel
 * L4 by hole_install(), as Xen fills its slots into every validated L4.
 */
#ifndef PERCH_HOLE_H
#define PERCH_HOLE_H

#include <stddef.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../base/error.h"
#include "guest_memory.h"

/* The images perch carries inside its own binary (launcher/boot/embedded_images.S). */
struct vm_images {
    const uint8_t *host;
    size_t host_bytes;
    const uint8_t *switcher;
    size_t switcher_bytes;
};

struct hole {
    uint64_t template_l4_mfn;
    uint64_t shared_info_mfn;
    uint64_t grant_first_mfn;       /* the grant table's frames, consecutive */
    uint64_t grant_nr_frames;
    uint64_t doorbell_gpa;          /* ioeventfd address, outside the memslot */
    unsigned nr_cpus;               /* vCPUs the hole has blocks for */
    uint64_t lstar;                 /* vCPU 0's syscall entry into the Host, */
    uint64_t lstar_stride;          /* vCPU i's i strides on */
    uint64_t boot_entry;            /* every vCPU's first instruction */
    uint64_t user_slot_257;         /* L4 entry of the user view */
    struct perch_shared *shared;    /* Launcher's pointer to the shared page */
    uint64_t shared_maddr;          /* ... and its machine (guest-physical) address */
    uint64_t m2p_entries;           /* max_mfn + 1 */
    uint64_t m2p_maddr;             /* machine address of its entry 0 */
    uint64_t gdt_l1_maddr[PERCH_MAX_VCPUS];  /* each vCPU's L1 entries behind its GDT */
    uint64_t gdt_zero_maddr;        /* the zero frame behind unused ones */
};

/* Private frames to reserve for a guest of nr_pages on nr_cpus vCPUs:
 * tables, Switcher, Host, M2P. */
uint64_t hole_private_frames(uint64_t nr_pages, unsigned nr_cpus);

/* Load the Switcher and the Host and build the hole's tables, each
 * vCPU's blocks for nr_cpus of them (1 to PERCH_MAX_VCPUS); with
 * cpl3_events, the kernel view's IDT sends most vectors straight to the
 * Host at CPL3 (launcher/vm/hole.c, build_kernel_idt). */
int hole_build(struct guest_memory *gm, const struct vm_images *images,
               unsigned nr_cpus, bool cpl3_events, struct hole *hole, struct error *e);

/* Copy the hole's slots into a guest-kernel L4 and record it as the kernel
 * CR3 the Host starts with. */
int hole_install(struct guest_memory *gm, const struct hole *hole,
                 uint64_t l4_mfn, struct error *e);

/* The embedded images (launcher/boot/embedded_images.S). */
void vm_images_get(struct vm_images *images);

/* Their CRC-32: a snapshot runs only on the build of the Host it was made
 * with, whose layout its memory holds. */
uint32_t vm_images_crc(const struct vm_images *images);

#endif
