/*
 * smp_hostile: a guest kernel with two or more vCPUs (perch run --cpus N)
 * that attacks perch's SMP side, one attack per boot, chosen by the
 * command line (attack=NAME; tests/guests/smp_hostile.sh runs them all
 * and checks how perch ends).
 *
 * The attacks: VCPUOP_initialise with contexts that point into the Host
 * or the Switcher, are not canonical, name tables or GDT frames that are
 * not the guest's, or carry perch's selectors, and contexts the Host takes
 * whose first instruction faults; initialise and up of vCPUs that run or
 * do not exist; two or more vCPUs at once on one page-table entry, one
 * table's pin, one event channel; an IPI storm; VCPUOP_down of a busy
 * vCPU and a vCPU that goes down and up again and again; the guest ending
 * (power-off, crash) while another vCPU is busy in a hypercall loop, at
 * CPL3 or asleep; INIT and NMI through the local APIC to the vCPUs that
 * hold the Host lock. Whatever the guest does, perch must end: status 0
 * after the guest's own PASS line, or status 5 with one line (4 for the
 * crash the guest asks for).
 *
 * Each attack first prints "smp_hostile: attack NAME on N vCPUs"; the
 * attacks the guest is meant to survive end with "PASS smp_hostile/NAME"
 * and a power-off.
 */
#include "../../abi/layout.h"
#include "../../abi/xen/event_channel.h"
#include "events.h"
#include "rt.h"
#include "smp.h"

const char guest_name[] = "smp_hostile";

#define PG_DATA  (PTE_P | PTE_RW | PTE_A | PTE_D)
#define PG_RO    (PTE_P | PTE_A)
#define ROUNDS   5000
#define STORM_MS 2000
#define DOWNS    300     /* down_up_race's rounds */
#define XEN_MAX_VCPUS 4096   /* no domain has a vCPU this high */

static const struct start_info *start;
static unsigned nr_cpus;

/* ---- Working together ------------------------------------------------------ */

static volatile bool stop;      /* vCPU 0 tells the others to end their loops */
static unsigned ready;          /* start_together's count */

static long xen_version(void)
{
    return hc_xen_version(XENVER_version, NULL);
}

/* Every vCPU arrives before any goes on (bounded: 5 s). */
static void start_together(void)
{
    uint64_t deadline = rt_now_ns() + 5000 * RT_NS_PER_MS;

    __atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < nr_cpus && rt_now_ns() < deadline)
        __asm__ volatile("pause");
}

/* fn on every vCPU but 0. */
static bool start_others(const char *name, void (*fn)(void *))
{
    for (unsigned id = 1; id < nr_cpus; id++) {
        long rc = rt_cpu_run(id, fn, NULL);

        if (rc) {
            test_fail(name, "rt_cpu_run(%u) = %ld", id, rc);
            return false;
        }
    }
    return true;
}

static bool join_others(const char *name, uint64_t ms)
{
    for (unsigned id = 1; id < nr_cpus; id++)
        if (!rt_cpu_wait(id, ms)) {
            test_fail(name, "vCPU %u did not finish within %lu ms", id, (unsigned long)ms);
            return false;
        }
    return true;
}

/* fn on every vCPU at once, vCPU 0 too; true once all returned. */
static bool on_every_cpu(const char *name, void (*fn)(void *), uint64_t ms)
{
    if (!start_others(name, fn))
        return false;
    fn(NULL);
    return join_others(name, ms);
}

/* Hypercalls until told to stop; the count shows the vCPU ran. */
static volatile uint64_t busy_calls;

static void busy_hypercalls(void *arg)
{
    (void)arg;
    while (!stop) {
        xen_version();
        __atomic_add_fetch(&busy_calls, 1, __ATOMIC_SEQ_CST);
    }
}

/* Wait (spinning, up to 2 s) until the busy vCPUs have made calls. */
static bool busy_running(const char *name)
{
    uint64_t deadline = rt_now_ns() + 2000 * RT_NS_PER_MS;

    while (__atomic_load_n(&busy_calls, __ATOMIC_SEQ_CST) < 1000)
        if (rt_now_ns() > deadline) {
            test_fail(name, "the other vCPUs made %lu hypercalls in 2 s",
                      (unsigned long)busy_calls);
            return false;
        }
    return true;
}

static uint64_t mfn_of(const void *va)
{
    return ((const uint64_t *)start->mfn_list)[((uint64_t)va - RT_VIRT_BASE) >> XEN_PAGE_SHIFT];
}

/* What went wrong on any vCPU during a race: how often, and the first. */
static struct {
    uint64_t count;
    const char *what;
    long value;
    unsigned cpu;
} wrong;

static void wrong_if(bool bad, const char *what, long value)
{
    if (bad && __atomic_fetch_add(&wrong.count, 1, __ATOMIC_SEQ_CST) == 0) {
        wrong.what = what;
        wrong.value = value;
        wrong.cpu = rt_cpu_id();
    }
}

/* After the race: nothing went wrong, else one FAIL line saying what. */
static bool nothing_wrong(const char *name)
{
    return expect(name, !wrong.count, "%lu wrong results; the first, on vCPU %u: %s %ld (%#lx)",
                  (unsigned long)wrong.count, wrong.cpu, wrong.what, wrong.value,
                  (unsigned long)wrong.value);
}

