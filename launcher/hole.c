#include "hole.h"

#include <string.h>

#include "pagetable.h"

/* Switcher, Host, descriptor tables, stacks and their page tables fit in
 * 4 MiB with room to spare; the M2P and the alias's tables scale with memory. */
#define FIXED_PRIVATE_FRAMES 1024
#define FRAMES_PER_L1 512ull
#define FRAMES_PER_L2 (512ull * 512)

#define SWITCHER_PAGE (PTE_P | PTE_A)                      /* ring 0, r-x */
#define SWITCHER_RO   (PTE_P | PTE_A | PTE_NX)             /* ring 0, r-- */
#define SWITCHER_RW   (PTE_P | PTE_RW | PTE_A | PTE_D | PTE_NX)
#define HOST_RW       (SWITCHER_RW | PTE_US)               /* CPL3 data */
#define HOST_RX       (PTE_P | PTE_US | PTE_A)             /* CPL3 code */
#define HOST_RWX      (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t hole_private_frames(uint64_t nr_pages)
{
    uint64_t priv = FIXED_PRIVATE_FRAMES, total;

    /* The M2P covers the private frames too: iterate to a fixed point. */
    for (int round = 0; round < 4; round++) {
        total = priv + nr_pages;
        uint64_t m2p = div_up(total * 8, PAGE_SIZE);

        /* M2P and frame table: 8 bytes per frame each, plus their L1s. */
        priv = FIXED_PRIVATE_FRAMES + 2 * (m2p + div_up(m2p, FRAMES_PER_L1) + 1) +
               div_up(total, FRAMES_PER_L2) + 1;
    }
    /* The alias maps machine memory with 2 MiB pages: end on a 2 MiB line. */
    total = priv + nr_pages;
    return priv + (FRAMES_PER_L1 - total % FRAMES_PER_L1) % FRAMES_PER_L1;
}

static uint64_t alloc_private(void *gm)
{
    return gm_alloc_private(gm);
}

/* Machine address of the L1 table that maps `va` under `l4` (0 if none). */
static uint64_t table_of(struct guest_memory *gm, uint64_t l4, uint64_t va)
{
    uint64_t table = l4 << PAGE_SHIFT;

    for (int level = 4; level > 1; level--) {
        uint64_t *t = gm_frame(gm, table >> PAGE_SHIFT);
        uint64_t entry = t ? t[pt_index(va, level)] : 0;

        if (!(entry & PTE_P))
            return 0;
        table = entry & PTE_ADDR_MASK;
    }
    return table;
}

/* Machine address that `va` maps to in the tree under `l4`, or 0. */
static uint64_t lookup(struct guest_memory *gm, uint64_t l4, uint64_t va)
{
    uint64_t l1 = table_of(gm, l4, va);
    uint64_t *t = l1 ? gm_frame(gm, l1 >> PAGE_SHIFT) : NULL;
    uint64_t entry = t ? t[pt_index(va, 1)] : 0;

    return entry & PTE_P ? entry & PTE_ADDR_MASK : 0;
}

/*
 * Allocate consecutive private frames for [va, va + bytes), fill them from
 * `data` (data_bytes of it; the rest stays zero) and map them with `flags`
 * in the template L4. Returns the first frame, or INVALID_MFN.
 */
static uint64_t map_new_range(struct guest_memory *gm, uint64_t l4, uint64_t va,
                              uint64_t bytes, uint64_t flags, const void *data,
                              uint64_t data_bytes)
{
    uint64_t n = div_up(bytes, PAGE_SIZE), first = INVALID_MFN;

    for (uint64_t i = 0; i < n; i++) {
        uint64_t mfn = gm_alloc_private(gm);

        if (mfn == INVALID_MFN || (i && mfn != first + i))
            return INVALID_MFN;
        if (!i)
            first = mfn;
    }
    if (data_bytes)
        memcpy(gm_frame(gm, first), data, data_bytes);
    for (uint64_t i = 0; i < n; i++)
        if (pt_map(gm, l4, va + i * PAGE_SIZE, 1,
                   ((first + i) << PAGE_SHIFT) | flags, alloc_private, gm))
            return INVALID_MFN;
    return first;
}

