/*
 * mmu: the PV MMU interface, checked from a guest kernel against Xen's
 * behaviour (Xen 4.17, xen/arch/x86/mm.c unless named otherwise).
 *
 * The guest works in its own kernel address space, the builder's tables:
 * it finds the builder's L4/L3/L2 from pt_base through the M2P
 * (XENMEM_machphys_mapping), takes one of its own .bss pages as an L1
 * (made read-only, pinned, hooked into a free slot of the builder's L2 with
 * mmu_update) and uses that 2 MiB "window" for the tests:
 *
 *   1. mmu_update of L1 entries: map its own page and fresh frames, see them
 *   2. the same in one multicall: several mmu_update entries + a flush
 *   3. update_va_mapping with UVMF_INVLPG and UVMF_TLB_FLUSH
 *   4. MMU_PT_UPDATE_PRESERVE_AD keeps A/D; MMU_MACHPHYS_UPDATE, read back
 *   5. trapped PTE writes (vm_assist writable_pagetables): mov, xchg,
 *      lock btr, lock and; without the assist the store is the guest's #PF;
 *      a store in a read-only page of text, which perch patches into a
 *      call to the Host: through the patch, entered at its syscall, and
 *      rewritten by the guest through a writable mapping
 *   6. timing: "mmu: NAME cycles MEDIAN (MIN - MAX) per op, N ops"
 *   7. refusals every mode must give, with Xen's errors
 *   8. (command line strict=1, run with perch --strict) page-type refusals;
 *      in both modes: unpinning the L4 in use (allowed, as in Xen) and
 *      MMUEXT_NEW_BASEPTR to invalid, unowned and unpinned-but-valid L4s
 *
 * Every access that may fault goes through a probe in entry.S, so a wrong
 * answer from perch is a FAIL line and the run goes on. The last lines
 * give the hypercalls made, the page-table entries they wrote, and the
 * trapped writes and faults seen, which tests/guests/mmu.sh compares with
 * perch --stats.
 */
#include "../../abi/xen/memory.h"
#include "rt.h"
#include "timing.h"
#include "../../abi/layout.h"

const char guest_name[] = "mmu";

/* A domU has no domain 7 to name. */
#define NO_SUCH_DOMAIN 7u

/* ---- Entries ------------------------------------------------------------------ */
#define PG_DATA  (PTE_P | PTE_RW | PTE_A | PTE_D)           /* 0x63 */
#define PG_RO    (PTE_P | PTE_A)                            /* 0x21 */
#define PG_TABLE (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)  /* 0x67 */
/* The bits a test compares: Xen adds US (and bit 52 to L1 entries that
 * lacked US) to whatever the guest writes, so those are left out. */
#define CMP_MASK (PTE_ADDR_MASK | PTE_P | PTE_RW | PTE_A | PTE_D | PTE_PS | PTE_NX)
#define HUGE_MFN 0x10000000ull                  /* 1 TiB: no guest has it */
#define ALL_ONES_MFN ((1ull << 40) - 1)         /* Xen's INVALID_MFN special case */

#define PF_P 1u
#define PF_W 2u
#define PF_U 4u

/* ---- entry.S ------------------------------------------------------------------ */
extern char mmu_trap_13[], mmu_trap_14[];
long mmu_probe_read(const volatile uint64_t *p, uint64_t *out);
long mmu_pte_store(volatile uint64_t *p, uint64_t v);
long mmu_pte_xchg(volatile uint64_t *p, uint64_t v, uint64_t *old);
long mmu_pte_btr5(volatile uint64_t *p);
long mmu_pte_btr1(volatile uint64_t *p);
long mmu_pte_andb_rw(volatile uint64_t *p);
extern const uint8_t mmu_patch_page[], mmu_patch_store[];
long mmu_patch_btr1(volatile uint64_t *p);
long mmu_patch_enter_syscall(volatile uint64_t *p);

/* What entry.S saved, from rsp up (struct order = push order reversed). */
struct mmu_tframe {
    uint64_t r15, r14, r13, r12, r10, r9, r8, rbp, rdi, rsi, rdx, rbx, rax;
    uint64_t rcx, r11, error, rip, cs, rflags, rsp, ss;
};

volatile uint64_t mmu_fixup_rip;
void mmu_trap(struct mmu_tframe *f, unsigned vector);

/* ---- State -------------------------------------------------------------------- */
static const struct start_info *si;
static bool strict;
static const uint64_t *p2m;
static const volatile uint64_t *m2p;
static uint64_t m2p_entries;

/* The builder's tables (read-only to us) and their frames. */
static const volatile uint64_t *l4, *l3, *l2;
static uint64_t l4_mfn, l3_mfn, l2_mfn;
static unsigned win_slot, ps_slot_l2, ps_slot_l3, free_l4_slot;
static uint64_t win;          /* VA of the window: L2 slot win_slot */

/* Our own pages. l1a is the window's L1; pages[] hold patterns. */
#define NR_PAGES 4
static uint64_t l1a[512] __attribute__((aligned(4096)));
static uint64_t pages[NR_PAGES][512] __attribute__((aligned(4096)));
static uint64_t data[512] __attribute__((aligned(4096)));
static uint64_t spare[512] __attribute__((aligned(4096)));   /* stays writable */
static uint64_t l4copy[512] __attribute__((aligned(4096)));
static uint64_t l4bad[512] __attribute__((aligned(4096)));
static uint8_t shinfo_window[4096] __attribute__((aligned(4096)));
static uint64_t l1a_mfn;
#define NR_FRESH 8
static uint64_t fresh[NR_FRESH];    /* mfns of pfns nobody maps */
static uint64_t foreign_mfn;        /* a perch-private frame, not shared_info */

/* The fault the trap handler saw last. */
static volatile struct {
    unsigned vector;
    uint64_t error, rip, cr2;
} last_fault;

/* What the guest did, to compare with perch --stats. */
static unsigned long n_direct[XEN_NR_HYPERCALLS], n_nested[XEN_NR_HYPERCALLS];
static unsigned long n_ptwr_ok, n_faults, n_patched;
/* Page-table entries written by hypercalls that succeeded: mmu_update
 * requests NORMAL / PRESERVE_AD / NO_TRANSLATE among those done, and
 * update_va_mapping calls that returned 0. */
static unsigned long n_pt_updates;

/* ---- Little helpers -------------------------------------------------------------- */

static const char *fmt(const char *f, ...) RT_PRINTF(1, 2);
static const char *fmt(const char *f, ...)
{
    static char bufs[4][200];
    static unsigned next;
    char *b = bufs[next++ % 4];
    va_list ap;

    va_start(ap, f);
    fmt_vsnprintf(b, sizeof(bufs[0]), f, ap);
    va_end(ap);
    return b;
}

static volatile struct vcpu_info *vcpu_info0(void)
{
    return &((volatile struct shared_info *)shinfo_window)->vcpu_info[0];
}

static uint64_t pfn_of(const void *va)
{
    return ((uint64_t)va - RT_VIRT_BASE) >> XEN_PAGE_SHIFT;
}

static uint64_t mfn_of(const void *va)
{
    return p2m[pfn_of(va)];
}