static void count_if(bool yes, uint64_t *counter)
{
    if (yes)
        __atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
}

/* ---- 1. Contexts VCPUOP_initialise must refuse --------------------------- */

struct spoil {
    const char *what;
    void (*spoil)(struct vcpu_guest_context *c);
};

static uint8_t junk_page[4096] __attribute__((aligned(4096)));
static uint64_t tss_gdt[512] __attribute__((aligned(4096)));
static uint64_t empty_gdt[512] __attribute__((aligned(4096)));

static void rip_host(struct vcpu_guest_context *c) { c->user_regs.rip = HOST_IMAGE_VA; }
static void rip_switcher(struct vcpu_guest_context *c) { c->user_regs.rip = SW_GATE_EXIT; }
static void rsp_host_stack(struct vcpu_guest_context *c) { c->user_regs.rsp = HOST_CPU_VA + 0x2000; }
static void kernel_sp_host(struct vcpu_guest_context *c) { c->kernel_sp = HOST_CPU_VA + 0x2000; }
static void event_cb_host(struct vcpu_guest_context *c) { c->event_callback_eip = HOST_IMAGE_VA; }
static void failsafe_switcher(struct vcpu_guest_context *c) { c->failsafe_callback_eip = SW_GATE_EXIT; }
static void syscall_cb_host(struct vcpu_guest_context *c) { c->syscall_callback_eip = HOST_IMAGE_VA + 0x80; }
static void trap_switcher(struct vcpu_guest_context *c) { c->trap_ctxt[14].address = SW_GATE_EXIT; }
static void rip_hole_top(struct vcpu_guest_context *c) { c->user_regs.rip = XEN_HOLE_END - 1; }

static const struct spoil host_spoils[] = {
    { "rip in Host code", rip_host },
    { "rip at a Switcher gate", rip_switcher },
    { "rsp on a Host stack", rsp_host_stack },
    { "kernel_sp on a Host stack", kernel_sp_host },
    { "event callback in Host code", event_cb_host },
    { "failsafe callback at a Switcher gate", failsafe_switcher },
    { "syscall callback in Host code", syscall_cb_host },
    { "#PF handler at a Switcher gate", trap_switcher },
    { "rip at the hole's last byte", rip_hole_top },
};

#define NONCANONICAL 0x0000800000000000ull

static void rip_nc(struct vcpu_guest_context *c) { c->user_regs.rip = NONCANONICAL; }
static void rsp_nc(struct vcpu_guest_context *c) { c->user_regs.rsp = 0xdead000000000000ull; }
static void kernel_sp_nc(struct vcpu_guest_context *c) { c->kernel_sp = NONCANONICAL; }
static void fs_nc(struct vcpu_guest_context *c) { c->fs_base = NONCANONICAL; }
static void gs_kernel_nc(struct vcpu_guest_context *c) { c->gs_base_kernel = 0x8000000000000000ull; }
static void gs_user_nc(struct vcpu_guest_context *c) { c->gs_base_user = NONCANONICAL; }
static void event_cb_nc(struct vcpu_guest_context *c) { c->event_callback_eip = NONCANONICAL; }
static void trap_nc(struct vcpu_guest_context *c) { c->trap_ctxt[3].address = ~0ull >> 1; }

static const struct spoil noncanonical_spoils[] = {
    { "rip", rip_nc },
    { "rsp", rsp_nc },
    { "kernel_sp", kernel_sp_nc },
    { "fs_base", fs_nc },
    { "gs_base_kernel", gs_kernel_nc },
    { "gs_base_user", gs_user_nc },
    { "event callback", event_cb_nc },
    { "#BP handler", trap_nc },
};

/* A frame no guest has: far past the last of this one's. */
static uint64_t foreign_mfn(void)
{
    const uint64_t *p2m = (const uint64_t *)start->mfn_list;
    uint64_t top = 0;

    for (uint64_t i = 0; i < start->nr_pages; i++)
        top = p2m[i] > top ? p2m[i] : top;
    return top + 0x100000;
}

static void cr3_none(struct vcpu_guest_context *c) { c->ctrlreg[3] = 0; }
static void cr3_perch(struct vcpu_guest_context *c) { c->ctrlreg[3] = 1ull << XEN_PAGE_SHIFT; }
static void cr3_past(struct vcpu_guest_context *c) { c->ctrlreg[3] = foreign_mfn() << XEN_PAGE_SHIFT; }
static void cr3_all_ones(struct vcpu_guest_context *c) { c->ctrlreg[3] = ~0ull; }
static void cr3_junk(struct vcpu_guest_context *c) { c->ctrlreg[3] = mfn_of(junk_page) << XEN_PAGE_SHIFT; }
static void cr1_given(struct vcpu_guest_context *c) { c->ctrlreg[1] = c->ctrlreg[3]; }

