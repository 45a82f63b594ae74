/* perch's part of every address space: the Switcher's and the Host's frames, the M2P, the alias, installed in the guest's L4. */
#include "hole.h"

#include <string.h>

#include "hole_map.h"
#include "pagetable.h"
#include "switcher_tables.h"

/* Switcher, Host, descriptor tables, stacks and their page tables fit in
 * 4 MiB with room to spare, and the grant table comes on top; each vCPU
 * past the first adds its blocks (~50 frames, tables included); the M2P
 * and the alias's tables scale with memory. */
#define FIXED_PRIVATE_FRAMES (1024 + PERCH_GRANT_FRAMES)
#define FRAMES_PER_CPU 64
#define FRAMES_PER_L1 512ull
#define FRAMES_PER_L2 (512ull * 512)

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t hole_private_frames(uint64_t nr_pages, unsigned nr_cpus)
{
    uint64_t fixed = FIXED_PRIVATE_FRAMES + (uint64_t)nr_cpus * FRAMES_PER_CPU;
    uint64_t priv = fixed, total;

    /* The M2P covers the private frames too: iterate to a fixed point. */
    for (int round = 0; round < 4; round++) {
        total = priv + nr_pages;
        uint64_t m2p = div_up(total * 8, PAGE_SIZE);

        /* M2P and frame table: 8 bytes per frame each, plus their L1s. */
        priv = fixed + 2 * (m2p + div_up(m2p, FRAMES_PER_L1) + 1) +
               div_up(total, FRAMES_PER_L2) + 1;
    }
    /* The alias maps machine memory with 2 MiB pages: end on a 2 MiB line. */
    total = priv + nr_pages;
    return priv + (FRAMES_PER_L1 - total % FRAMES_PER_L1) % FRAMES_PER_L1;
}

/* vCPU cpu's block of Switcher pages; the code is vCPU 0's frames again. */
static int build_switcher_cpu(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                              const struct switcher_image_header *sw,
                              uint64_t code_bytes, struct hole *hole)
{
    return (cpu && hole_map_again(gm, l4, SW_CODE_VA, l4, PERCH_CPU_VA(SW_CODE_VA, cpu),
                                  code_bytes, SWITCHER_PAGE)) ||
           !hole_map_new(gm, l4, PERCH_CPU_VA(SW_DF_STACK_VA, cpu), PAGE_SIZE, SWITCHER_RW) ||
           !hole_map_new(gm, l4, PERCH_CPU_VA(SW_EXC_STACK_VA, cpu), PAGE_SIZE, HOST_RW) ||
           !hole_map_new(gm, l4, PERCH_CPU_VA(SW_IRQ_STACK_VA, cpu), PAGE_SIZE, HOST_RW) ||
           !hole_map_new(gm, l4, PERCH_CPU_VA(SW_BP_STACK_VA, cpu), PAGE_SIZE, HOST_RW) ||
           !hole_map_new(gm, l4, PERCH_CPU_VA(SW_USER_BP_STACK_VA, cpu), PAGE_SIZE, HOST_RW) ||
           switcher_build_gdt(gm, l4, cpu, hole) || switcher_build_tss(gm, l4, cpu) ||
           switcher_build_halt_idt(gm, l4, cpu, sw) || switcher_build_idtrs(gm, l4, cpu);
}

static int build_switcher(struct guest_memory *gm, uint64_t l4,
                          const struct vm_images *img, struct hole *hole,
                          struct error *e)
{
    const struct switcher_image_header *sw = (const void *)img->switcher;
    uint64_t code_bytes;

    if (img->switcher_bytes < sizeof(*sw) || sw->magic != SWITCHER_IMAGE_MAGIC ||
        sw->code_offset > img->switcher_bytes ||
        img->switcher_bytes - sw->code_offset > SW_CODE_MAX ||
        sw->gates_offset + PAGE_SIZE > sw->code_offset)
        return fail(e, "internal: the embedded Switcher image is malformed");
    code_bytes = img->switcher_bytes - sw->code_offset;
    if (hole_map_range(gm, l4, SW_GATE_VA, PAGE_SIZE, HOST_RX,
                      img->switcher + sw->gates_offset, PAGE_SIZE) == INVALID_MFN ||
        hole_map_range(gm, l4, SW_CODE_VA, code_bytes, SWITCHER_PAGE,
                      img->switcher + sw->code_offset, code_bytes) == INVALID_MFN)
        return fail(e, "out of perch-private memory building the Switcher");
    for (unsigned cpu = 0; cpu < hole->nr_cpus; cpu++)
        if (build_switcher_cpu(gm, l4, cpu, sw, code_bytes, hole))
            return fail(e, "out of perch-private memory building the Switcher");
    return 0;
}