static uint64_t entry_mfn(uint64_t e)
{
    return (e & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT;
}

/* The builder maps pfn N at VIRT_BASE + N pages: a table's VA from its mfn. */
static const volatile uint64_t *table_va(uint64_t mfn)
{
    return (const volatile uint64_t *)(RT_VIRT_BASE + (m2p[mfn] << XEN_PAGE_SHIFT));
}

static uint64_t l1a_maddr(unsigned i)
{
    return l1a_mfn * XEN_PAGE_SIZE + i * 8ull;
}

static volatile uint64_t *l1a_pte(unsigned i)
{
    return (volatile uint64_t *)&l1a[i];
}

static uint64_t l1e(unsigned i)
{
    return *l1a_pte(i);
}

static volatile uint64_t *win_page(unsigned i)
{
    return (volatile uint64_t *)(win + i * XEN_PAGE_SIZE);
}

static uint64_t pattern(unsigned page, unsigned i)
{
    return 0x5a5a000000000000ull | (uint64_t)page << 32 | i;
}

static void fill_pattern(uint64_t *p, unsigned page)
{
    for (unsigned i = 0; i < 512; i++)
        p[i] = pattern(page, i);
}

/* ---- Hypercalls, counted ---------------------------------------------------------- */

/* Of the first `done` requests, those that write a page-table entry. */
static void count_pt_updates(const struct mmu_update *req, uint32_t done)
{
    for (uint32_t k = 0; k < done; k++)
        if ((req[k].ptr & 7) != MMU_MACHPHYS_UPDATE && (req[k].ptr & 7) < 4)
            n_pt_updates++;
}

/* done may be NULL (the hypercall gets NULL then; Xen reports nothing). */
static long mmu_update_n(const struct mmu_update *req, unsigned n, uint32_t *done,
                         unsigned dom)
{
    long rc;

    n_direct[HYPERVISOR_mmu_update]++;
    if (done)
        *done = 0;
    rc = hypercall4(HYPERVISOR_mmu_update, (unsigned long)req, n,
                    (unsigned long)done, dom);
    if (!rc)
        count_pt_updates(req, n);
    else if (done)
        count_pt_updates(req, *done < n ? *done : n);
    return rc;
}

static long mmu_update1(uint64_t ptr, uint64_t val)
{
    struct mmu_update req = { ptr, val };

    return mmu_update_n(&req, 1, NULL, DOMID_SELF);
}

static long mmuext_dom(unsigned cmd, uint64_t arg1, unsigned dom)
{
    struct mmuext_op op = { .cmd = cmd, .arg1 = arg1 };

    n_direct[HYPERVISOR_mmuext_op]++;
    return hypercall4(HYPERVISOR_mmuext_op, (unsigned long)&op, 1, 0, dom);
}

static long mmuext(unsigned cmd, uint64_t arg1)
{
    return mmuext_dom(cmd, arg1, DOMID_SELF);
}

static long uvm(uint64_t va, uint64_t val, unsigned long flags)
{
    long rc;

    n_direct[HYPERVISOR_update_va_mapping]++;
    rc = hypercall3(HYPERVISOR_update_va_mapping, va, val, flags);
    if (!rc)
        n_pt_updates++;
    return rc;
}

static long vm_assist(unsigned cmd, unsigned type)
{
    n_direct[HYPERVISOR_vm_assist]++;
    return hypercall2(HYPERVISOR_vm_assist, cmd, type);
}

static long multicall(struct multicall_entry *e, unsigned n)
{
    n_direct[HYPERVISOR_multicall]++;
    for (unsigned i = 0; i < n; i++)
        if (e[i].op < XEN_NR_HYPERCALLS)
            n_nested[e[i].op]++;
    return hypercall2(HYPERVISOR_multicall, (unsigned long)e, n);
}

static long invlpg(uint64_t va)
{
    return mmuext(MMUEXT_INVLPG_LOCAL, va);
}

/* ---- Faults --------------------------------------------------------------------- */

void mmu_trap(struct mmu_tframe *f, unsigned vector)
{
    uint64_t fixup = mmu_fixup_rip;

    n_faults++;
    last_fault.vector = vector;
    last_fault.error = f->error;
    last_fault.rip = f->rip;
    last_fault.cr2 = vector == 14 ? vcpu_info0()->arch.cr2 : 0;
    if (fixup) {
        mmu_fixup_rip = 0;
        f->rip = fixup;
        return;
    }
    test_fail("unexpected_fault", "vector %u error %#lx at rip %#lx cr2 %#lx",
              vector, (unsigned long)f->error, (unsigned long)f->rip,
              (unsigned long)last_fault.cr2);
    printk("mmu: %u passed, %u failed (stopped by an unexpected fault)\n",
           tests_passed, tests_failed);
    xen_shutdown(SHUTDOWN_crash);
}

static void clear_fault(void)
{
    last_fault.vector = 0;
    last_fault.error = 0;
    last_fault.rip = 0;
    last_fault.cr2 = 0;
}

/* Read through a mapping: true and *out, or false if it faulted. */
static bool read_ok(const volatile uint64_t *p, uint64_t *out)
{
    return mmu_probe_read(p, out) == 0;
}

/* Does the page at p show page `page`'s pattern at a few places? */
static bool shows(const char *name, const char *what, const volatile uint64_t *p,
                  unsigned page)
{
    static const unsigned idx[] = { 0, 1, 255, 511 };

    for (unsigned k = 0; k < 4; k++) {
        uint64_t v;

        if (!read_ok(p + idx[k], &v)) {
            test_fail(name, "%s: reading %p faulted (error %#lx)", what,
                      (const void *)(p + idx[k]), (unsigned long)last_fault.error);
            return false;
        }
        if (v != pattern(page, idx[k])) {
            test_fail(name, "%s: word %u is %#lx, want %#lx (page %u's pattern)",
                      what, idx[k], (unsigned long)v,
                      (unsigned long)pattern(page, idx[k]), page);
            return false;
        }
    }
    return true;
}

/* A step of a multi-step check: FAIL (and false) unless cond. */
static bool require(const char *name, bool cond, const char *f, ...) RT_PRINTF(3, 4);
static bool require(const char *name, bool cond, const char *f, ...)
{
    char reason[200];
    va_list ap;

    if (cond)
        return true;
    va_start(ap, f);
    fmt_vsnprintf(reason, sizeof(reason), f, ap);
    va_end(ap);
    test_fail(name, "%s", reason);
    return false;
}

/* An entry of l1a, compared on CMP_MASK. */
static bool entry_is(const char *name, unsigned i, uint64_t want)
{
    uint64_t got = l1e(i);

    if ((got & CMP_MASK) == (want & CMP_MASK))
        return true;
    test_fail(name, "l1a[%u] is %#lx, want %#lx (compared on %#llx)", i,
              (unsigned long)got, (unsigned long)want, CMP_MASK);
    return false;
}

/* ---- Setup ---------------------------------------------------------------------- */

static bool setup_traps(void)
{
    static const struct trap_info traps[] = {
        { .vector = 13, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)mmu_trap_13 },
        { .vector = 14, .flags = 0, .cs = FLAT_KERNEL_CS64, .address = (uint64_t)mmu_trap_14 },
        { .address = 0 },   /* the end */
    };

    return hypercall1(HYPERVISOR_set_trap_table, (unsigned long)traps) == 0;
}

static bool setup_m2p(void)
{
    const char *n = "m2p_mapping";
    struct xen_machphys_mapping m;
    const void *probe[] = { l1a, data, si };
    long rc = hypercall2(HYPERVISOR_memory_op, XENMEM_machphys_mapping,
                         (unsigned long)&m);

    if (!expect_eq(n, "memory_op(XENMEM_machphys_mapping)", rc, 0))
        return false;
    printk("mmu: M2P at %#lx - %#lx, max_mfn %#lx\n", (unsigned long)m.v_start,
           (unsigned long)m.v_end, (unsigned long)m.max_mfn);
    m2p = (const volatile uint64_t *)m.v_start;
    m2p_entries = m.max_mfn + 1;
    for (unsigned k = 0; k < 3; k++) {
        uint64_t mfn = mfn_of(probe[k]), v;

        if (mfn >= m2p_entries || !read_ok(&m2p[mfn], &v)) {
            test_fail(n, "M2P entry of mfn %#lx unreadable", (unsigned long)mfn);
            return false;
        }
        if (!expect_eq(n, fmt("m2p[%#lx]", (unsigned long)mfn), (long)v,
                       (long)pfn_of(probe[k])))
            return false;
    }
    test_pass(n);
    return true;
}