static const struct spoil cr3_spoils[] = {
    { "no L4", cr3_none },
    { "an L4 of perch's", cr3_perch },
    { "an L4 past memory", cr3_past },
    { "cr3 all ones", cr3_all_ones },
    { "an L4 of junk entries", cr3_junk },
    { "a user L4 (ctrlreg[1])", cr1_given },
};

static void gdt_one(struct vcpu_guest_context *c, uint64_t mfn)
{
    c->gdt_frames[0] = mfn;
    c->gdt_ents = 512;
}

static void gdt_perch(struct vcpu_guest_context *c) { gdt_one(c, 1); }
static void gdt_past(struct vcpu_guest_context *c) { gdt_one(c, foreign_mfn()); }
static void gdt_tss(struct vcpu_guest_context *c) { gdt_one(c, mfn_of(tss_gdt)); }
static void gdt_too_big(struct vcpu_guest_context *c) { c->gdt_ents = FIRST_RESERVED_GDT_ENTRY + 1; }
static void gdt_second_bad(struct vcpu_guest_context *c)
{
    c->gdt_frames[0] = mfn_of(empty_gdt);
    c->gdt_frames[1] = 1;
    c->gdt_ents = 1024;
}

static const struct spoil gdt_spoils[] = {
    { "a GDT frame of perch's", gdt_perch },
    { "a GDT frame past memory", gdt_past },
    { "a GDT frame with a TSS descriptor", gdt_tss },
    { "more GDT entries than Xen's reserved ones leave", gdt_too_big },
    { "a second GDT frame of perch's", gdt_second_bad },
};

static void cs_ring0(struct vcpu_guest_context *c) { c->user_regs.cs = SW_CS0_SEL; }
static void cs_null(struct vcpu_guest_context *c) { c->user_regs.cs = 0; }
static void ss_ring0(struct vcpu_guest_context *c) { c->user_regs.ss = SW_DS0_SEL; }
static void kernel_ss_wide(struct vcpu_guest_context *c) { c->kernel_ss = 0x10000 | FLAT_KERNEL_SS64; }
static void user_mode(struct vcpu_guest_context *c) { c->flags &= ~(uint64_t)VGCF_IN_KERNEL; }
static void with_ldt(struct vcpu_guest_context *c) { c->ldt_base = (uint64_t)junk_page, c->ldt_ents = 1; }

static const struct spoil selector_spoils[] = {
    { "cs perch's ring 0", cs_ring0 },
    { "cs null", cs_null },
    { "ss perch's ring 0", ss_ring0 },
    { "kernel_ss wider than 16 bits", kernel_ss_wide },
    { "no VGCF_IN_KERNEL", user_mode },
    { "an LDT", with_ldt },
};

static volatile bool marked;

static void mark(void *arg)
{
    (void)arg;
    marked = true;
}

/* After the refusals, vCPU 1 is still off and the good context starts it. */
static bool still_off_then_starts(const char *name)
{
    if (!expect_eq(name, "VCPUOP_is_up(1) after the refusals",
                   rt_vcpu_op(VCPUOP_is_up, 1, NULL), 0) ||
        !expect_eq(name, "VCPUOP_up(1) with no context",
                   rt_vcpu_op(VCPUOP_up, 1, NULL), -XEN_EINVAL) ||
        !expect_eq(name, "the good context", rt_cpu_run(1, mark, NULL), 0))
        return false;
    return expect(name, rt_cpu_wait(1, 2000) && marked, "vCPU 1 did not run the good context");
}

static struct vcpu_guest_context ctxt;

static void refuse_all(const char *name, const struct spoil *s, size_t n, long want)
{
    bool ok = true;

    for (size_t i = 0; i < n; i++) {
        long rc;

        rt_cpu_context(&ctxt, 1);
        s[i].spoil(&ctxt);
        rc = rt_vcpu_op(VCPUOP_initialise, 1, &ctxt);
        ok &= expect_eq(name, s[i].what, rc, want);
    }
    if (ok && still_off_then_starts(name))
        test_pass(name);
}

#define REFUSE_ALL(name, spoils) \
    refuse_all(name, spoils, sizeof(spoils) / sizeof(spoils[0]), -XEN_EINVAL)

static void attack_ctx_host(const char *name) { REFUSE_ALL(name, host_spoils); }
static void attack_ctx_noncanonical(const char *name) { REFUSE_ALL(name, noncanonical_spoils); }
static void attack_ctx_selectors(const char *name) { REFUSE_ALL(name, selector_spoils); }

static void attack_ctx_cr3(const char *name)
{
    memset(junk_page, 0xff, sizeof(junk_page));
    REFUSE_ALL(name, cr3_spoils);
}

static void attack_ctx_gdt(const char *name)
{
    tss_gdt[2] = 0x0000890000000067ull;   /* a present 64-bit TSS: no guest's */
    REFUSE_ALL(name, gdt_spoils);
}

/* The context itself where the Host cannot read it. */
static void attack_ctx_unreadable(const char *name)
{
    static const uint64_t where[] = { 0, 0x1000, HOST_IMAGE_VA, SW_GATE_VA, NONCANONICAL,
                                      XEN_HOLE_START - 8 };
    bool ok = true;

    for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
        ok &= expect_eq(name, "VCPUOP_initialise from an address it cannot read",
                        rt_vcpu_op(VCPUOP_initialise, 1, (void *)where[i]), -XEN_EFAULT);
    if (ok && still_off_then_starts(name))
        test_pass(name);
}