static bool host_va_inside(const struct host_image_header *h, uint64_t va,
                           uint64_t bytes)
{
    return va >= HOST_IMAGE_VA && va - HOST_IMAGE_VA <= h->memory_bytes &&
           bytes <= h->memory_bytes - (va - HOST_IMAGE_VA);
}

/*
 * The Host image is mapped read-write-execute for the guest kernel's view:
 * by design the guest kernel can reach the Host (design.md, Boundaries).
 */
static int build_host(struct guest_memory *gm, uint64_t l4,
                      const struct vm_images *img, bool cpl3_events,
                      struct hole *hole, struct error *e)
{
    const struct host_image_header *h = (const void *)img->host;
    uint64_t first;

    if (img->host_bytes < sizeof(*h) || h->magic != HOST_IMAGE_MAGIC ||
        img->host_bytes > h->memory_bytes || h->memory_bytes > HOST_IMAGE_MAX ||
        !host_va_inside(h, h->syscall_entry, PERCH_MAX_VCPUS * h->syscall_entry_stride) ||
        !host_va_inside(h, h->boot_entry, 16) ||
        !host_va_inside(h, h->user_vector_entries, 256 * h->vector_entry_stride) ||
        !host_va_inside(h, h->shared_page, sizeof(struct perch_shared)) ||
        !host_va_inside(h, h->vector_entries, 256 * h->vector_entry_stride) ||
        !host_va_inside(h, h->cpl3_vector_entries, 256 * h->cpl3_vector_entry_stride))
        return fail(e, "internal: the embedded Host image is malformed");
    first = hole_map_range(gm, l4, HOST_IMAGE_VA, h->memory_bytes, HOST_RWX,
                          img->host, img->host_bytes);
    if (first == INVALID_MFN)
        return fail(e, "out of perch-private memory loading the Host");
    /* Each vCPU's area (zeroed: the Host fills it), handoff and IDT. */
    for (unsigned cpu = 0; cpu < hole->nr_cpus; cpu++)
        if (!hole_map_new(gm, l4, PERCH_CPU_VA(HOST_CPU_VA, cpu), HOST_CPU_BYTES, HOST_RW) ||
            switcher_build_handoff(gm, l4, cpu, h) ||
            switcher_build_kernel_idt(gm, l4, cpu, (const void *)img->switcher, h,
                                      cpl3_events))
            return fail(e, "out of perch-private memory loading the Host");
    hole->lstar = h->syscall_entry;
    hole->lstar_stride = h->syscall_entry_stride;
    hole->boot_entry = h->boot_entry;
    hole->shared = (void *)((uint8_t *)gm_frame(gm, first) +
                            (h->shared_page - HOST_IMAGE_VA));
    hole->shared_maddr = first * PAGE_SIZE + (h->shared_page - HOST_IMAGE_VA);
    return 0;
}

/* M2P: read-only for the guest kernel, one entry per machine frame. */
static int build_m2p(struct guest_memory *gm, uint64_t l4, struct hole *hole)
{
    uint64_t frames = gm->bytes / PAGE_SIZE;
    uint64_t first = frames * 8 > PERCH_M2P_MAX_BYTES ? INVALID_MFN :
        hole_map_range(gm, l4, PERCH_M2P_VA, frames * 8,
                      PTE_P | PTE_US | PTE_A | PTE_NX, NULL, 0);
    uint64_t *m2p = first == INVALID_MFN ? NULL : gm_frame(gm, first);

    if (!m2p)
        return -1;
    hole->m2p_maddr = first << PAGE_SHIFT;
    for (uint64_t mfn = 0; mfn < frames; mfn++)
        m2p[mfn] = mfn >= gm->guest_mfn_base ? mfn - gm->guest_mfn_base
                                             : INVALID_P2M_ENTRY;
    hole->m2p_entries = frames;
    return 0;
}

/* The Host's writable alias of all machine memory, in 2 MiB pages. */
static int build_alias(struct guest_memory *gm, uint64_t l4)
{
    for (uint64_t gpa = 0; gpa < gm->bytes; gpa += 512 * PAGE_SIZE)
        if (pt_map(gm, l4, PERCH_ALIAS_VA + gpa, 2,
                   gpa | PTE_PS | HOST_RW, hole_alloc_private, gm))
            return -1;
    return 0;
}