/* Walk the builder's tables: L4 (pt_base) -> L3 (slot 511) -> L2 (510). */
static bool setup_builder_tables(void)
{
    const char *n = "builder_tables";
    uint64_t lo = si->pt_base, hi = si->pt_base + si->nr_pt_frames * XEN_PAGE_SIZE;

    l4 = (const volatile uint64_t *)si->pt_base;
    l4_mfn = mfn_of((const void *)si->pt_base);
    l3_mfn = entry_mfn(l4[511]);
    l3 = table_va(l3_mfn);
    l2_mfn = entry_mfn(l3[510]);
    l2 = table_va(l2_mfn);
    if (!check(n, (uint64_t)l3 >= lo && (uint64_t)l3 < hi && (uint64_t)l2 >= lo &&
                  (uint64_t)l2 < hi && (l4[511] & PTE_P) && (l3[510] & PTE_P),
               "L3 %p / L2 %p not among the builder's tables %#lx-%#lx",
               (const void *)l3, (const void *)l2, (unsigned long)lo,
               (unsigned long)hi))
        return false;
    /* Free slots: the window and a superpage probe in the L2, one each in
     * the L3 and the L4 (guest half). */
    win_slot = ps_slot_l2 = 0;
    for (unsigned s = 480; s > 16 && !ps_slot_l2; s--)
        if (!l2[s]) {
            if (!win_slot)
                win_slot = s;
            else
                ps_slot_l2 = s;
        }
    ps_slot_l3 = 0;
    for (unsigned s = 500; s > 256 && !ps_slot_l3; s--)
        if (!l3[s])
            ps_slot_l3 = s;
    free_l4_slot = 256;
    for (unsigned s = 0; s < 256 && free_l4_slot == 256; s++)
        if (!l4[s])
            free_l4_slot = s;
    win = RT_VIRT_BASE + (uint64_t)win_slot * 0x200000ull;
    printk("mmu: L4 mfn %#lx, L3 mfn %#lx, L2 mfn %#lx; window L2[%u] at %#lx; "
           "guest mfn base %#lx\n", (unsigned long)l4_mfn, (unsigned long)l3_mfn,
           (unsigned long)l2_mfn, win_slot, (unsigned long)win,
           (unsigned long)p2m[0]);
    return check("free_slots", win_slot && ps_slot_l2 && ps_slot_l3 && free_l4_slot < 256,
                 "no free slots: L2 %u/%u, L3 %u, L4 %u", win_slot, ps_slot_l2,
                 ps_slot_l3, free_l4_slot);
}

/* l1a: read-only (update_va_mapping), pinned, hooked into L2[win_slot]. */
static bool setup_window(void)
{
    const char *n = "setup_window_l1";

    l1a_mfn = mfn_of(l1a);
    return expect_eq(n, "update_va_mapping(l1a, RO, UVMF_INVLPG)",
                     uvm((uint64_t)l1a, l1a_mfn << 12 | PG_RO, UVMF_INVLPG), 0) &&
           expect_eq(n, "mmuext_op(PIN_L1_TABLE, l1a)",
                     mmuext(MMUEXT_PIN_L1_TABLE, l1a_mfn), 0) &&
           expect_eq(n, "mmu_update(L2[window] = l1a)",
                     mmu_update1(l2_mfn * XEN_PAGE_SIZE + win_slot * 8ull,
                                 l1a_mfn << 12 | PG_TABLE), 0) &&
           (test_pass(n), true);
}

static bool setup_frames(void)
{
    uint64_t top = si->nr_pages, boot_end = pfn_of((void *)rt_boot_rsp);

    for (unsigned k = 0; k < NR_PAGES; k++)
        fill_pattern(pages[k], k);
    fill_pattern(data, 9);
    for (unsigned k = 0; k < NR_FRESH; k++)
        fresh[k] = p2m[top - 1 - k];
    foreign_mfn = p2m[0] - 1;
    if (foreign_mfn == si->shared_info >> XEN_PAGE_SHIFT)
        foreign_mfn--;
    return check("fresh_frames", top > boot_end + 1024 + NR_FRESH && p2m[0] > 2,
                 "nr_pages %lu too small (boot stack at pfn %#lx) or mfn base %#lx",
                 (unsigned long)top, (unsigned long)boot_end, (unsigned long)p2m[0]);
}

/* ---- 1. mmu_update of L1 entries --------------------------------------------------- */

static void test_mmu_update_l1(void)
{
    const char *n = "mmu_update_l1_maps_own_page";
    struct mmu_update req = { l1a_maddr(1), mfn_of(data) << 12 | PG_DATA };
    uint32_t done = 0xdead;

    if (expect_eq(n, "mmu_update(l1a[1] = data page)",
                  mmu_update_n(&req, 1, &done, DOMID_SELF), 0) &&
        expect_eq(n, "done count", done, 1) &&
        entry_is(n, 1, req.val) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(1)), 0) &&
        shows(n, "window page 1", win_page(1), 9) &&
        expect_eq(n, "store through the window",
                  mmu_pte_store(win_page(1) + 7, 0x1234567887654321ull), 0) &&
        expect_eq(n, "the frame, read at its kernel address",
                  (long)((volatile uint64_t *)data)[7], 0x1234567887654321l))
        test_pass(n);
    data[7] = pattern(9, 7);

    /* A fresh frame (a pfn nobody maps): written through one mapping, read
     * through a second one. */
    n = "mmu_update_l1_maps_fresh_frame";
    if (expect_eq(n, "mmu_update(l1a[2] = fresh frame)",
                  mmu_update1(l1a_maddr(2), fresh[0] << 12 | PG_DATA), 0) &&
        expect_eq(n, "mmuext_op(TLB_FLUSH_LOCAL)", mmuext(MMUEXT_TLB_FLUSH_LOCAL, 0), 0)) {
        bool ok = true;

        for (unsigned i = 0; ok && i < 512; i++)
            ok = expect_eq(n, "store through the window",
                           mmu_pte_store(win_page(2) + i, pattern(20, i)), 0);
        if (ok &&
            expect_eq(n, "mmu_update(l1a[3] = the same frame)",
                      mmu_update1(l1a_maddr(3), fresh[0] << 12 | PG_RO), 0) &&
            expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(3)), 0) &&
            shows(n, "second mapping", win_page(3), 20))
            test_pass(n);
    }
}

/* ---- 2. multicall -------------------------------------------------------------------- */

static void test_multicall(void)
{
    const char *n = "multicall_mmu_update_and_flush";
    static struct mmu_update first[4], pair[2], one[2];
    static struct mmuext_op flush = { .cmd = MMUEXT_TLB_FLUSH_LOCAL };
    static uint32_t done[3];
    struct multicall_entry mc[4];
    bool ok;
    uint64_t v;
    long rc;

    /* Slots 10-13 first map the data page, and are read so the TLB holds
     * them: a missing flush would show the data page afterwards. */
    for (unsigned k = 0; k < 4; k++)
        first[k] = (struct mmu_update){ l1a_maddr(10 + k), mfn_of(data) << 12 | PG_DATA };
    if (!expect_eq(n, "mmu_update(4 entries, slots 10-13 = data)",
                   mmu_update_n(first, 4, NULL, DOMID_SELF), 0) ||
        !expect_eq(n, "mmuext_op(TLB_FLUSH_LOCAL)", mmuext(MMUEXT_TLB_FLUSH_LOCAL, 0), 0))
        return;
    for (unsigned k = 0; k < 4; k++)
        if (!require(n, read_ok(win_page(10 + k), &v) && v == pattern(9, 0),
                     "slot %u before the multicall: not the data page", 10 + k))
            return;

    pair[0] = (struct mmu_update){ l1a_maddr(10), mfn_of(pages[0]) << 12 | PG_DATA };
    pair[1] = (struct mmu_update){ l1a_maddr(11), mfn_of(pages[1]) << 12 | PG_DATA };
    one[0] = (struct mmu_update){ l1a_maddr(12), mfn_of(pages[2]) << 12 | PG_DATA };
    one[1] = (struct mmu_update){ l1a_maddr(13), mfn_of(pages[3]) << 12 | PG_RO };
    done[0] = done[1] = done[2] = 0xdead;
    mc[0] = (struct multicall_entry){ HYPERVISOR_mmu_update, 0xbad,
        { (uint64_t)pair, 2, (uint64_t)&done[0], DOMID_SELF } };
    mc[1] = (struct multicall_entry){ HYPERVISOR_mmu_update, 0xbad,
        { (uint64_t)&one[0], 1, (uint64_t)&done[1], DOMID_SELF } };
    mc[2] = (struct multicall_entry){ HYPERVISOR_mmu_update, 0xbad,
        { (uint64_t)&one[1], 1, (uint64_t)&done[2], DOMID_SELF } };
    mc[3] = (struct multicall_entry){ HYPERVISOR_mmuext_op, 0xbad,
        { (uint64_t)&flush, 1, 0, DOMID_SELF } };
    rc = multicall(mc, 4);
    ok = expect_eq(n, "multicall(3 x mmu_update, mmuext_op TLB_FLUSH_LOCAL)", rc, 0);
    for (unsigned k = 0; ok && k < 4; k++)
        ok = expect_eq(n, fmt("entry %u result", k), (long)mc[k].result, 0);
    count_pt_updates(pair, done[0] <= 2 ? done[0] : 0);
    count_pt_updates(&one[0], done[1] <= 1 ? done[1] : 0);
    count_pt_updates(&one[1], done[2] <= 1 ? done[2] : 0);
    ok = ok && expect_eq(n, "entry 0 done count", done[0], 2) &&
         expect_eq(n, "entry 1 done count", done[1], 1) &&
         expect_eq(n, "entry 2 done count", done[2], 1);
    for (unsigned k = 0; ok && k < 4; k++)
        ok = shows(n, fmt("slot %u after the multicall (no flush of our own)", 10 + k),
                   win_page(10 + k), k);
    if (ok)
        test_pass(n);
}