/* ---- 2. Contexts the Host takes, whose start faults ---------------------- */

/* No trap table on vCPU 1: its first fault has no handler, and the
 * guest is stopped (Xen crashes the domain). */
static void start_faulting(const char *name, uint64_t rip, uint64_t rsp)
{
    long rc;

    rt_cpu_context(&ctxt, 1);
    ctxt.user_regs.rip = rip ? rip : ctxt.user_regs.rip;
    ctxt.user_regs.rsp = rsp ? rsp : ctxt.user_regs.rsp;
    rc = rt_vcpu_op(VCPUOP_initialise, 1, &ctxt);
    if (!expect_eq(name, "the faulting context taken", rc, 0))
        return;
    rt_vcpu_op(VCPUOP_up, 1, NULL);
    test_expect_stop(name);
}

static void attack_start_unmapped_rip(const char *name) { start_faulting(name, 0x1000, 0); }
static void attack_start_unmapped_rsp(const char *name) { start_faulting(name, 0, 0x2000); }

/* ---- 3. Bringing up what runs, or does not exist ------------------------- */

static void attack_up_running(const char *name)
{
    uint64_t calls;
    bool ok;

    if (!start_others(name, busy_hypercalls) || !busy_running(name))
        return;
    rt_cpu_context(&ctxt, 1);
    ok = expect_eq(name, "VCPUOP_initialise(1) while it runs",
                   rt_vcpu_op(VCPUOP_initialise, 1, &ctxt), -XEN_EEXIST) &&
         expect_eq(name, "VCPUOP_initialise(0), itself",
                   rt_vcpu_op(VCPUOP_initialise, 0, &ctxt), -XEN_EEXIST) &&
         expect_eq(name, "VCPUOP_up(1) while it runs", rt_vcpu_op(VCPUOP_up, 1, NULL), 0) &&
         expect_eq(name, "VCPUOP_up(0), itself", rt_vcpu_op(VCPUOP_up, 0, NULL), 0) &&
         expect_eq(name, "VCPUOP_is_up(1)", rt_vcpu_op(VCPUOP_is_up, 1, NULL), 1);
    calls = busy_calls;
    rt_nap(20);
    ok &= expect(name, busy_calls > calls, "vCPU 1 stopped making hypercalls");
    stop = true;
    if (!join_others(name, 2000) || !ok)
        return;
    /* Down by itself and up again: the same vCPU runs a second function. */
    marked = false;
    if (expect_eq(name, "rt_cpu_run(1) again", rt_cpu_run(1, mark, NULL), 0) &&
        expect(name, rt_cpu_wait(1, 2000) && marked, "vCPU 1 did not run again"))
        test_pass(name);
}

static void attack_id_range(const char *name)
{
    static const unsigned cmds[] = { VCPUOP_initialise, VCPUOP_up, VCPUOP_down,
                                     VCPUOP_is_up, VCPUOP_get_runstate_info,
                                     VCPUOP_register_runstate_memory_area,
                                     VCPUOP_register_vcpu_info, VCPUOP_set_singleshot_timer };
    const unsigned long ids[] = { nr_cpus, nr_cpus + 1, PERCH_MAX_VCPUS - 1, PERCH_MAX_VCPUS,
                                  XEN_MAX_VCPUS, 0xffffffffu, 1ul << 32, ~0ul };
    bool ok = true;

    rt_cpu_context(&ctxt, 1);
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
            long rc = rt_vcpu_op(cmds[k], ids[i], &ctxt);

            if (rc != -XEN_ENOENT && ok)
                test_fail(name, "vcpu_op(%u, vCPU %#lx) = %ld, want -ENOENT", cmds[k], ids[i], rc);
            ok &= rc == -XEN_ENOENT;
        }
    if (ok)
        test_pass(name);
}

/* ---- 4. One page-table entry from every vCPU at once ---------------------- */

static uint8_t pte_target[4096] __attribute__((aligned(4096)));
static uint64_t frame_a[512] __attribute__((aligned(4096)));
static uint64_t frame_b[512] __attribute__((aligned(4096)));
#define MAGIC_A 0xaaaa5555aaaa5555ull
#define MAGIC_B 0xbbbb4444bbbb4444ull

static uint64_t pfn_of_mfn(uint64_t mfn)
{
    const uint64_t *p2m = (const uint64_t *)start->mfn_list;

    for (uint64_t pfn = 0; pfn < start->nr_pages; pfn++)
        if (p2m[pfn] == mfn)
            return pfn;
    return ~0ull;
}

/* The guest's own view of the table an entry names (the builder maps every
 * frame at VIRT_BASE + pfn * 4096); NULL if it names none of its frames. */
