/*
 * The Switcher's tables: the GDT and TSS every view shares, the IDTs (the
 * kernel view's, with its DPL3 gates; the user view's; the halt IDT), the
 * prebuilt handoff frames into the Host, and the user view itself.
 */
#include "switcher_tables.h"

#include <string.h>

#include "hole_map.h"
#include "pagetable.h"

static uint64_t gdt_descriptor(uint8_t access, uint8_t flags_nibble)
{
    /* base 0, limit 0xfffff, granularity per flags */
    return 0xffffull | ((uint64_t)access << 40) | (0xfull << 48) |
           ((uint64_t)flags_nibble << 52);
}

/* The GDT: Xen's layout, with perch's descriptors in reserved page 14 and
 * one shared zero frame behind the guest's 14 pages and page 15. */
int switcher_build_gdt(struct guest_memory *gm, uint64_t l4, struct hole *hole)
{
    uint64_t *page = hole_map_new(gm, l4, SW_GDT_VA + FIRST_RESERVED_GDT_PAGE * PAGE_SIZE,
                             PAGE_SIZE, SWITCHER_RO);
    uint64_t zero = gm_alloc_private(gm);
    uint64_t tss = SW_TSS_VA;

    if (!page || zero == INVALID_MFN)
        return -1;
    for (unsigned i = 0; i < SW_GDT_PAGES; i++)
        if (i != FIRST_RESERVED_GDT_PAGE &&
            pt_map(gm, l4, SW_GDT_VA + i * PAGE_SIZE, 1,
                   (zero << PAGE_SHIFT) | SWITCHER_RO, hole_alloc_private, gm))
            return -1;
    /* set_gdt rewrites the first 14 entries of this L1. */
    hole->gdt_zero_maddr = zero << PAGE_SHIFT;
    hole->gdt_l1_maddr = hole_table_of(gm, l4, SW_GDT_VA);
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

int switcher_build_tss(struct guest_memory *gm, uint64_t l4)
{
    uint8_t *tss = hole_map_new(gm, l4, SW_TSS_VA, PAGE_SIZE, SWITCHER_RW);
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
 * (timer, back end).
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

/* Exceptions at CPL3 keep IF on: they come only from guest code, so the
 * Host stack they take is free, and an interrupt may come in at once.
 * Interrupts at CPL3 turn IF off: the next one must wait until the Host
 * has copied the first's frame off the shared IST page, and this machine's
 * local APIC does not hold it back (docs/kvm.md). */
static uint64_t cpl3_gate_type(unsigned v)
{
    return v >= 32 ? GATE_INTERRUPT : GATE_TRAP;
}

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
 * are gates whose selector is the guest's DPL3 code segment: the CPU
 * delivers them at CPL3, straight into the Host's entry for them.
 */
int switcher_build_kernel_idt(struct guest_memory *gm, uint64_t l4,
                            const struct switcher_image_header *sw,
                            const struct host_image_header *h, bool cpl3_events)
{
    uint64_t *idt = hole_map_new(gm, l4, SW_IDT_VA, PAGE_SIZE, SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++) {
        if (cpl3_events && cpl3_vector(v))
            set_gate(idt, v, h->cpl3_vector_entries + v * h->cpl3_vector_entry_stride,
                     FLAT_KERNEL_CS64, cpl3_gate_type(v), vector_ist(v, false));
        else
            set_ring0_gate(idt, v, sw->vector_stubs, sw->vector_stub_stride, false);
    }
    return 0;
}

/* The user view's IDT: every stub loads the kernel CR3 first. */
static int build_user_idt(struct guest_memory *gm, uint64_t l4,
                          const struct switcher_image_header *sw)
{
    uint64_t *idt = hole_map_new(gm, l4, SW_IDT_VA, PAGE_SIZE, SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++)
        set_ring0_gate(idt, v, sw->user_vector_stubs, sw->user_vector_stub_stride, true);
    return 0;
}

/* The IDT the HALT gate loads for its `hlt`: ring-0 gates only, so no DPL3
 * gate fires in ring 0; an interrupt's stub puts the kernel IDT back. */
int switcher_build_halt_idt(struct guest_memory *gm, uint64_t l4,
                          const struct switcher_image_header *sw)
{
    uint64_t *idt = hole_map_new(gm, l4, SW_HALT_IDT_VA, PAGE_SIZE, SWITCHER_RO);

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
int switcher_build_handoff(struct guest_memory *gm, uint64_t l4,
                         const struct host_image_header *h)
{
    uint64_t *f = hole_map_new(gm, l4, SW_HANDOFF_VA, SW_HANDOFF_PAGES * PAGE_SIZE,
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

/* Map the page at `va` of the kernel view's tree into the user view's tree,
 * same frame, ring 0 only. */
static int share_supervisor_page(struct guest_memory *gm, uint64_t kl4,
                                 uint64_t ul4, uint64_t va)
{
    uint64_t maddr = hole_lookup(gm, kl4, va);

    return !maddr || pt_map(gm, ul4, va, 1, maddr | SWITCHER_RW, hole_alloc_private, gm);
}

/*
 * The user view: the same shared Switcher pages (one L2 for both views), its
 * own IDT whose stubs load the kernel CR3 first, the IST stacks ring-0 only,
 * and at the Host's LSTAR address a page of int3 instead of the Host: a
 * guest-user `syscall` lands there and traps into the Switcher. Nothing of
 * the Host, the gates, the M2P or the alias is mapped.
 */
int switcher_build_user_view(struct guest_memory *gm, uint64_t kl4,
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
    trampoline = hole_map_new(gm, ul4, hole->lstar & ~(PAGE_SIZE - 1), PAGE_SIZE, HOST_RX);
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