/* ---- 3. update_va_mapping -------------------------------------------------------------- */

static void test_update_va_mapping(void)
{
    uint64_t va = (uint64_t)win_page(20);
    const char *n = "update_va_mapping_invlpg";

    if (expect_eq(n, "update_va_mapping(window 20 = page 0, UVMF_INVLPG)",
                  uvm(va, mfn_of(pages[0]) << 12 | PG_DATA, UVMF_INVLPG), 0) &&
        shows(n, "after the first mapping", win_page(20), 0) &&
        expect_eq(n, "update_va_mapping(window 20 = page 1, UVMF_INVLPG)",
                  uvm(va, mfn_of(pages[1]) << 12 | PG_DATA, UVMF_INVLPG), 0) &&
        entry_is(n, 20, mfn_of(pages[1]) << 12 | PG_DATA) &&
        shows(n, "after the remap (a stale TLB entry would show page 0)",
              win_page(20), 1))
        test_pass(n);

    n = "update_va_mapping_tlb_flush";
    if (expect_eq(n, "update_va_mapping(window 20 = page 2, UVMF_TLB_FLUSH)",
                  uvm(va, mfn_of(pages[2]) << 12 | PG_DATA, UVMF_TLB_FLUSH), 0) &&
        entry_is(n, 20, mfn_of(pages[2]) << 12 | PG_DATA) &&
        shows(n, "after the remap (a stale TLB entry would show page 1)",
              win_page(20), 2))
        test_pass(n);
}

/* ---- 4. PRESERVE_AD, MACHPHYS_UPDATE ------------------------------------------------------ */

static void test_preserve_ad(void)
{
    const char *n = "preserve_ad_keeps_accessed_dirty";
    uint64_t f = mfn_of(pages[3]) << 12;

    /* A and D written by the guest: kept by PRESERVE_AD, not by NORMAL. */
    if (expect_eq(n, "mmu_update(NORMAL, l1a[30] = P|RW|A|D)",
                  mmu_update1(l1a_maddr(30), f | PG_DATA), 0) &&
        expect_eq(n, "mmu_update(PRESERVE_AD, l1a[30] = P only)",
                  mmu_update1(l1a_maddr(30) | MMU_PT_UPDATE_PRESERVE_AD, f | PTE_P), 0) &&
        entry_is(n, 30, f | PTE_P | PTE_A | PTE_D) &&
        expect_eq(n, "mmu_update(NORMAL, l1a[30] = P only)",
                  mmu_update1(l1a_maddr(30), f | PTE_P), 0) &&
        entry_is(n, 30, f | PTE_P))
        test_pass(n);

    /* A and D set by the CPU through the mapping, then kept. */
    n = "preserve_ad_keeps_cpu_set_bits";
    {
        if (expect_eq(n, "mmu_update(NORMAL, l1a[31] = P|RW)",
                      mmu_update1(l1a_maddr(31), f | PTE_P | PTE_RW), 0) &&
            expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(31)), 0) &&
            expect_eq(n, "store through the window",
                      mmu_pte_store(win_page(31) + 5, pattern(3, 5)), 0) &&
            require(n, (l1e(31) & (PTE_A | PTE_D)) == (PTE_A | PTE_D),
                    "the CPU set no A/D: l1a[31] %#lx", (unsigned long)l1e(31)) &&
            expect_eq(n, "mmu_update(PRESERVE_AD, l1a[31] = P only)",
                      mmu_update1(l1a_maddr(31) | MMU_PT_UPDATE_PRESERVE_AD, f | PTE_P), 0) &&
            entry_is(n, 31, f | PTE_P | PTE_A | PTE_D))
            test_pass(n);
    }
}

static void test_machphys(void)
{
    const char *n = "machphys_update_changes_m2p";
    uint64_t mfn = fresh[5], orig, v;

    if (!require(n, mfn < m2p_entries && read_ok(&m2p[mfn], &orig),
                 "M2P entry of mfn %#lx unreadable", (unsigned long)mfn))
        return;
    if (expect_eq(n, "m2p[fresh frame] before", (long)orig, (long)(si->nr_pages - 6)) &&
        expect_eq(n, "mmu_update(MACHPHYS_UPDATE, fresh frame + 0x100, 0x12345)",
                  mmu_update1((mfn << 12) + 0x100 + MMU_MACHPHYS_UPDATE, 0x12345), 0) &&
        read_ok(&m2p[mfn], &v) &&
        expect_eq(n, "m2p[fresh frame] read back", (long)v, 0x12345) &&
        expect_eq(n, "mmu_update(MACHPHYS_UPDATE, restore)",
                  mmu_update1((mfn << 12) + MMU_MACHPHYS_UPDATE, orig), 0) &&
        read_ok(&m2p[mfn], &v) &&
        expect_eq(n, "m2p[fresh frame] restored", (long)v, (long)orig))
        test_pass(n);
}

/* ---- 5. Trapped PTE writes --------------------------------------------------------------- */

/* A write through window page i must fault with P|W (a read-only page). */
static bool write_faults(const char *n, unsigned i, unsigned want_error)
{
    clear_fault();
    if (mmu_pte_store(win_page(i) + 8, 1) == 0) {
        test_fail(n, "a store through window page %u went through", i);
        return false;
    }
    return expect_eq(n, "fault vector", last_fault.vector, 14) &&
           expect_eq(n, "fault error code & (P|W|U)", (long)(last_fault.error & 7),
                     want_error);
}

static bool read_faults(const char *n, unsigned i)
{
    uint64_t v;

    clear_fault();
    if (read_ok(win_page(i), &v)) {
        test_fail(n, "a read through window page %u went through (%#lx)", i,
                  (unsigned long)v);
        return false;
    }
    return expect_eq(n, "fault vector", last_fault.vector, 14) &&
           expect_eq(n, "fault error code & (P|W|U)", (long)(last_fault.error & 7), 0);
}

/* The store to l1a[i] (mapped read-only) must be delivered as a #PF. */
static bool store_is_pf(const char *n, unsigned i, uint64_t val, uint64_t before)
{
    clear_fault();
    if (mmu_pte_store(l1a_pte(i), val) == 0) {
        test_fail(n, "the store to l1a[%u] (%#lx) went through", i, (unsigned long)val);
        return false;
    }
    return expect_eq(n, "fault vector", last_fault.vector, 14) &&
           expect_eq(n, "fault error code & (P|W|U) (Xen pv/traps.c:71-74: no U for the kernel)",
                     (long)(last_fault.error & 7), PF_P | PF_W) &&
           expect_eq(n, "cr2", (long)last_fault.cr2, (long)(uint64_t)l1a_pte(i)) &&
           expect_eq(n, "l1a entry unchanged", (long)l1e(i), (long)before);
}

static bool ptwr(const char *n, const char *what, long rc)
{
    if (rc >= 0)
        n_ptwr_ok++;
    if (rc >= 0 || last_fault.vector != 14)
        return true;
    test_fail(n, "%s: delivered as #PF (error %#lx, cr2 %#lx) instead of emulated",
              what, (unsigned long)last_fault.error, (unsigned long)last_fault.cr2);
    return false;
}