static const volatile uint64_t *table_of(uint64_t entry)
{
    uint64_t pfn = pfn_of_mfn((entry & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT);

    if (pfn == ~0ull)
        return NULL;
    return (const volatile uint64_t *)(RT_VIRT_BASE + (pfn << XEN_PAGE_SHIFT));
}

/* The L1 entry that maps va in the L4 at pt_base; its machine address in
 * *ma. */
static const volatile uint64_t *l1_entry(uint64_t va, uint64_t *ma)
{
    const volatile uint64_t *t = (const volatile uint64_t *)start->pt_base;

    for (int shift = 39; shift > 12; shift -= 9) {
        t = table_of(t[(va >> shift) & 511]);
        if (!t)
            return NULL;
    }
    *ma = (mfn_of((const void *)t) << XEN_PAGE_SHIFT) + ((va >> 12) & 511) * 8;
    return &t[(va >> 12) & 511];
}

static const volatile uint64_t *pte;
static uint64_t pte_ma;

/* What pte_target shows and what its entry names: frame a or b. */
static void check_views(void)
{
    uint64_t word = *(volatile uint64_t *)pte_target;
    uint64_t mfn = (*pte & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT;

    wrong_if(word != MAGIC_A && word != MAGIC_B, "the page read", (long)word);
    wrong_if(mfn != mfn_of(frame_a) && mfn != mfn_of(frame_b), "its entry named frame", (long)mfn);
}

static uint64_t entry_for(unsigned i)
{
    return mfn_of(i & 1 ? frame_b : frame_a) << XEN_PAGE_SHIFT | PG_DATA;
}

/* arg1: an mfn or a linear address. */
static long mmuext(unsigned cmd, uint64_t arg1)
{
    struct mmuext_op op = { .cmd = cmd, .arg1 = arg1 };

    return hypercall4(HYPERVISOR_mmuext_op, (uint64_t)&op, 1, 0, DOMID_SELF);
}

/* vCPU 0 by update_va_mapping, the others by mmu_update, each flushing
 * its own TLB: as in Xen, a vCPU is sure to see even its own change only
 * after its own flush (the TLB may have filled from the entry at any
 * time). */
static long set_entry(unsigned id, uint64_t entry)
{
    struct mmu_update u = { .ptr = pte_ma | MMU_NORMAL_PT_UPDATE, .val = entry };
    long rc;

    if (id == 0)
        return hypercall3(HYPERVISOR_update_va_mapping, (uint64_t)pte_target, entry,
                          UVMF_INVLPG);
    rc = hypercall4(HYPERVISOR_mmu_update, (uint64_t)&u, 1, 0, DOMID_SELF);
    return rc ? rc : mmuext(MMUEXT_INVLPG_LOCAL, (uint64_t)pte_target);
}

static void pte_race(void *arg)
{
    unsigned id = rt_cpu_id();

    (void)arg;
    start_together();
    for (unsigned i = id; i < ROUNDS + id; i++) {
        long rc = set_entry(id, entry_for(i));

        wrong_if(rc != 0, id ? "mmu_update" : "update_va_mapping", rc);
        check_views();
    }
}

static void attack_race_pte(const char *name)
{
    uint64_t old;

    frame_a[0] = MAGIC_A;
    frame_b[0] = MAGIC_B;
    pte = l1_entry((uint64_t)pte_target, &pte_ma);
    if (!expect(name, pte != NULL, "no L1 entry found for %p", (void *)pte_target))
        return;
    old = *pte;
    if (!on_every_cpu(name, pte_race, 10000) ||
        !expect_eq(name, "MMUEXT_TLB_FLUSH_ALL", mmuext(MMUEXT_TLB_FLUSH_ALL, 0), 0))
        return;
    check_views();
    if (nothing_wrong(name) &&
        expect_eq(name, "the entry put back",
                  hypercall3(HYPERVISOR_update_va_mapping, (uint64_t)pte_target, old,
                             UVMF_INVLPG), 0))
        test_pass(name);
}

/* ---- 5. One table pinned and unpinned from every vCPU at once ------------ */

static uint64_t pin_table[512] __attribute__((aligned(4096)));
static uint64_t pins, unpins;

/* Each call succeeds (counted) or finds it already done (-EINVAL). */
static void pin_race(void *arg)
{
    uint64_t mfn = mfn_of(pin_table);

    (void)arg;
    start_together();
    for (unsigned i = 0; i < ROUNDS; i++) {
        long rc = mmuext(MMUEXT_PIN_L1_TABLE, mfn);

        count_if(rc == 0, &pins);
        wrong_if(rc != 0 && rc != -XEN_EINVAL, "PIN_L1_TABLE", rc);
        rc = mmuext(MMUEXT_UNPIN_TABLE, mfn);
        count_if(rc == 0, &unpins);
        wrong_if(rc != 0 && rc != -XEN_EINVAL, "UNPIN_TABLE", rc);
    }
}

static long map_pin_table(uint64_t flags)
{
    return hypercall3(HYPERVISOR_update_va_mapping, (uint64_t)pin_table,
                      mfn_of(pin_table) << XEN_PAGE_SHIFT | flags, UVMF_INVLPG | UVMF_ALL);
}

/* Pins and unpins alternate: at the end one more pin than unpins at
 * most, and the table's state says which. */
static void attack_race_pin(const char *name)
{
    long pinned, last;

    if (!expect_eq(name, "the table mapped read-only", map_pin_table(PG_RO), 0) ||
        !on_every_cpu(name, pin_race, 10000))
        return;
    pinned = (long)(pins - unpins);
    last = mmuext(MMUEXT_UNPIN_TABLE, mfn_of(pin_table));
    printk("smp_hostile: %lu pins, %lu unpins\n", (unsigned long)pins, (unsigned long)unpins);
    if (nothing_wrong(name) &&
        expect(name, pinned == 0 || pinned == 1, "pins - unpins = %ld", pinned) &&
        expect_eq(name, "the last unpin", last, pinned ? 0 : -XEN_EINVAL) &&
        expect(name, pins > 0, "no pin succeeded") &&
        expect_eq(name, "the table mapped writable again", map_pin_table(PG_DATA), 0))
        test_pass(name);
}

/* ---- 6. One event channel from every vCPU at once ------------------------ */

static volatile uint32_t shared_port;
static uint64_t opened, closed;

/* Each event-channel call: 0, or the port was closed (or is another's
 * now) under it. */
static void evtchn_call(unsigned cmd, const char *what, void *arg)
{
    long rc = rt_evtchn_op(cmd, arg);

    wrong_if(rc != 0 && rc != -XEN_EINVAL && rc != -XEN_ENOENT, what, rc);
    count_if(cmd == EVTCHNOP_close && rc == 0, &closed);
}

/* What every vCPU does to whatever port was opened last. */
static void use_shared_port(void)
{
    uint32_t p = shared_port;
    struct evtchn_status st = { .dom = DOMID_SELF, .port = p };
    struct evtchn_bind_vcpu bv = { .port = p, .vcpu = rt_cpu_id() };

    evtchn_call(EVTCHNOP_send, "send", &p);
    evtchn_call(EVTCHNOP_unmask, "unmask", &p);
    evtchn_call(EVTCHNOP_status, "status", &st);
    evtchn_call(EVTCHNOP_bind_vcpu, "bind_vcpu", &bv);
    evtchn_call(EVTCHNOP_close, "close", &p);
}

/* vCPU 0 opens unbound ports (for domain 0: perch offers no loopback),
 * the others IPI ports; all use and close
 * the one opened last. */
static void evtchn_race(void *arg)
{
    (void)arg;
    start_together();
    for (unsigned i = 0; i < ROUNDS; i++) {
        struct evtchn_bind_ipi bi = { .vcpu = rt_cpu_id() };
        uint32_t port;
        long rc = rt_cpu_id() == 0 ? rt_evtchn_alloc_unbound(0, &port)
                                   : rt_evtchn_op(EVTCHNOP_bind_ipi, &bi);

        wrong_if(rc != 0, "opening a port", rc);
        if (!rc) {
            __atomic_add_fetch(&opened, 1, __ATOMIC_SEQ_CST);
            shared_port = rt_cpu_id() == 0 ? port : bi.port;
        }
        use_shared_port();
    }
}

/* Ports left open by the race (not the vCPUs' timers), closed now. */
static uint64_t close_leftovers(void)
{
    uint64_t n = 0;

    for (uint32_t p = 1; p < EVTCHN_2L_NR_CHANNELS; p++) {
        struct evtchn_status st = { .dom = DOMID_SELF, .port = p };

        if (rt_evtchn_op(EVTCHNOP_status, &st) == 0 &&
            (st.status == EVTCHNSTAT_unbound || st.status == EVTCHNSTAT_ipi) &&
            rt_evtchn_op(EVTCHNOP_close, &p) == 0)
            n++;
    }
    return n;
}

/* Every port opened is closed exactly once, by the race or after it. */
static void attack_race_evtchn(const char *name)
{
    uint64_t left;

    if (!on_every_cpu(name, evtchn_race, 10000))
        return;
    left = close_leftovers();
    printk("smp_hostile: %lu ports opened, %lu closed in the race, %lu after\n",
           (unsigned long)opened, (unsigned long)closed, (unsigned long)left);
    if (nothing_wrong(name) &&
        expect_eq(name, "ports closed", (long)(closed + left), (long)opened))
        test_pass(name);
}

/* ---- 7. An IPI storm --------------------------------------------------------- */

static uint32_t ipi_port[RT_MAX_CPUS];
static uint64_t sent[RT_MAX_CPUS], received[RT_MAX_CPUS];

/* Each vCPU sends to the next as fast as it can, with a hypercall between
 * sends, events on, for STORM_MS. */
static void ipi_storm(void *arg)
{
    unsigned id = rt_cpu_id();
    struct evtchn_bind_ipi bi = { .vcpu = id };
    uint64_t end;

    (void)arg;
    wrong_if(rt_evtchn_op(EVTCHNOP_bind_ipi, &bi) != 0, "bind_ipi", -1);
    wrong_if(rt_evtchn_unmask(bi.port) != 0, "unmask", bi.port);
    ipi_port[id] = bi.port;
    rt_vcpu_info()->evtchn_upcall_mask = 0;
    start_together();
    end = rt_now_ns() + STORM_MS * RT_NS_PER_MS;
    while (rt_now_ns() < end) {
        long rc = rt_evtchn_send(ipi_port[(id + 1) % nr_cpus]);

        wrong_if(rc != 0, "send", rc);
        sent[id]++;
        xen_version();   /* the upcall comes on its way back */
        if (rt_event_take(bi.port))
            received[id]++;
    }
    rt_vcpu_info()->evtchn_upcall_mask = 1;
}

static void attack_ipi_storm(const char *name)
{
    bool ok;

    if (!on_every_cpu(name, ipi_storm, 5000))
        return;
    ok = nothing_wrong(name);
    for (unsigned id = 0; id < nr_cpus && ok; id++) {
        printk("smp_hostile: vCPU %u sent %lu, took %lu upcalls' worth\n", id,
               (unsigned long)sent[id], (unsigned long)received[id]);
        ok = expect(name, sent[id] > 100 && received[id] > 0,
                   "vCPU %u sent %lu, received %lu", id, (unsigned long)sent[id],
                   (unsigned long)received[id]);
    }
    if (ok)
        test_pass(name);
}

/* ---- 8. Down while busy ---------------------------------------------------- */

/* perch lets a vCPU take only itself down (host/xen/vcpu_op.c): another's
 * busy loop goes on. */
static void attack_down_busy(const char *name)
{
    uint64_t calls;
    bool ok = true;

    if (!start_others(name, busy_hypercalls) || !busy_running(name))
        return;
    for (unsigned id = 1; id < nr_cpus; id++)
        ok &= expect_eq(name, "VCPUOP_down of a busy vCPU", rt_vcpu_op(VCPUOP_down, id, NULL),
                        -XEN_EINVAL);
    calls = busy_calls;
    rt_nap(20);
    ok &= expect(name, busy_calls > calls, "the busy vCPUs stopped");
    stop = true;
    if (join_others(name, 2000) && ok)
        test_pass(name);
}

/* vCPU 1 makes hypercalls and takes itself down, again and again; vCPU 0
 * brings it up as fast as it can and asks about it meanwhile. */
static volatile unsigned downs;

static void down_again_and_again(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < DOWNS; i++) {
        for (int k = 0; k < 10; k++)
            xen_version();
        __atomic_add_fetch(&downs, 1, __ATOMIC_SEQ_CST);
        rt_vcpu_op(VCPUOP_down, 1, NULL);
    }
}

static void attack_down_up_race(const char *name)
{
    struct vcpu_runstate_info rs;
    uint64_t deadline;

    if (!start_others(name, down_again_and_again))
        return;
    deadline = rt_now_ns() + 20000 * RT_NS_PER_MS;
    while (!rt_cpu_wait(1, 0) && rt_now_ns() < deadline) {
        long rc = rt_vcpu_op(VCPUOP_up, 1, NULL);

        wrong_if(rc != 0, "VCPUOP_up", rc);
        rc = rt_vcpu_op(VCPUOP_is_up, 1, NULL);
        wrong_if(rc != 0 && rc != 1, "VCPUOP_is_up", rc);
        rc = rt_vcpu_op(VCPUOP_get_runstate_info, 1, &rs);
        wrong_if(rc != 0, "VCPUOP_get_runstate_info", rc);
    }
    printk("smp_hostile: vCPU 1 went down %u times\n", downs);
    if (nothing_wrong(name) &&
        expect(name, rt_cpu_wait(1, 0), "vCPU 1 went down only %u of %u times in 20 s",
               downs, DOWNS))
        test_pass(name);
}

/* ---- 9. The guest ends while other vCPUs are busy ----------------------- */

static void spin_at_cpl3(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&busy_calls, 1000, __ATOMIC_SEQ_CST);
    for (;;)
        __asm__ volatile("pause");
}