/* Like map_new_range, but hands back the host pointer to the first byte. */
static void *map_new(struct guest_memory *gm, uint64_t l4, uint64_t va,
                     uint64_t bytes, uint64_t flags)
{
    uint64_t mfn = map_new_range(gm, l4, va, bytes, flags, NULL, 0);

    return mfn == INVALID_MFN ? NULL : gm_frame(gm, mfn);
}

static uint64_t gdt_descriptor(uint8_t access, uint8_t flags_nibble)
{
    /* base 0, limit 0xfffff, granularity per flags */
    return 0xffffull | ((uint64_t)access << 40) | (0xfull << 48) |
           ((uint64_t)flags_nibble << 52);
}

/* The GDT: Xen's layout, with perch's descriptors in reserved page 14 and
 * one shared zero frame behind the guest's 14 pages and page 15. */
static int build_gdt(struct guest_memory *gm, uint64_t l4, struct hole *hole)
{
    uint64_t *page = map_new(gm, l4, SW_GDT_VA + FIRST_RESERVED_GDT_PAGE * PAGE_SIZE,
                             PAGE_SIZE, SWITCHER_RO);
    uint64_t zero = gm_alloc_private(gm);
    uint64_t tss = SW_TSS_VA;

    if (!page || zero == INVALID_MFN)
        return -1;
    for (unsigned i = 0; i < SW_GDT_PAGES; i++)
        if (i != FIRST_RESERVED_GDT_PAGE &&
            pt_map(gm, l4, SW_GDT_VA + i * PAGE_SIZE, 1,
                   (zero << PAGE_SHIFT) | SWITCHER_RO, alloc_private, gm))
            return -1;
    /* set_gdt rewrites the first 14 entries of this L1. */
    hole->gdt_zero_maddr = zero << PAGE_SHIFT;
    hole->gdt_l1_maddr = table_of(gm, l4, SW_GDT_VA);
    /* Accessed bits preset: the CPU never needs to write this page. */
    page[(SW_CS0_SEL & 0xfff) / 8] = gdt_descriptor(0x9b, 0xa);       /* L, G */
    page[(SW_DS0_SEL & 0xfff) / 8] = gdt_descriptor(0x93, 0xc);
    page[(FLAT_RING3_CS32 & 0xfff) / 8] = gdt_descriptor(0xfb, 0xc);
    page[(FLAT_RING3_DS32 & 0xfff) / 8] = gdt_descriptor(0xf3, 0xc);
    page[(FLAT_RING3_CS64 & 0xfff) / 8] = gdt_descriptor(0xfb, 0xa);
    /* Busy 64-bit TSS (type 0xb), as the CPU leaves it after ltr. */
    page[(SW_TSS_SEL & 0xfff) / 8] = 0x67 | ((tss & 0xffffff) << 16) |
                                     (0x8bull << 40) | ((tss >> 24 & 0xff) << 56);
    page[(SW_TSS_SEL & 0xfff) / 8 + 1] = tss >> 32;
    return 0;
}

static int build_tss(struct guest_memory *gm, uint64_t l4)
{
    uint8_t *tss = map_new(gm, l4, SW_TSS_VA, PAGE_SIZE, SWITCHER_RW);
    uint64_t rsp0 = SW_STACK_TOP(SW_EXC_STACK_VA);
    uint64_t ist[8] = {
        [SW_IST_IRQ] = SW_STACK_TOP(SW_IRQ_STACK_VA),
        [SW_IST_BP] = SW_STACK_TOP(SW_BP_STACK_VA),
        [SW_IST_DF] = SW_STACK_TOP(SW_DF_STACK_VA),
        [SW_IST_EXC] = SW_STACK_TOP(SW_EXC_STACK_VA),
        [SW_IST_USER_BP] = SW_STACK_TOP(SW_USER_BP_STACK_VA),
    };

    if (!tss)
        return -1;
    memcpy(tss + 4, &rsp0, 8);
    for (int i = 1; i < 8; i++)
        memcpy(tss + 0x24 + (i - 1) * 8, &ist[i], 8);
    tss[0x66] = 0x68;   /* no I/O bitmap: `in`/`out` at CPL3 fault */
    return 0;
}