static void test_trapped_writes(void)
{
    const unsigned i = 40;
    uint64_t p0 = mfn_of(pages[0]) << 12, old = 0;
    const char *n = "ptwr_store_faults_without_vm_assist";
    long rc;

    if (store_is_pf(n, i, p0 | PG_DATA, 0))
        test_pass(n);
    if (l1e(i))
        mmu_update1(l1a_maddr(i), 0);

    n = "vm_assist_enable_writable_pagetables";
    if (!check_eq(n, vm_assist(VMASST_CMD_enable, VMASST_TYPE_writable_pagetables), 0))
        return;

    n = "ptwr_store";   /* native_set_pte: mov */
    clear_fault();
    rc = mmu_pte_store(l1a_pte(i), p0 | PG_DATA);
    if (ptwr(n, "mov %r64, (pte)", rc) &&
        expect_eq(n, "store result", rc, 0) &&
        entry_is(n, i, p0 | PG_DATA) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(i)), 0) &&
        shows(n, "the mapping the store made", win_page(i), 0))
        test_pass(n);

    n = "ptwr_lock_btr_accessed";   /* ptep_test_and_clear_young */
    clear_fault();
    rc = mmu_pte_btr5(l1a_pte(i));
    if (ptwr(n, "lock btrq $5, (pte)", rc) &&
        expect_eq(n, "CF (the old A bit)", rc, 1) &&
        entry_is(n, i, p0 | PTE_P | PTE_RW | PTE_D) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(i)), 0) &&
        shows(n, "the mapping after clearing A", win_page(i), 0))
        test_pass(n);

    n = "ptwr_lock_btr_rw";         /* write-protect with a bit-test */
    clear_fault();
    rc = mmu_pte_btr1(l1a_pte(i));
    if (ptwr(n, "lock btrq $1, (pte)", rc) &&
        expect_eq(n, "CF (the old RW bit)", rc, 1) &&
        /* A is set again: the previous check read through the mapping. */
        entry_is(n, i, p0 | PTE_P | PTE_A | PTE_D) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(i)), 0) &&
        write_faults(n, i, PF_P | PF_W) &&
        shows(n, "reads through the read-only mapping", win_page(i), 0))
        test_pass(n);

    n = "ptwr_lock_andb_rw";        /* ptep_set_wrprotect: clear_bit */
    clear_fault();
    rc = mmu_pte_store(l1a_pte(i), p0 | PG_DATA);
    if (ptwr(n, "mov (making it writable again)", rc) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(i)), 0) &&
        expect_eq(n, "store through the writable mapping",
                  mmu_pte_store(win_page(i) + 8, pattern(0, 8)), 0) &&
        (clear_fault(), rc = mmu_pte_andb_rw(l1a_pte(i)), ptwr(n, "lock andb $~2, (pte)", rc)) &&
        expect_eq(n, "lock andb result", rc, 0) &&
        entry_is(n, i, p0 | PTE_P | PTE_A | PTE_D) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(i)), 0) &&
        write_faults(n, i, PF_P | PF_W))
        test_pass(n);

    n = "ptwr_xchg_get_and_clear";  /* ptep_get_and_clear */
    clear_fault();
    rc = mmu_pte_xchg(l1a_pte(i), 0, &old);
    if (ptwr(n, "xchg %r64, (pte)", rc) &&
        expect_eq(n, "xchg result", rc, 0) &&
        expect_eq(n, "old value (compared on CMP_MASK)", (long)(old & CMP_MASK),
                  (long)((p0 | PTE_P | PTE_A | PTE_D) & CMP_MASK)) &&
        expect_eq(n, "l1a entry after", (long)l1e(i), 0) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(i)), 0) &&
        read_faults(n, i))
        test_pass(n);

    /* An entry mmu_update refuses is refused here too: Xen's emulation
     * fails (pv/ro-page-fault.c:156-164) and the #PF goes to the guest. */
    n = "ptwr_store_of_refused_entry_faults";
    if (store_is_pf(n, i, HUGE_MFN << 12 | PG_DATA, 0))
        test_pass(n);

    n = "ptwr_store_faults_after_vm_assist_disable";
    if (expect_eq(n, "vm_assist(disable, writable_pagetables)",
                  vm_assist(VMASST_CMD_disable, VMASST_TYPE_writable_pagetables), 0) &&
        store_is_pf(n, i, p0 | PG_DATA, 0))
        test_pass(n);
    vm_assist(VMASST_CMD_enable, VMASST_TYPE_writable_pagetables);
}

/* ---- 6. Timing ------------------------------------------------------------------------------- */

#define TIME_SLOT 100


/*
 * perch patches a trapping PTE store once its page of text is read-only
 * (host/cpu/insn_patch.c). The first store traps; the next ones go through the
 * patch, keeping every register; entering the patch at its syscall with
 * the words it would have pushed is the same; and once the guest maps
 * that text writable, it reads and writes its own bytes there, and runs
 * what it wrote.
 */
static void test_patched_stores(void)
{
    const unsigned i = 41, w = 42;
    const uint64_t text = (uint64_t)mmu_patch_page, offset = mmu_patch_store - mmu_patch_page;
    const uint64_t p0 = mfn_of(pages[0]) << 12, rw = p0 | PG_DATA;
    static const uint8_t original[6] = { 0xf0, 0x48, 0x0f, 0xba, 0x37, 0x01 };
    volatile uint8_t *alias = (volatile uint8_t *)win_page(w);
    const char *n = "patch_text_read_only";
    long rc;

    if (!check_eq(n, uvm(text, (mfn_of(mmu_patch_page) << 12) | PTE_P | PTE_A, UVMF_INVLPG), 0))
        return;

    n = "patch_first_store_traps";
    if (!expect_eq(n, "mmu_update", mmu_update1(l1a_maddr(i), rw), 0))
        return;
    clear_fault();
    rc = mmu_patch_btr1(l1a_pte(i));
    if (ptwr(n, "lock btrq $1 in read-only text", rc) &&
        expect_eq(n, "CF, rcx and r11 kept", rc, 1) && entry_is(n, i, rw & ~PTE_RW))
        test_pass(n);

    n = "patch_store_through_the_patch";
    for (unsigned round = 0; round < 3; round++) {
        if (!expect_eq(n, "mmu_update", mmu_update1(l1a_maddr(i), rw), 0) ||
            !expect_eq(n, "CF, rcx and r11 kept", mmu_patch_btr1(l1a_pte(i)), 1) ||
            !entry_is(n, i, rw & ~PTE_RW))
            break;
        n_patched++;
        if (round == 2)
            test_pass(n);
    }

    n = "patch_entered_at_its_syscall";
    if (expect_eq(n, "mmu_update", mmu_update1(l1a_maddr(i), rw), 0) &&
        expect_eq(n, "CF, and rcx and r11 from the stack", mmu_patch_enter_syscall(l1a_pte(i)), 1) &&
        entry_is(n, i, rw & ~PTE_RW))
        test_pass(n);
    n_patched++;

    /* The guest maps its text writable: it finds its own bytes there,
     * changes the store to `btrq $5` (the A bit) and runs that. */
    n = "patch_text_rewritten_by_the_guest";
    if (!expect_eq(n, "mmu_update (text, writable)",
                   mmu_update1(l1a_maddr(w), (mfn_of(mmu_patch_page) << 12) | PG_DATA), 0))
        return;
    for (unsigned b = 0; b < sizeof(original); b++)
        if (!expect_eq(n, fmt("byte %u of the store, read through the writable mapping", b),
                       alias[offset + b], original[b]))
            return;
    alias[offset + 5] = 5;
    if (!expect_eq(n, "mmu_update (unmap)", mmu_update1(l1a_maddr(w), 0), 0) ||
        !expect_eq(n, "invlpg", invlpg((uint64_t)alias), 0) ||
        !expect_eq(n, "mmu_update", mmu_update1(l1a_maddr(i), rw), 0))
        return;
    clear_fault();
    rc = mmu_patch_btr1(l1a_pte(i));
    n_ptwr_ok++;                       /* it traps again, then is patched again */
    if (expect_eq(n, "CF (the old A bit), rcx and r11 kept", rc, 1) &&
        entry_is(n, i, rw & ~PTE_A) &&
        expect_eq(n, "mmu_update", mmu_update1(l1a_maddr(i), rw), 0) &&
        expect_eq(n, "through the new patch", mmu_patch_btr1(l1a_pte(i)), 1) &&
        entry_is(n, i, rw & ~PTE_A))
        test_pass(n);
    n_patched++;
    mmu_update1(l1a_maddr(i), 0);
    invlpg((uint64_t)win_page(i));
}

static uint64_t time_vals[2];
static unsigned time_flip;
static bool time_flush;

static uint64_t next_val(void)
{
    return time_vals[time_flip++ & 1];
}