/* Asleep in the Host with no timer and events off: only the end wakes it. */
static void sleep_forever(void *arg)
{
    (void)arg;
    rt_vcpu_info()->evtchn_upcall_mask = 1;
    __atomic_add_fetch(&busy_calls, 1000, __ATOMIC_SEQ_CST);
    for (;;)
        hc_sched_op(SCHEDOP_block, NULL);
}

static void end_while(const char *name, void (*busy)(void *))
{
    if (!start_others(name, busy) || !busy_running(name))
        return;
    rt_nap(20);
    test_pass(name);
    xen_shutdown(SHUTDOWN_poweroff);
}

static void attack_end_busy(const char *name) { end_while(name, busy_hypercalls); }
static void attack_end_spinning(const char *name) { end_while(name, spin_at_cpl3); }
static void attack_end_sleeping(const char *name) { end_while(name, sleep_forever); }

/* The last vCPU going down is the end (Xen's power-off). */
static void attack_end_all_down(const char *name)
{
    marked = false;
    if (!start_others(name, mark) || !join_others(name, 2000))
        return;
    test_pass(name);
    rt_vcpu_op(VCPUOP_down, 0, NULL);
    test_fail(name, "vCPU 0 came back from going down last");
}

static unsigned end_reason;

static void shutdown_from_here(void *arg)
{
    (void)arg;
    rt_nap(20);
    printk("smp_hostile: vCPU %u ends the guest\n", rt_cpu_id());
    xen_shutdown(end_reason);
}