static unsigned vector_ist(unsigned v, bool user_view)
{
    if (v == 3)
        return user_view ? SW_IST_USER_BP : SW_IST_BP;
    if (v == 2 || v == 8 || v == 18)
        return SW_IST_DF;
    return v >= 32 ? SW_IST_IRQ : SW_IST_EXC;
}

/*
 * Which kernel-view vectors go straight to the Host at CPL3 when CPL3
 * events are on: every exception but int3 (the Host's own way into ring
 * 0) and the fatal NMI, #DF and #MC, and the two interrupts perch raises
 * (timer, back end). Only those two share the IRQ IST page at CPL3: their
 * priority class holds back the next until the Host acknowledges the first.
 */
static bool cpl3_vector(unsigned v)
{
    if (v < 32)
        return v != 2 && v != 3 && v != 8 && v != 18;
    return v == PERCH_TIMER_VECTOR || v == PERCH_BACKEND_VECTOR;
}

#define GATE_INTERRUPT 0x8e   /* present, DPL 0, 64-bit interrupt gate: IF off */
#define GATE_INT3      0xee   /* the same with DPL 3: `int3` allowed from CPL3 */
#define GATE_TRAP      0x8f   /* present, DPL 0, 64-bit trap gate: IF kept */

static void set_gate(uint64_t *idt, unsigned v, uint64_t handler,
                     uint16_t selector, uint64_t type, unsigned ist)
{
    idt[2 * v] = (handler & 0xffff) | ((uint64_t)selector << 16) |
                 ((uint64_t)ist << 32) | (type << 40) |
                 ((handler >> 16 & 0xffff) << 48);
    idt[2 * v + 1] = handler >> 32;
}

/* Vector v through the Switcher's ring-0 stub stubs + v * stride. */
static void set_ring0_gate(uint64_t *idt, unsigned v, uint64_t stubs,
                           uint64_t stride, bool user_view)
{
    set_gate(idt, v, stubs + v * stride, SW_CS0_SEL,
             v == 3 ? GATE_INT3 : GATE_INTERRUPT, vector_ist(v, user_view));
}

/*
 * The kernel view's IDT at SW_IDT_VA. With CPL3 events the chosen vectors
 * are trap gates whose selector is the guest's DPL3 code segment: the CPU
 * delivers them at CPL3, straight into the Host's entry for them (their
 * interrupt flag stays on: CPL3 could not set it again).
 */
static int build_kernel_idt(struct guest_memory *gm, uint64_t l4,
                            const struct switcher_image_header *sw,
                            const struct host_image_header *h, bool cpl3_events)
{
    uint64_t *idt = map_new(gm, l4, SW_IDT_VA, PAGE_SIZE, SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++) {
        if (cpl3_events && cpl3_vector(v))
            set_gate(idt, v, h->cpl3_vector_entries + v * h->cpl3_vector_entry_stride,
                     FLAT_KERNEL_CS64, GATE_TRAP, vector_ist(v, false));
        else
            set_ring0_gate(idt, v, sw->vector_stubs, sw->vector_stub_stride, false);
    }
    return 0;
}

/* The user view's IDT: every stub loads the kernel CR3 first. */
static int build_user_idt(struct guest_memory *gm, uint64_t l4,
                          const struct switcher_image_header *sw)
{
    uint64_t *idt = map_new(gm, l4, SW_IDT_VA, PAGE_SIZE, SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++)
        set_ring0_gate(idt, v, sw->user_vector_stubs, sw->user_vector_stub_stride, true);
    return 0;
}

/* The IDT the HALT gate loads for its `hlt`: ring-0 gates only, so no DPL3
 * gate fires in ring 0; an interrupt's stub puts the kernel IDT back. */
static int build_halt_idt(struct guest_memory *gm, uint64_t l4,
                          const struct switcher_image_header *sw)
{
    uint64_t *idt = map_new(gm, l4, SW_HALT_IDT_VA, PAGE_SIZE, SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++)
        set_ring0_gate(idt, v, v >= 32 ? sw->halt_wake_stubs : sw->vector_stubs,
                       sw->vector_stub_stride, false);
    return 0;
}

/* The prebuilt iret frames: vector N of the kernel view enters the Host's
 * entry N, of the user view its user entry N. Exceptions run the Host
 * interruptible; interrupts do not, nor does the kernel view's int3, whose
 * stack the Host's own service int3s share. */