static long maybe_flush(long rc)
{
    if (rc || !time_flush)
        return rc;
    return invlpg((uint64_t)win_page(TIME_SLOT));
}

static long op_ptwr(void)
{
    long rc = mmu_pte_store(l1a_pte(TIME_SLOT), next_val());

    if (!rc)
        n_ptwr_ok++;
    return maybe_flush(rc);
}

static long op_mmu_update(void)
{
    return maybe_flush(mmu_update1(l1a_maddr(TIME_SLOT), next_val()));
}

static long op_uvm(void)
{
    return maybe_flush(uvm((uint64_t)win_page(TIME_SLOT), next_val(), UVMF_NONE));
}

static long op_uvm_invlpg(void)
{
    return uvm((uint64_t)win_page(TIME_SLOT), next_val(), UVMF_INVLPG);
}

static void measure(const char *name, long (*op)(void), bool flush, unsigned batch)
{
    time_flush = flush;
    if (rt_time(name, op, batch)) {
        test_fail(fmt("time_%s", name), "the operation failed (last fault "
                  "vector %u error %#lx)", last_fault.vector,
                  (unsigned long)last_fault.error);
        return;
    }
    test_pass(fmt("time_%s", name));
}

static void test_timing(void)
{
    time_vals[0] = mfn_of(pages[0]) << 12 | PG_DATA;
    time_vals[1] = mfn_of(pages[1]) << 12 | PG_DATA;
    printk("mmu: timing one L1 entry update, alternating between two frames; "
           "NAME_flush = followed by one mmuext_op MMUEXT_INVLPG_LOCAL hypercall\n");
    measure("ptwr_store", op_ptwr, false, 200);
    measure("mmu_update", op_mmu_update, false, 1000);
    measure("update_va_mapping", op_uvm, false, 1000);
    measure("ptwr_store_flush", op_ptwr, true, 200);
    measure("mmu_update_flush", op_mmu_update, true, 500);
    measure("update_va_mapping_flush", op_uvm, true, 500);
    measure("update_va_mapping_uvmf_invlpg", op_uvm_invlpg, false, 500);
}

/* ---- 7. Refusals ------------------------------------------------------------------------------ */

/* One request that must fail with `want`; l1a[i] (if i < 512) unchanged. */
static void refuse(const char *n, const char *what, long rc, long want, int i,
                   uint64_t before)
{
    if (!expect_eq(n, what, rc, want))
        return;
    if (i >= 0 && l1e((unsigned)i) != before) {
        test_fail(n, "%s: l1a[%d] changed to %#lx", what, i, (unsigned long)l1e((unsigned)i));
        return;
    }
    test_pass(n);
}

static void refuse_l4_hole_slots(void)
{
    static const unsigned slots[] = { 256, 257, 258, 271 };

    for (unsigned k = 0; k < 4; k++) {
        unsigned s = slots[k];
        const char *n = fmt("refuse_l4_slot_%u", s);
        uint64_t before = l4[s];
        /* perch's own slots get their current value: harmless if taken. */
        uint64_t val = (s == 257 || s == 258) ? before : l3_mfn << 12 | PG_TABLE;
        long rc = mmu_update1(l4_mfn * XEN_PAGE_SIZE + s * 8ull, val);

        if (!expect_eq(n, fmt("mmu_update(L4[%u] = %#lx) (Xen mm.c:2387-2392 "
                              "mod_l4_entry, Xen-private slot)", s, (unsigned long)val),
                       rc, -XEN_EINVAL))
            continue;
        if (l4[s] != before) {
            test_fail(n, "L4[%u] changed to %#lx", s, (unsigned long)l4[s]);
            mmu_update1(l4_mfn * XEN_PAGE_SIZE + s * 8ull, before);
            continue;
        }
        test_pass(n);
    }
}

static void refuse_mappings(void)
{
    struct mmu_update req[3];
    uint32_t done = 0xdead;
    long rc;

    refuse("refuse_l1_mfn_beyond_memory",
           "mmu_update(l1a[90] = mfn 1<<28) (Xen mm.c:882-904 get_page_from_l1e: "
           "an invalid mfn is MMIO the guest may not map)",
           mmu_update1(l1a_maddr(90), HUGE_MFN << 12 | PG_DATA), -XEN_EPERM, 90, 0);
    refuse("refuse_uvm_mfn_beyond_memory",
           "update_va_mapping(window 90 = mfn 1<<28) (Xen mm.c:4501 -> 882-904)",
           uvm((uint64_t)win_page(90), HUGE_MFN << 12 | PG_DATA, UVMF_INVLPG),
           -XEN_EPERM, 90, 0);
    refuse("refuse_l1_mfn_all_ones",
           "mmu_update(l1a[90] = mfn 2^40-1) (Xen mm.c:898-906: the all-ones mfn "
           "is -EINVAL, not -EPERM)",
           mmu_update1(l1a_maddr(90), ALL_ONES_MFN << 12 | PG_DATA), -XEN_EINVAL, 90, 0);
    refuse("refuse_l1_frame_of_another_owner",
           fmt("mmu_update(l1a[90] = perch-private mfn %#lx) (Xen mm.c:976-992, "
               "1039-1046: owner mismatch, could_not_pin)", (unsigned long)foreign_mfn),
           mmu_update1(l1a_maddr(90), foreign_mfn << 12 | PG_DATA), -XEN_EBUSY, 90, 0);

    /* Superpages: PS is in the disallow mask above L1. */
    refuse("refuse_l2_superpage",
           fmt("mmu_update(L2[%u] = PS entry) (Xen mm.c:2272-2279 mod_l2_entry, "
               "Bad L2 flags)", ps_slot_l2),
           mmu_update1(l2_mfn * XEN_PAGE_SIZE + ps_slot_l2 * 8ull,
                       (p2m[0] & ~511ull) << 12 | PG_TABLE | PTE_PS), -XEN_EINVAL, -1, 0);
    if (l2[ps_slot_l2])
        test_fail("refuse_l2_superpage", "L2[%u] changed to %#lx", ps_slot_l2,
                  (unsigned long)l2[ps_slot_l2]);
    refuse("refuse_l3_superpage",
           fmt("mmu_update(L3[%u] = PS entry) (Xen mm.c:2334-2341 mod_l3_entry, "
               "Bad L3 flags)", ps_slot_l3),
           mmu_update1(l3_mfn * XEN_PAGE_SIZE + ps_slot_l3 * 8ull,
                       (p2m[0] & ~0x3ffffull) << 12 | PG_TABLE | PTE_PS), -XEN_EINVAL, -1, 0);
    if (l3[ps_slot_l3])
        test_fail("refuse_l3_superpage", "L3[%u] changed to %#lx", ps_slot_l3,
                  (unsigned long)l3[ps_slot_l3]);

    /* A batch stops at its first failure and says how many went through. */
    req[0] = (struct mmu_update){ l1a_maddr(80), mfn_of(pages[0]) << 12 | PG_DATA };
    req[1] = (struct mmu_update){ l1a_maddr(81), HUGE_MFN << 12 | PG_DATA };
    req[2] = (struct mmu_update){ l1a_maddr(82), mfn_of(pages[1]) << 12 | PG_DATA };
    rc = mmu_update_n(req, 3, &done, DOMID_SELF);
    {
        const char *n = "mmu_update_batch_stops_at_failure";

        if (expect_eq(n, "mmu_update(3 entries, the 2nd refused) (Xen mm.c:4255-4256, "
                         "4349-4353)", rc, -XEN_EPERM) &&
            expect_eq(n, "done count", done, 1) &&
            entry_is(n, 80, req[0].val) &&
            expect_eq(n, "l1a[81]", (long)l1e(81), 0) &&
            expect_eq(n, "l1a[82] (after the failure: not done)", (long)l1e(82), 0))
            test_pass(n);
        mmu_update1(l1a_maddr(80), 0);
    }
}

