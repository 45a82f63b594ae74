/*
 * The Switcher's tables, one set per vCPU in its block (abi/layout.h,
 * PERCH_CPU_VA): the GDT and TSS every view shares, the IDTs (the kernel
 * view's, with its DPL3 gates; the user view's; the halt IDT) and the
 * IDTR images the Switcher loads them from, the prebuilt handoff frames
 * into the Host, and the user view itself.
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
 * one zero frame (every vCPU's) behind the guest's 14 pages and page 15. */
int switcher_build_gdt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                       struct hole *hole)
{
    uint64_t gdt = PERCH_CPU_VA(SW_GDT_VA, cpu);
    uint64_t *page = hole_map_new(gm, l4, gdt + FIRST_RESERVED_GDT_PAGE * PAGE_SIZE,
                             PAGE_SIZE, SWITCHER_RO);
    uint64_t zero = cpu ? hole->gdt_zero_maddr >> PAGE_SHIFT : gm_alloc_private(gm);
    uint64_t tss = PERCH_CPU_VA(SW_TSS_VA, cpu);

    if (!page || zero == INVALID_MFN)
        return -1;
    for (unsigned i = 0; i < SW_GDT_PAGES; i++)
        if (i != FIRST_RESERVED_GDT_PAGE &&
            pt_map(gm, l4, gdt + i * PAGE_SIZE, 1,
                   (zero << PAGE_SHIFT) | SWITCHER_RO, hole_alloc_private, gm))
            return -1;
    /* set_gdt rewrites the first 14 of these L1 entries. */
    hole->gdt_zero_maddr = zero << PAGE_SHIFT;
    hole->gdt_l1_maddr[cpu] = hole_table_of(gm, l4, gdt) + pt_index(gdt, 1) * 8;
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

#define CPU_TOP(va, cpu) SW_STACK_TOP(PERCH_CPU_VA(va, cpu))

int switcher_build_tss(struct guest_memory *gm, uint64_t l4, unsigned cpu)
{
    uint8_t *tss = hole_map_new(gm, l4, PERCH_CPU_VA(SW_TSS_VA, cpu), PAGE_SIZE, SWITCHER_RW);
    uint64_t rsp0 = CPU_TOP(SW_EXC_STACK_VA, cpu);
    uint64_t ist[8] = {
        [SW_IST_IRQ] = CPU_TOP(SW_IRQ_STACK_VA, cpu),
        [SW_IST_BP] = CPU_TOP(SW_BP_STACK_VA, cpu),
        [SW_IST_DF] = CPU_TOP(SW_DF_STACK_VA, cpu),
        [SW_IST_EXC] = CPU_TOP(SW_EXC_STACK_VA, cpu),
        [SW_IST_USER_BP] = CPU_TOP(SW_USER_BP_STACK_VA, cpu),
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
 * 0) and the fatal NMI, #DF and #MC, and the interrupts perch raises
 * (timer, back end, another vCPU's IPI).
 */
static bool cpl3_vector(unsigned v)
{
    if (v < 32)
        return v != 2 && v != 3 && v != 8 && v != 18;
    return v == PERCH_TIMER_VECTOR || v == PERCH_BACKEND_VECTOR || v == PERCH_IPI_VECTOR;
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

/* Vector v through vCPU cpu's copy of the Switcher's ring-0 stub stubs +
 * v * stride (vCPU 0's address). */
static void set_ring0_gate(uint64_t *idt, unsigned v, unsigned cpu, uint64_t stubs,
                           uint64_t stride, bool user_view)
{
    set_gate(idt, v, PERCH_CPU_VA(stubs, cpu) + v * stride, SW_CS0_SEL,
             v == 3 ? GATE_INT3 : GATE_INTERRUPT, vector_ist(v, user_view));
}

/*
 * The kernel view's IDT at SW_IDT_VA. With CPL3 events the chosen vectors
 * are gates whose selector is the guest's DPL3 code segment: the CPU
 * delivers them at CPL3, straight into the Host's entry for them.
 */
int switcher_build_kernel_idt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                            const struct switcher_image_header *sw,
                            const struct host_image_header *h, bool cpl3_events)
{
    uint64_t *idt = hole_map_new(gm, l4, PERCH_CPU_VA(SW_IDT_VA, cpu), PAGE_SIZE,
                                 SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++) {
        if (cpl3_events && cpl3_vector(v))
            set_gate(idt, v, h->cpl3_vector_entries + v * h->cpl3_vector_entry_stride,
                     FLAT_KERNEL_CS64, cpl3_gate_type(v), vector_ist(v, false));
        else
            set_ring0_gate(idt, v, cpu, sw->vector_stubs, sw->vector_stub_stride, false);
    }
    return 0;
}

/* The user view's IDT: every stub loads the kernel CR3 first. */
static int build_user_idt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                          const struct switcher_image_header *sw)
{
    uint64_t *idt = hole_map_new(gm, l4, PERCH_CPU_VA(SW_IDT_VA, cpu), PAGE_SIZE,
                                 SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++)
        set_ring0_gate(idt, v, cpu, sw->user_vector_stubs, sw->user_vector_stub_stride,
                       true);
    return 0;
}

/* The IDT the HALT gate loads for its `hlt`: ring-0 gates only, so no DPL3
 * gate fires in ring 0; an interrupt's stub puts the kernel IDT back. */
int switcher_build_halt_idt(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                          const struct switcher_image_header *sw)
{
    uint64_t *idt = hole_map_new(gm, l4, PERCH_CPU_VA(SW_HALT_IDT_VA, cpu), PAGE_SIZE,
                                 SWITCHER_RO);

    if (!idt)
        return -1;
    for (unsigned v = 0; v < 256; v++)
        set_ring0_gate(idt, v, cpu, v >= 32 ? sw->halt_wake_stubs : sw->vector_stubs,
                       sw->vector_stub_stride, false);
    return 0;
}

/* A pseudo-descriptor for lidt: limit, then base. */
static void put_idtr(uint8_t *at, uint64_t base)
{
    uint16_t limit = 4095;

    memcpy(at, &limit, 2);
    memcpy(at + 2, &base, 8);
}

/* The IDTR images the Switcher's halt code and its wake-up stubs load,
 * RIP-relative: each vCPU's name its own IDTs. */
int switcher_build_idtrs(struct guest_memory *gm, uint64_t l4, unsigned cpu)
{
    uint8_t *data = hole_map_new(gm, l4, PERCH_CPU_VA(SW_DATA_VA, cpu), PAGE_SIZE,
                                 SWITCHER_RO);

    if (!data)
        return -1;
    put_idtr(data + (SW_KERNEL_IDTR - SW_DATA_VA), PERCH_CPU_VA(SW_IDT_VA, cpu));
    put_idtr(data + (SW_HALT_IDTR - SW_DATA_VA), PERCH_CPU_VA(SW_HALT_IDT_VA, cpu));
    return 0;
}

/* The prebuilt iret frames: vector N of the kernel view enters the Host's
 * entry N, of the user view its user entry N. Exceptions run the Host
 * interruptible; interrupts do not, nor does the kernel view's int3, whose
 * stack the Host's own service int3s share. */
int switcher_build_handoff(struct guest_memory *gm, uint64_t l4, unsigned cpu,
                         const struct host_image_header *h)
{
    uint64_t *f = hole_map_new(gm, l4, PERCH_CPU_VA(SW_HANDOFF_VA, cpu),
                               SW_HANDOFF_PAGES * PAGE_SIZE, SWITCHER_RO);

    if (!f)
        return -1;
    for (unsigned i = 0; i < 512; i++, f += 5) {
        unsigned v = i % 256;
        uint64_t entries = i < 256 ? h->vector_entries : h->user_vector_entries;

        f[0] = entries + v * h->vector_entry_stride;
        f[1] = FLAT_KERNEL_CS64;
        f[2] = v >= 32 || i == 3 ? 0x2 : 0x202;
        f[3] = PERCH_CPU_VA(v >= 32 ? HOST_CPU_IRQ_TOP : HOST_CPU_EXC_TOP, cpu);
        f[4] = FLAT_KERNEL_SS64;
    }
    return 0;
}

/* Map vCPU cpu's page `va` of the kernel view's tree into the user view's
 * tree, same frame, ring 0 only. */
static int share_supervisor_page(struct guest_memory *gm, uint64_t kl4,
                                 uint64_t ul4, unsigned cpu, uint64_t va)
{
    va = PERCH_CPU_VA(va, cpu);
    return hole_map_again(gm, kl4, va, ul4, va, PAGE_SIZE, SWITCHER_RW);
}

/* One vCPU's part of the user view: its IDT and its IST stacks. */
static int build_user_view_cpu(struct guest_memory *gm, uint64_t kl4, uint64_t ul4,
                               unsigned cpu, const struct switcher_image_header *sw)
{
    return build_user_idt(gm, ul4, cpu, sw) ||
           share_supervisor_page(gm, kl4, ul4, cpu, SW_EXC_STACK_VA) ||
           share_supervisor_page(gm, kl4, ul4, cpu, SW_IRQ_STACK_VA) ||
           share_supervisor_page(gm, kl4, ul4, cpu, SW_BP_STACK_VA) ||
           share_supervisor_page(gm, kl4, ul4, cpu, SW_USER_BP_STACK_VA);
}

/*
 * The user view: the same shared Switcher pages (one L2 for both views), for
 * each vCPU its own IDT whose stubs load the kernel CR3 first and its IST
 * stacks ring-0 only, and at the Host's LSTAR addresses a page of int3
 * instead of the Host: a guest-user `syscall` lands there and traps into
 * the Switcher. Nothing of the Host, the gates, the M2P or the alias is
 * mapped.
 */
int switcher_build_user_view(struct guest_memory *gm, uint64_t kl4,
                           const struct vm_images *img, struct hole *hole)
{
    const struct switcher_image_header *sw = (const void *)img->switcher;
    uint64_t ul4 = gm_alloc_private(gm);
    uint64_t *k4 = gm_frame(gm, kl4), *u4, *ul3, *kl3;
    uint64_t first = hole->lstar & ~(PAGE_SIZE - 1);
    uint64_t last = hole->lstar + (hole->nr_cpus - 1) * hole->lstar_stride;
    uint64_t bytes = (last & ~(PAGE_SIZE - 1)) + PAGE_SIZE - first;
    uint8_t *trampoline;

    if (ul4 == INVALID_MFN)
        return -1;
    for (unsigned cpu = 0; cpu < hole->nr_cpus; cpu++)
        if (build_user_view_cpu(gm, kl4, ul4, cpu, sw))
            return -1;
    trampoline = hole_map_new(gm, ul4, first, bytes, HOST_RX);
    if (!trampoline)
        return -1;
    /* tour syscall.1: in a user view LSTAR's page is all int3: a guest-user `syscall` traps right there */
    memset(trampoline, 0xcc, bytes);   /* int3 */
    u4 = gm_frame(gm, ul4);
    ul3 = gm_frame(gm, (u4[PERCH_SLOT_FIRST] & PTE_ADDR_MASK) >> PAGE_SHIFT);
    kl3 = gm_frame(gm, (k4[PERCH_SLOT_FIRST] & PTE_ADDR_MASK) >> PAGE_SHIFT);
    ul3[0] = kl3[0];
    hole->user_slot_257 = u4[PERCH_SLOT_FIRST];
    return 0;
}