/* As Xen's builder: events start masked in every legacy vcpu_info. */
static void mask_all_upcalls(struct shared_info *si)
{
    for (int i = 0; i < XEN_LEGACY_MAX_VCPUS; i++)
        si->vcpu_info[i].evtchn_upcall_mask = 1;
}

int hole_build(struct guest_memory *gm, const struct vm_images *images,
               unsigned nr_cpus, bool cpl3_events, struct hole *hole, struct error *e)
{
    uint64_t l4 = gm_alloc_private(gm);

    memset(hole, 0, sizeof(*hole));
    if (nr_cpus < 1 || nr_cpus > PERCH_MAX_VCPUS)
        return fail(e, "internal: %u vCPUs (perch builds 1 to %u)", nr_cpus,
                    PERCH_MAX_VCPUS);
    hole->nr_cpus = nr_cpus;
    if (l4 == INVALID_MFN)
        return fail(e, "out of perch-private memory");
    hole->template_l4_mfn = l4;
    if (build_switcher(gm, l4, images, hole, e) || build_host(gm, l4, images, cpl3_events, hole, e))
        return -1;
    if (switcher_build_user_view(gm, l4, images, hole))
        return fail(e, "out of perch-private memory building the user view");
    hole->shared_info_mfn = gm_alloc_private(gm);
    /* Like shared_info, outside the guest's pages: the guest maps them
     * itself after GNTTABOP_setup_table (host/xen/grant_table.c). */
    hole->grant_first_mfn = gm_alloc_private_range(gm, PERCH_GRANT_FRAMES);
    hole->grant_nr_frames = PERCH_GRANT_FRAMES;
    hole->doorbell_gpa = gm->bytes;   /* first address past the memslot */
    if (hole->shared_info_mfn == INVALID_MFN || hole->grant_first_mfn == INVALID_MFN ||
        build_m2p(gm, l4, hole) ||
        gm->bytes / PAGE_SIZE * 8 > HOST_FRAME_TABLE_MAX ||
        !hole_map_new(gm, l4, HOST_FRAME_TABLE_VA, gm->bytes / PAGE_SIZE * 8, HOST_RW) ||
        build_alias(gm, l4) ||
        pt_map(gm, l4, HOST_DOORBELL_VA, 1, hole->doorbell_gpa | HOST_RW |
               PTE_PCD | PTE_PWT, hole_alloc_private, gm) ||
        pt_map(gm, l4, HOST_APIC_VA, 1, PERCH_APIC_GPA | HOST_RW |
               PTE_PCD | PTE_PWT, hole_alloc_private, gm))
        return fail(e, "out of perch-private memory building the hole");
    mask_all_upcalls(gm_frame(gm, hole->shared_info_mfn));
    return 0;
}

int hole_install(struct guest_memory *gm, const struct hole *hole,
                 uint64_t l4_mfn, struct error *e)
{
    const uint64_t *template = gm_frame(gm, hole->template_l4_mfn);
    uint64_t *l4 = gm_frame(gm, l4_mfn);

    if (!l4 || !template)
        return fail(e, "internal: L4 frame %#lx outside guest memory", l4_mfn);
    struct perch_shared *sh = hole->shared;

    l4[PERCH_SLOT_FIRST] = template[PERCH_SLOT_FIRST];
    l4[PERCH_ALIAS_SLOT] = template[PERCH_ALIAS_SLOT];
    sh->boot.guest_mfn_base = gm->guest_mfn_base;
    sh->boot.guest_nr_pages = gm->nr_pages;
    sh->boot.machine_frames = gm->bytes / PAGE_SIZE;
    sh->boot.kernel_cr3 = l4_mfn << PAGE_SHIFT;
    sh->boot.shared_info_mfn = hole->shared_info_mfn;
    sh->boot.grant_first_mfn = hole->grant_first_mfn;
    sh->boot.grant_nr_frames = hole->grant_nr_frames;
    sh->boot.m2p_maddr = hole->m2p_maddr;
    sh->boot.frame_table_va = HOST_FRAME_TABLE_VA;
    sh->boot.nr_vcpus = hole->nr_cpus;
    for (unsigned cpu = 0; cpu < hole->nr_cpus; cpu++)
        sh->boot.gdt_l1_maddr[cpu] = hole->gdt_l1_maddr[cpu];
    sh->boot.gdt_zero_maddr = hole->gdt_zero_maddr;
    sh->boot.kernel_slot_257 = template[PERCH_SLOT_FIRST];
    sh->boot.kernel_slot_258 = template[PERCH_ALIAS_SLOT];
    sh->boot.user_slot_257 = hole->user_slot_257;
    return 0;
}