static void refuse_pte_addresses(void)
{
    uint64_t m2p_before = m2p[l1a_mfn], val = mfn_of(pages[0]) << 12 | PG_DATA;
    const char *n = "refuse_unaligned_pte_address";
    char got[120];
    int len = 0;
    bool ok = true;

    /* ptr's low 3 bits are the command (Xen mm.c:4065): an entry address
     * + 4..7 is command 4..7, which does not exist: -ENOSYS (mm.c:4250-4252).
     * + 5 carries the frame's own M2P value, harmless if taken as command 1
     * (MACHPHYS_UPDATE); the others a valid entry, checked below. */
    for (unsigned off = 4; off < 8; off++) {
        long rc = mmu_update1(l1a_maddr(50) + off, off == 5 ? m2p_before : val);

        ok = ok && rc == -XEN_ENOSYS;
        len += fmt_snprintf(got + len, sizeof(got) - (size_t)len, " +%u:%ld", off, rc);
    }
    if (require(n, ok, "mmu_update(ptr = &l1a[50] + 4..7) returned%s, want -38 "
                "(-ENOSYS) for each (Xen mm.c:4065, 4250-4252)", got) &&
        expect_eq(n, "l1a[50], l1a[51]", (long)(l1e(50) | l1e(51)), 0) &&
        expect_eq(n, "m2p[l1a]", (long)m2p[l1a_mfn], (long)m2p_before))
        test_pass(n);

    refuse("refuse_pte_in_frame_beyond_memory",
           "mmu_update(ptr in mfn 1<<28) (Xen mm.c:4100-4118: Could not get page "
           "for normal update)",
           mmu_update1(HUGE_MFN << 12, val), -XEN_EINVAL, -1, 0);

    /* A frame that is perch's: the write, if it were taken, stores the
     * value the word already has (read through perch's alias). */
    {
        uint64_t cur = 0, off = 0;
        const volatile uint64_t *alias =
            (const volatile uint64_t *)(PERCH_ALIAS_VA + foreign_mfn * XEN_PAGE_SIZE);

        n = "refuse_pte_in_frame_of_another_owner";
        for (off = 0; off < 512; off++) {
            if (!read_ok(alias + off, &cur))
                break;
            if (!(cur & PTE_P))
                break;
        }
        if (off == 512 || !read_ok(alias + off, &cur)) {
            printk("mmu: (perch-private frame %#lx unreadable through the alias: "
                   "not tested)\n", (unsigned long)foreign_mfn);
        } else {
            refuse(n, fmt("mmu_update(ptr = perch-private mfn %#lx + %#lx, its own "
                          "value) (Xen mm.c:4100-4118)", (unsigned long)foreign_mfn,
                          (unsigned long)(off * 8)),
                   mmu_update1(foreign_mfn * XEN_PAGE_SIZE + off * 8, cur),
                   -XEN_EINVAL, -1, 0);
        }
    }

    refuse("refuse_machphys_of_frame_beyond_memory",
           "mmu_update(MACHPHYS_UPDATE, mfn 1<<28) (Xen mm.c:4233-4241: Could not get "
           "page for mach->phys update)",
           mmu_update1(HUGE_MFN << 12 | MMU_MACHPHYS_UPDATE, 1), -XEN_EINVAL, -1, 0);
    refuse("refuse_uvm_va_in_hole",
           "update_va_mapping(PERCH_M2P_VA) (Xen mm.c:4482-4485, pv/mm.c:40-41 "
           "__addr_ok)",
           uvm(PERCH_M2P_VA, val, UVMF_INVLPG), -XEN_EINVAL, -1, 0);
}

static void refuse_foreign_domains(void)
{
    uint64_t val = mfn_of(pages[0]) << 12 | PG_DATA;
    struct mmu_update req = { l1a_maddr(70), val };
    uint32_t done = 0xdead;

    refuse("refuse_mmu_update_unknown_domain",
           "mmu_update(foreigndom 7) (Xen mm.c:4045-4049 get_pg_owner, "
           "common/page_alloc.c:2685-2687)",
           mmu_update_n(&req, 1, &done, NO_SUCH_DOMAIN), -XEN_ESRCH, 70, 0);
    refuse("refuse_mmu_update_unknown_pt_owner",
           "mmu_update(foreigndom (8 << 16) | DOMID_SELF: tables of domain 7) "
           "(Xen mm.c:4031-4034)",
           mmu_update_n(&req, 1, NULL, (NO_SUCH_DOMAIN + 1) << 16 | DOMID_SELF),
           -XEN_ESRCH, 70, 0);
    refuse("refuse_mmuext_op_unknown_domain",
           "mmuext_op(TLB_FLUSH_LOCAL, foreigndom 7) (Xen mm.c:3485-3486)",
           mmuext_dom(MMUEXT_TLB_FLUSH_LOCAL, 0, NO_SUCH_DOMAIN), -XEN_ESRCH, -1, 0);
    refuse("refuse_mmuext_op_domid_io",
           "mmuext_op(TLB_FLUSH_LOCAL, foreigndom DOMID_IO) (Xen mm.c:3494-3499 "
           "xsm_mmuext_op; xsm/dummy.h:657-661, 78-100: a domU is not privileged "
           "over dom_io)",
           mmuext_dom(MMUEXT_TLB_FLUSH_LOCAL, 0, DOMID_IO), -XEN_EPERM, -1, 0);
    req.ptr = l1a_maddr(71);
    refuse("refuse_mmu_update_domid_io_ram",
           "mmu_update(l1a[71] = own RAM frame, foreigndom DOMID_IO) (Xen "
           "mm.c:976-992 + xsm/dummy.h:671-675: the real owner is not DOMID_IO, "
           "could_not_pin -EBUSY at 1039-1046)",
           mmu_update_n(&req, 1, NULL, DOMID_IO), -XEN_EBUSY, 71, 0);
    if (l1e(70))
        mmu_update1(l1a_maddr(70), 0);
    if (l1e(71))
        mmu_update1(l1a_maddr(71), 0);
}

/* ---- 8. Page types (strict) and base pointers --------------------------------------------------- */

static void copy_builder_l4(uint64_t *dst)
{
    for (unsigned s = 0; s < 512; s++)
        dst[s] = (s >= 256 && s <= 271) ? 0 : l4[s];
}

static void test_strict_mappings(void)
{
    const char *n;
    uint64_t v;
    long rc;

    n = "strict_refuse_rw_mapping_of_pinned_l1";
    rc = mmu_update1(l1a_maddr(60), l1a_mfn << 12 | PG_DATA);
    refuse(n, "mmu_update(l1a[60] = l1a itself, RW) (Xen mm.c:1010-1015, 1039-1046: "
              "no PGT_writable_page on a page table, -EBUSY)", rc, -XEN_EBUSY, 60, 0);
    if (rc == 0)
        mmu_update1(l1a_maddr(60), 0);

    n = "strict_refuse_rw_mapping_of_l4_in_use";
    rc = uvm((uint64_t)win_page(60), l4_mfn << 12 | PG_DATA, UVMF_INVLPG);
    refuse(n, "update_va_mapping(window 60 = builder L4, RW) (Xen mm.c:4501 -> "
              "1010-1015, 1039-1046)", rc, -XEN_EBUSY, 60, 0);
    if (rc == 0)
        mmu_update1(l1a_maddr(60), 0);

    n = "strict_refuse_rw_mapping_of_l2";
    rc = mmu_update1(l1a_maddr(60), l2_mfn << 12 | PG_DATA);
    refuse(n, "mmu_update(l1a[60] = builder L2, RW) (Xen mm.c:1010-1015, 1039-1046)", rc,
           -XEN_EBUSY, 60, 0);
    if (rc == 0)
        mmu_update1(l1a_maddr(60), 0);

    n = "ro_mapping_of_page_table_allowed";
    if (expect_eq(n, "mmu_update(l1a[61] = l1a itself, RO)",
                  mmu_update1(l1a_maddr(61), l1a_mfn << 12 | PG_RO), 0) &&
        expect_eq(n, "mmuext_op(INVLPG_LOCAL)", invlpg((uint64_t)win_page(61)), 0) &&
        require(n, read_ok(win_page(61) + 61, &v), "reading the table through "
                "the window faulted") &&
        expect_eq(n, "l1a[61] read through the window", (long)(v & CMP_MASK),
                  (long)((l1a_mfn << 12 | PG_RO) & CMP_MASK)) &&
        expect_eq(n, "mmu_update(l1a[61] = 0)", mmu_update1(l1a_maddr(61), 0), 0))
        test_pass(n);

    n = "strict_refuse_pin_of_writable_page";
    rc = mmuext(MMUEXT_PIN_L1_TABLE, mfn_of(spare));
    refuse(n, "mmuext_op(PIN_L1_TABLE, a page mapped writable) (Xen mm.c:3570-3582 "
              "-> _get_page_type 2921-2945: Bad type)", rc, -XEN_EINVAL, -1, 0);
    if (rc == 0)
        mmuext(MMUEXT_UNPIN_TABLE, mfn_of(spare));
}