/* vCPU 1 ends the guest while vCPU 0 loops in hypercalls. */
static void end_from_vcpu1(const char *name, unsigned reason)
{
    end_reason = reason;
    if (reason == SHUTDOWN_poweroff)
        test_pass(name);
    if (!start_others(name, shutdown_from_here))
        return;
    for (uint64_t end = rt_now_ns() + 5000 * RT_NS_PER_MS; rt_now_ns() < end;)
        xen_version();
    test_fail(name, "the guest did not end within 5 s");
}

static void attack_end_from_vcpu1(const char *name) { end_from_vcpu1(name, SHUTDOWN_poweroff); }
static void attack_crash_from_vcpu1(const char *name) { end_from_vcpu1(name, SHUTDOWN_crash); }

/* ---- 10. The local APIC at the vCPUs that hold the Host lock -------------- */

#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define ICR_ALL_BUT_SELF (3u << 18)
#define ICR_ASSERT       (1u << 14)
#define ICR_NMI          (4u << 8)
#define ICR_INIT         (5u << 8)

static void apic_to_others(uint32_t mode)
{
    *(volatile uint32_t *)(HOST_APIC_VA + APIC_ICR_HI) = 0;
    *(volatile uint32_t *)(HOST_APIC_VA + APIC_ICR_LO) = mode | ICR_ASSERT | ICR_ALL_BUT_SELF;
}