static int build_handoff(struct guest_memory *gm, uint64_t l4,
                         const struct host_image_header *h)
{
    uint64_t *f = map_new(gm, l4, SW_HANDOFF_VA, SW_HANDOFF_PAGES * PAGE_SIZE,
                          SWITCHER_RO);

    if (!f)
        return -1;
    for (unsigned i = 0; i < 512; i++, f += 5) {
        unsigned v = i % 256;
        uint64_t entries = i < 256 ? h->vector_entries : h->user_vector_entries;

        f[0] = entries + v * h->vector_entry_stride;
        f[1] = FLAT_KERNEL_CS64;
        f[2] = v >= 32 || i == 3 ? 0x2 : 0x202;
        f[3] = v >= 32 ? h->irq_stack_top : h->exception_stack_top;
        f[4] = FLAT_KERNEL_SS64;
    }
    return 0;
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
    if (map_new_range(gm, l4, SW_GATE_VA, PAGE_SIZE, HOST_RX,
                      img->switcher + sw->gates_offset, PAGE_SIZE) == INVALID_MFN ||
        map_new_range(gm, l4, SW_CODE_VA, code_bytes, SWITCHER_PAGE,
                      img->switcher + sw->code_offset, code_bytes) == INVALID_MFN ||
        !map_new(gm, l4, SW_DF_STACK_VA, PAGE_SIZE, SWITCHER_RW) ||
        !map_new(gm, l4, SW_EXC_STACK_VA, PAGE_SIZE, HOST_RW) ||
        !map_new(gm, l4, SW_IRQ_STACK_VA, PAGE_SIZE, HOST_RW) ||
        !map_new(gm, l4, SW_BP_STACK_VA, PAGE_SIZE, HOST_RW) ||
        !map_new(gm, l4, SW_USER_BP_STACK_VA, PAGE_SIZE, HOST_RW) ||
        build_gdt(gm, l4, hole) || build_tss(gm, l4) ||
        build_halt_idt(gm, l4, sw))
        return fail(e, "out of perch-private memory building the Switcher");
    return 0;
}

/* Map the page at `va` of the kernel view's tree into the user view's tree,
 * same frame, ring 0 only. */
static int share_supervisor_page(struct guest_memory *gm, uint64_t kl4,
                                 uint64_t ul4, uint64_t va)
{
    uint64_t maddr = lookup(gm, kl4, va);

    return !maddr || pt_map(gm, ul4, va, 1, maddr | SWITCHER_RW, alloc_private, gm);
}

/*
 * The user view: the same shared Switcher pages (one L2 for both views), its
 * own IDT whose stubs load the kernel CR3 first, the IST stacks ring-0 only,
 * and at the Host's LSTAR address a page of int3 instead of the Host: a
 * guest-user `syscall` lands there and traps into the Switcher. Nothing of
 * the Host, the gates, the M2P or the alias is mapped.
 */