/*
 * Unpinning the L4 that is the base pointer is allowed by Xen (mm.c:
 * 3625-3660 checks only ownership and the pin; the base pointer holds its
 * own type reference, taken by new_guest_cr3 at 3337). Linux relies on it:
 * it unpins the builder's L4 while still running on it
 * (xen_setup_kernel_pagetable).
 */
static void test_unpin_in_use(void)
{
    const char *n = "unpin_l4_in_use";

    if (expect_eq(n, "mmuext_op(UNPIN_TABLE, builder L4 = base pointer) (Xen "
                     "mm.c:3625-3660: allowed)", mmuext(MMUEXT_UNPIN_TABLE, l4_mfn), 0) &&
        expect_eq(n, "mmuext_op(UNPIN_TABLE, again) (Xen mm.c:3639-3645: not pinned)",
                  mmuext(MMUEXT_UNPIN_TABLE, l4_mfn), -XEN_EINVAL) &&
        (!strict ||
         expect_eq(n, "update_va_mapping(window 62 = unpinned L4 in use, RW) (still "
                      "typed L4 by the base pointer: Xen mm.c:1010-1015)",
                   uvm((uint64_t)win_page(62), l4_mfn << 12 | PG_DATA, UVMF_INVLPG),
                   -XEN_EBUSY)) &&
        expect_eq(n, "mmuext_op(PIN_L4_TABLE, the L4 in use again) (Xen mm.c:3538-3598)",
                  mmuext(MMUEXT_PIN_L4_TABLE, l4_mfn), 0) &&
        expect_eq(n, "mmuext_op(PIN_L4_TABLE, once more) (Xen mm.c:3585-3591: already "
                     "pinned)", mmuext(MMUEXT_PIN_L4_TABLE, l4_mfn), -XEN_EINVAL))
        test_pass(n);
    if (l1e(62))
        mmu_update1(l1a_maddr(62), 0);
}

static long new_baseptr(uint64_t mfn)
{
    return mmuext(MMUEXT_NEW_BASEPTR, mfn);
}

/* After a NEW_BASEPTR that should have failed but did not: back home. */
static void back_to_builder_l4(void)
{
    long rc = new_baseptr(l4_mfn);

    if (rc)
        printk("mmu: NEW_BASEPTR back to the builder's L4 failed: %ld\n", rc);
}

static void test_new_baseptr(void)
{
    uint64_t copy_mfn = mfn_of(l4copy), bad_mfn = mfn_of(l4bad);
    const char *n;
    long rc;

    copy_builder_l4(l4copy);
    copy_builder_l4(l4bad);
    l4bad[free_l4_slot] = HUGE_MFN << 12 | PG_TABLE;

    if (strict) {
        n = "strict_refuse_new_baseptr_writable_page";
        rc = new_baseptr(copy_mfn);
        refuse(n, "mmuext_op(NEW_BASEPTR, a valid L4 copy still mapped writable) "
                  "(Xen mm.c:3337-3349 -> 1077 -> 2921-2945: Bad type)",
               rc, -XEN_EINVAL, -1, 0);
        if (rc == 0)
            back_to_builder_l4();
    }

    n = "setup_l4_copies_read_only";
    if (!expect_eq(n, "update_va_mapping(l4copy, RO)",
                   uvm((uint64_t)l4copy, copy_mfn << 12 | PG_RO, UVMF_INVLPG), 0) ||
        !expect_eq(n, "update_va_mapping(l4bad, RO)",
                   uvm((uint64_t)l4bad, bad_mfn << 12 | PG_RO, UVMF_INVLPG), 0))
        return;

    n = "refuse_new_baseptr_invalid_l4";
    rc = new_baseptr(bad_mfn);
    refuse(n, fmt("mmuext_op(NEW_BASEPTR, L4 copy with L4[%u] -> mfn 1<<28) (Xen "
                  "mm.c:3337-3349 -> promote_l4_table 1746-1778 -> get_page_from_l4e "
                  "1174-1187 -> 1073-1075)", free_l4_slot), rc, -XEN_EINVAL, -1, 0);
    if (rc == 0)
        back_to_builder_l4();

    n = "refuse_new_baseptr_frame_not_owned";
    rc = new_baseptr(HUGE_MFN);
    refuse(n, "mmuext_op(NEW_BASEPTR, mfn 1<<28) (Xen mm.c:3337-3349 -> 1073-1075)",
           rc, -XEN_EINVAL, -1, 0);
    if (rc == 0)
        back_to_builder_l4();

    /* Xen validates a new base pointer itself: it need not be pinned. */
    n = "new_baseptr_unpinned_valid_l4";
    if (expect_eq(n, "mmuext_op(NEW_BASEPTR, read-only unpinned copy of the builder's "
                     "L4) (Xen mm.c:3337-3358)", new_baseptr(copy_mfn), 0)) {
        uint64_t v;
        bool ok = read_ok(win_page(1), &v) &&
                  expect_eq(n, "the window read on the copy", (long)v, (long)pattern(9, 0));

        if (expect_eq(n, "mmuext_op(NEW_BASEPTR, back to the builder's L4)",
                      new_baseptr(l4_mfn), 0) && ok)
            test_pass(n);
    }

    if (strict) {
        /* Last: if perch took an L1 as the base pointer the guest is gone. */
        n = "strict_refuse_new_baseptr_pinned_l1";
        rc = new_baseptr(l1a_mfn);
        refuse(n, "mmuext_op(NEW_BASEPTR, the pinned L1 l1a) (Xen mm.c:3337-3349 -> "
                  "2921-2945: Bad type)", rc, -XEN_EINVAL, -1, 0);
        if (rc == 0)
            back_to_builder_l4();
    }
}

/* ---- Main ------------------------------------------------------------------------------------ */

static void report_counts(void)
{
    printk("mmu: hypercalls made: mmu_update %lu mmuext_op %lu update_va_mapping %lu "
           "multicall %lu vm_assist %lu (in multicalls: mmu_update %lu mmuext_op %lu)\n",
           n_direct[HYPERVISOR_mmu_update] + n_nested[HYPERVISOR_mmu_update],
           n_direct[HYPERVISOR_mmuext_op] + n_nested[HYPERVISOR_mmuext_op],
           n_direct[HYPERVISOR_update_va_mapping] + n_nested[HYPERVISOR_update_va_mapping],
           n_direct[HYPERVISOR_multicall], n_direct[HYPERVISOR_vm_assist],
           n_nested[HYPERVISOR_mmu_update], n_nested[HYPERVISOR_mmuext_op]);
    printk("mmu: page-table entries written by hypercalls %lu\n", n_pt_updates);
    printk("mmu: trapped PTE writes emulated %lu, faults delivered %lu, #PF total %lu\n",
           n_ptwr_ok, n_faults, n_ptwr_ok + n_faults);
    printk("mmu: stores through patches %lu\n", n_patched);
}

void guest_main(const struct start_info *start)
{
    const char *s;

    si = start;
    p2m = (const uint64_t *)si->mfn_list;
    s = cmdline_get(si, "strict");
    strict = s && strcmp(s, "0");
    printk("mmu: %s mode\n", strict ? "strict" : "default");

    if (!check_eq("map_shared_info",
                  uvm((uint64_t)shinfo_window, si->shared_info | PG_DATA, UVMF_INVLPG), 0) ||
        !check("set_trap_table", setup_traps(), "set_trap_table refused") ||
        !setup_m2p() || !setup_builder_tables() || !setup_frames() || !setup_window())
        goto out;

    test_mmu_update_l1();
    test_multicall();
    test_update_va_mapping();
    test_preserve_ad();
    test_machphys();
    test_trapped_writes();
    test_patched_stores();
    test_timing();

    refuse_l4_hole_slots();
    refuse_mappings();
    refuse_pte_addresses();
    refuse_foreign_domains();

    if (strict)
        test_strict_mappings();
    test_unpin_in_use();
    test_new_baseptr();
out:
    report_counts();
    printk("mmu: %u passed, %u failed\n", tests_passed, tests_failed);
}