static struct mmu_update same_entry[256];

/* Long hypercalls, so that the Host lock is mostly held: 256 entries of
 * mmu_update, each setting pte_target's entry to what it is. */
static void busy_in_host(void *arg)
{
    (void)arg;
    while (!stop) {
        hypercall4(HYPERVISOR_mmu_update, (uint64_t)same_entry, 256, 0, DOMID_SELF);
        __atomic_add_fetch(&busy_calls, 1, __ATOMIC_SEQ_CST);
    }
}

/* The others loop in long hypercalls; vCPU 0 sends them mode and goes on
 * making hypercalls itself, which need the lock. */
static void apic_at_busy(const char *name, uint32_t mode)
{
    pte = l1_entry((uint64_t)pte_target, &pte_ma);
    if (!expect(name, pte != NULL, "no L1 entry found for %p", (void *)pte_target))
        return;
    for (unsigned i = 0; i < 256; i++)
        same_entry[i] = (struct mmu_update){ .ptr = pte_ma | MMU_NORMAL_PT_UPDATE, .val = *pte };
    if (!start_others(name, busy_in_host) || !busy_running(name))
        return;
    apic_to_others(mode);
    for (uint64_t end = rt_now_ns() + 5000 * RT_NS_PER_MS; rt_now_ns() < end;)
        xen_version();
    test_fail(name, "perch let the guest go on for 5 s");
}

static void attack_init_lock_holder(const char *name) { apic_at_busy(name, ICR_INIT); }
static void attack_nmi_lock_holder(const char *name) { apic_at_busy(name, ICR_NMI); }

/* ---- Dispatch ------------------------------------------------------------ */

static const struct rt_case attacks[] = {
    { "ctx_host", attack_ctx_host },
    { "ctx_noncanonical", attack_ctx_noncanonical },
    { "ctx_cr3", attack_ctx_cr3 },
    { "ctx_gdt", attack_ctx_gdt },
    { "ctx_selectors", attack_ctx_selectors },
    { "ctx_unreadable", attack_ctx_unreadable },
    { "start_unmapped_rip", attack_start_unmapped_rip },
    { "start_unmapped_rsp", attack_start_unmapped_rsp },
    { "up_running", attack_up_running },
    { "id_range", attack_id_range },
    { "race_pte", attack_race_pte },
    { "race_pin", attack_race_pin },
    { "race_evtchn", attack_race_evtchn },
    { "ipi_storm", attack_ipi_storm },
    { "down_busy", attack_down_busy },
    { "down_up_race", attack_down_up_race },
    { "end_busy", attack_end_busy },
    { "end_spinning", attack_end_spinning },
    { "end_sleeping", attack_end_sleeping },
    { "end_all_down", attack_end_all_down },
    { "end_from_vcpu1", attack_end_from_vcpu1 },
    { "crash_from_vcpu1", attack_crash_from_vcpu1 },
    { "init_lock_holder", attack_init_lock_holder },
    { "nmi_lock_holder", attack_nmi_lock_holder },
};

void guest_main(const struct start_info *si)
{
    const struct rt_case *attack;

    start = si;
    if (!rt_events_init(si))
        return;
    nr_cpus = rt_cpu_count();
    if (nr_cpus > RT_MAX_CPUS)
        nr_cpus = RT_MAX_CPUS;
    if (!expect("cpus", nr_cpus >= 2, "%u vCPU(s): run with --cpus 2 or more", nr_cpus))
        return;
    attack = rt_case_chosen(si, "attack", attacks, sizeof(attacks) / sizeof(attacks[0]));
    if (!attack)
        return;
    printk("smp_hostile: attack %s on %u vCPUs\n", attack->name, nr_cpus);
    attack->fn(attack->name);
}