static int build_user_view(struct guest_memory *gm, uint64_t kl4,
                           const struct vm_images *img, struct hole *hole)
{
    const struct switcher_image_header *sw = (const void *)img->switcher;
    uint64_t ul4 = gm_alloc_private(gm);
    uint64_t *k4 = gm_frame(gm, kl4), *u4, *ul3, *kl3;
    uint8_t *trampoline;

    if (ul4 == INVALID_MFN ||
        build_user_idt(gm, ul4, sw) ||
        share_supervisor_page(gm, kl4, ul4, SW_EXC_STACK_VA) ||
        share_supervisor_page(gm, kl4, ul4, SW_IRQ_STACK_VA) ||
        share_supervisor_page(gm, kl4, ul4, SW_BP_STACK_VA) ||
        share_supervisor_page(gm, kl4, ul4, SW_USER_BP_STACK_VA))
        return -1;
    trampoline = map_new(gm, ul4, hole->lstar & ~(PAGE_SIZE - 1), PAGE_SIZE, HOST_RX);
    if (!trampoline)
        return -1;
    /* tour syscall.1: in a user view LSTAR's page is all int3: a guest-user `syscall` traps right there */
    memset(trampoline, 0xcc, PAGE_SIZE);   /* int3 */
    u4 = gm_frame(gm, ul4);
    ul3 = gm_frame(gm, (u4[PERCH_SLOT_FIRST] & PTE_ADDR_MASK) >> PAGE_SHIFT);
    kl3 = gm_frame(gm, (k4[PERCH_SLOT_FIRST] & PTE_ADDR_MASK) >> PAGE_SHIFT);
    ul3[0] = kl3[0];
    hole->user_slot_257 = u4[PERCH_SLOT_FIRST];
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
        !host_va_inside(h, h->syscall_entry, 16) ||
        !host_va_inside(h, h->boot_entry, 16) ||
        !host_va_inside(h, h->user_vector_entries, 256 * h->vector_entry_stride) ||
        !host_va_inside(h, h->shared_page, sizeof(struct perch_shared)) ||
        !host_va_inside(h, h->vector_entries, 256 * h->vector_entry_stride) ||
        !host_va_inside(h, h->cpl3_vector_entries, 256 * h->cpl3_vector_entry_stride))
        return fail(e, "internal: the embedded Host image is malformed");
    first = map_new_range(gm, l4, HOST_IMAGE_VA, h->memory_bytes, HOST_RWX,
                          img->host, img->host_bytes);
    if (first == INVALID_MFN || build_handoff(gm, l4, h) ||
        build_kernel_idt(gm, l4, (const void *)img->switcher, h, cpl3_events))
        return fail(e, "out of perch-private memory loading the Host");
    hole->lstar = h->syscall_entry;
    hole->boot_entry = h->boot_entry;
    hole->shared = (void *)((uint8_t *)gm_frame(gm, first) +
                            (h->shared_page - HOST_IMAGE_VA));
    return 0;
}

/* M2P: read-only for the guest kernel, one entry per machine frame. */
static int build_m2p(struct guest_memory *gm, uint64_t l4, struct hole *hole)
{
    uint64_t frames = gm->bytes / PAGE_SIZE;
    uint64_t first = frames * 8 > PERCH_M2P_MAX_BYTES ? INVALID_MFN :
        map_new_range(gm, l4, PERCH_M2P_VA, frames * 8,
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
                   gpa | PTE_PS | HOST_RW, alloc_private, gm))
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
               bool cpl3_events, struct hole *hole, struct error *e)
{
    uint64_t l4 = gm_alloc_private(gm);

    memset(hole, 0, sizeof(*hole));
    if (l4 == INVALID_MFN)
        return fail(e, "out of perch-private memory");
    hole->template_l4_mfn = l4;
    if (build_switcher(gm, l4, images, hole, e) || build_host(gm, l4, images, cpl3_events, hole, e))
        return -1;
    if (build_user_view(gm, l4, images, hole))
        return fail(e, "out of perch-private memory building the user view");
    hole->shared_info_mfn = gm_alloc_private(gm);
    hole->doorbell_gpa = gm->bytes;   /* first address past the memslot */
    if (hole->shared_info_mfn == INVALID_MFN || build_m2p(gm, l4, hole) ||
        gm->bytes / PAGE_SIZE * 8 > HOST_FRAME_TABLE_MAX ||
        !map_new(gm, l4, HOST_FRAME_TABLE_VA, gm->bytes / PAGE_SIZE * 8, HOST_RW) ||
        build_alias(gm, l4) ||
        pt_map(gm, l4, HOST_DOORBELL_VA, 1, hole->doorbell_gpa | HOST_RW |
               PTE_PCD | PTE_PWT, alloc_private, gm) ||
        pt_map(gm, l4, HOST_APIC_VA, 1, PERCH_APIC_GPA | HOST_RW |
               PTE_PCD | PTE_PWT, alloc_private, gm))
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
    sh->boot.m2p_maddr = hole->m2p_maddr;
    sh->boot.frame_table_va = HOST_FRAME_TABLE_VA;
    sh->boot.gdt_l1_maddr = hole->gdt_l1_maddr;
    sh->boot.gdt_zero_maddr = hole->gdt_zero_maddr;
    sh->boot.kernel_slot_257 = template[PERCH_SLOT_FIRST];
    sh->boot.kernel_slot_258 = template[PERCH_ALIAS_SLOT];
    sh->boot.user_slot_257 = hole->user_slot_257;
    return 0;
}
