/*
 * Unit tests of the Host with several vCPUs: bringing one up
 * (VCPUOP_initialise, up, is_up: host/xen/vcpu_op.c, host/xen/vcpu_context.c) and
 * the contexts it refuses, what only a vCPU itself may do, event channels
 * bound to another vCPU (host/events/evtchn.c) and TLB shootdowns (host/mm/tlb.c).
 *
 * `current` is host_env_cpus[host_env_cpu_now]: vCPU 0 unless a case acts
 * as another. env_send_ipi is this file's own: it counts as host_env.c's
 * does and, when told, plays the target that leaves the guest on the IPI
 * (clears its in_guest), which is what tlb_shootdown() waits for.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#include "../../host/events/evtchn.h"
#include "../../host/core/host_lock.h"
#include "../../host/events/time.h"
#include "../../host/mm/tlb.h"

#define FRAMES      128
#define PRIVATE_MFN 3            /* perch's: below guest_mfn_base */
#define SHINFO_MFN  4
#define GDT_L1_MFN  5            /* vCPU i's GDT L1: GDT_L1_MFN + i */
#define GDT_ZERO    12
#define GUEST_BASE  16
#define VA          0xffffffff80400000ull   /* GUEST_BASE.. for VA_PAGES */
#define VA_PAGES    8
#define CTXT_VA     VA                      /* 5168 bytes: two pages */
#define ARG_VA      (VA + 2 * 4096)         /* small hypercall arguments */
#define GDT_MFN     (GUEST_BASE + 3)        /* zeroed: empty descriptors */
#define VINFO_MFN   (GUEST_BASE + 4)        /* where vCPU 1 moves its vcpu_info */
#define LAST_VA     (VA + (VA_PAGES - 1) * 4096)
#define UNMAPPED_VA (VA + 0x100000)

#define HOLE_VA     0xffff808000000000ull   /* inside Xen's hole */
#define START_RIP   0xffffffff81000100ull
#define START_RSP   0xffffffff81a04000ull
#define KERNEL_SP   0xffffffff81a08000ull
#define EVENT_CB    0xffffffff81001000ull
#define FAILSAFE_CB 0xffffffff81001100ull
#define SYSCALL_CB  0xffffffff81001200ull
#define PF_HANDLER  0xffffffff81002000ull
#define GS_KERNEL   0xffff888003c00000ull
#define FS_BASE     0x00007f0000001000ull
#define START_RDI   0x1234567ull

/* ---- The IPI stand-in ------------------------------------------------------ */

static int ipi_leaves_guest;   /* the target leaves the guest on the IPI */

void env_send_ipi(unsigned cpu, unsigned vector)
{
    host_env_ipis++;
    host_env_ipi_cpu = cpu;
    host_env_ipi_vector = vector;
    if (ipi_leaves_guest)
        __atomic_store_n(&vcpu_of(cpu)->in_guest, false, __ATOMIC_SEQ_CST);
}

/* ---- The TSC stand-in ----------------------------------------------------- */

/* Still (0) unless a case sets tsc_step; at_tsc_call, if set, runs at the
 * call numbered at_tsc_call_n (as another vCPU acting in the meantime). */
static uint64_t tsc_now, tsc_step, tsc_calls, at_tsc_call_n;
static void (*at_tsc_call)(void);

uint64_t env_rdtsc(void)
{
    if (at_tsc_call && ++tsc_calls == at_tsc_call_n)
        at_tsc_call();
    return tsc_now += tsc_step;
}

/* ---- Guest memory -------------------------------------------------------- */

static volatile struct shared_info *si;
static uint64_t l4_1;   /* vCPU 1's kernel L4 (a guest frame): a copy of vCPU 0's */

static void *guest(uint64_t va)
{
    return (uint8_t *)host_env_frame(GUEST_BASE + (va - VA) / 4096) + (va & 0xfff);
}

static void put(uint64_t va, const void *src, size_t len)
{
    memcpy(guest(va), src, len);
}

/*
 * nr vCPUs, vCPU 0 up on the L4 host_env_map() builds (its tables from the
 * top of memory down, all guest frames: guest_nr_pages covers them), VA
 * mapped to GUEST_BASE.., shared_info, each vCPU's GDT L1, no bindings.
 */
static void setup(unsigned nr)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FRAMES - GUEST_BASE;
    host_env_map_range(VA, GUEST_BASE, VA_PAGES, HOST_ENV_RW);
    host_nr_vcpus = nr;
    perch_shared.boot.nr_vcpus = nr;
    for (unsigned i = 0; i < 4; i++)
        perch_shared.boot.gdt_l1_maddr[i] = (GDT_L1_MFN + i) * 4096ull;
    perch_shared.boot.gdt_zero_maddr = GDT_ZERO * 4096ull;
    evtchn_shared_info_mfn = SHINFO_MFN;
    evtchn_init();
    si = host_env_frame(SHINFO_MFN);
    l4_1 = host_env_alloc_frame();
    memcpy(host_env_frame(l4_1), host_env_frame(current->kernel_cr3 >> 12), 4096);
    ipi_leaves_guest = 0;
    tsc_now = tsc_step = tsc_calls = at_tsc_call_n = 0;
    at_tsc_call = NULL;
    optimizations_off = 0;
}

/* What Linux's cpu_initialize_context gives a secondary vCPU. */
static void good_context(struct vcpu_guest_context *c)
{
    memset(c, 0, sizeof(*c));
    c->flags = VGCF_IN_KERNEL | VGCF_online;
    c->user_regs.rip = START_RIP;
    c->user_regs.rsp = START_RSP;
    c->user_regs.rdi = START_RDI;
    c->user_regs.cs = FLAT_KERNEL_CS64;
    c->user_regs.ss = FLAT_KERNEL_SS64;
    c->user_regs.rflags = 0x202 | (1u << 12);   /* IF, IOPL 1 */
    c->trap_ctxt[14] = (struct trap_info){ .vector = 14, .cs = FLAT_KERNEL_CS64,
                                           .address = PF_HANDLER };
    c->gdt_frames[0] = GDT_MFN;
    c->gdt_ents = 16;
    c->kernel_ss = FLAT_KERNEL_SS64;
    c->kernel_sp = KERNEL_SP;
    c->ctrlreg[3] = l4_1 << 12;
    c->event_callback_eip = EVENT_CB;
    c->failsafe_callback_eip = FAILSAFE_CB;
    c->syscall_callback_eip = SYSCALL_CB;
    c->fs_base = FS_BASE;
    c->gs_base_kernel = GS_KERNEL;
}

static long initialise(unsigned id, const struct vcpu_guest_context *c)
{
    put(CTXT_VA, c, sizeof(*c));
    return do_vcpu_op(VCPUOP_initialise, id, CTXT_VA, 0, 0);
}

/* vCPU id initialised with the good context and up. */
static long bring_up(unsigned id)
{
    struct vcpu_guest_context c;
    long rc;

    good_context(&c);
    rc = initialise(id, &c);
    return rc ? rc : do_vcpu_op(VCPUOP_up, id, 0, 0, 0);
}

static long bind_ipi(unsigned vcpu)
{
    struct evtchn_bind_ipi b = { .vcpu = vcpu };
    long rc;

    put(ARG_VA, &b, sizeof(b));
    rc = do_event_channel_op(EVTCHNOP_bind_ipi, ARG_VA, 0, 0, 0);
    memcpy(&b, guest(ARG_VA), sizeof(b));
    return rc ? rc : (long)b.port;
}

static long bind_virq(unsigned virq, unsigned vcpu)
{
    struct evtchn_bind_virq b = { .virq = virq, .vcpu = vcpu };
    long rc;

    put(ARG_VA, &b, sizeof(b));
    rc = do_event_channel_op(EVTCHNOP_bind_virq, ARG_VA, 0, 0, 0);
    memcpy(&b, guest(ARG_VA), sizeof(b));
    return rc ? rc : (long)b.port;
}

static long send(uint32_t port)
{
    put(ARG_VA, &port, sizeof(port));
    return do_event_channel_op(EVTCHNOP_send, ARG_VA, 0, 0, 0);
}

static long status(uint32_t port, struct evtchn_status *s)
{
    memset(s, 0, sizeof(*s));
    s->dom = DOMID_SELF;
    s->port = port;
    put(ARG_VA, s, sizeof(*s));
    if (do_event_channel_op(EVTCHNOP_status, ARG_VA, 0, 0, 0))
        return -1;
    memcpy(s, guest(ARG_VA), sizeof(*s));
    return 0;
}

static long bind_vcpu(uint32_t port, uint32_t vcpu)
{
    struct evtchn_bind_vcpu b = { .port = port, .vcpu = vcpu };

    put(ARG_VA, &b, sizeof(b));
    return do_event_channel_op(EVTCHNOP_bind_vcpu, ARG_VA, 0, 0, 0);
}

static long register_vcpu_info(unsigned id, uint64_t mfn, uint32_t offset)
{
    struct vcpu_register_vcpu_info r = { .mfn = mfn, .offset = offset };

    put(ARG_VA, &r, sizeof(r));
    return do_vcpu_op(VCPUOP_register_vcpu_info, id, ARG_VA, 0, 0);
}

static int port_pending(unsigned port)
{
    return (int)((si->evtchn_pending[port / 64] >> (port % 64)) & 1);
}

/* ---- 1. is_up, and up before initialise ------------------------------------ */

static void is_up_answers_per_vcpu(void)
{
    setup(2);
    CHECK(do_vcpu_op(VCPUOP_is_up, 0, 0, 0, 0) == 1);
    CHECK(do_vcpu_op(VCPUOP_is_up, 1, 0, 0, 0) == 0);
    CHECK(do_vcpu_op(VCPUOP_is_up, 2, 0, 0, 0) == -XEN_ENOENT);
    CHECK(do_vcpu_op(VCPUOP_is_up, 64, 0, 0, 0) == -XEN_ENOENT);
    setup(4);
    CHECK(do_vcpu_op(VCPUOP_is_up, 3, 0, 0, 0) == 0);
    CHECK(do_vcpu_op(VCPUOP_is_up, 4, 0, 0, 0) == -XEN_ENOENT);
}

static void up_before_initialise_einval(void)
{
    setup(2);
    CHECK(do_vcpu_op(VCPUOP_up, 1, 0, 0, 0) == -XEN_EINVAL);
    CHECK(vcpu_of(1)->state == VCPU_OFF);
    CHECK(host_env_ipis == 0);
    CHECK(do_vcpu_op(VCPUOP_is_up, 1, 0, 0, 0) == 0);
    CHECK(do_vcpu_op(VCPUOP_up, 2, 0, 0, 0) == -XEN_ENOENT);
}

/* ---- 2. A good context ---------------------------------------------------- */

static void initialise_takes_good_context(void)
{
    struct vcpu_guest_context c;
    const struct vcpu *v;

    setup(2);
    v = vcpu_of(1);
    good_context(&c);
    CHECK(initialise(1, &c) == 0);
    CHECK(v->state == VCPU_DOWN);
    CHECK(v->start.rip == START_RIP && v->start.rsp == START_RSP);
    CHECK(v->start.rdi == START_RDI);
    CHECK(v->start.cs == FLAT_KERNEL_CS64 && v->start.ss == FLAT_KERNEL_SS64);
    CHECK(v->start.rflags == c.user_regs.rflags);
    CHECK(v->event_callback == EVENT_CB);
    CHECK(v->failsafe_callback == FAILSAFE_CB);
    CHECK(v->syscall_callback == SYSCALL_CB);
    CHECK(v->traps[14].address == PF_HANDLER);
    CHECK(v->kernel_sp == KERNEL_SP && v->kernel_ss == FLAT_KERNEL_SS64);
    CHECK(v->gs_base_kernel == GS_KERNEL && v->fs_base == FS_BASE);
    CHECK(v->iopl == 1);
    CHECK(v->kernel_cr3 == l4_1 << 12);
    CHECK((((uint64_t *)host_env_frame(GDT_L1_MFN + 1))[0] & PTE_ADDR_MASK) ==
          GDT_MFN * 4096ull);
    CHECK(((uint64_t *)host_env_frame(GDT_L1_MFN))[0] == 0);   /* not vCPU 0's */
    CHECK(host_env_ipis == 0);
    CHECK(do_vcpu_op(VCPUOP_is_up, 1, 0, 0, 0) == 0);
    /* vCPU 0 is left as it was. */
    CHECK(current->event_callback == 0 && current->kernel_sp == 0);
}

static void initialise_twice_eexist(void)
{
    struct vcpu_guest_context c;

    setup(2);
    good_context(&c);
    CHECK(initialise(1, &c) == 0);
    c.user_regs.rip = START_RIP + 0x100;
    CHECK(initialise(1, &c) == -XEN_EEXIST);
    CHECK(vcpu_of(1)->start.rip == START_RIP);
    CHECK(initialise(0, &c) == -XEN_EEXIST);   /* vCPU 0 runs */
}

static void up_sends_one_ipi(void)
{
    struct vcpu_guest_context c;

    setup(3);
    good_context(&c);
    CHECK(initialise(2, &c) == 0);
    CHECK(do_vcpu_op(VCPUOP_up, 2, 0, 0, 0) == 0);
    CHECK(vcpu_of(2)->state == VCPU_UP);
    CHECK(vcpu_of(1)->state == VCPU_OFF);
    CHECK(host_env_ipis == 1);
    CHECK(host_env_ipi_cpu == 2 && host_env_ipi_vector == PERCH_IPI_VECTOR);
    CHECK(do_vcpu_op(VCPUOP_is_up, 2, 0, 0, 0) == 1);
    CHECK(do_vcpu_op(VCPUOP_is_up, 1, 0, 0, 0) == 0);
    /* Already up: nothing more to wake. */
    CHECK(do_vcpu_op(VCPUOP_up, 2, 0, 0, 0) == 0);
    CHECK(host_env_ipis == 1);
    CHECK(initialise(2, &c) == -XEN_EEXIST);
}

/* Two secondaries on one L4, vCPU 0's own (Linux's swapper_pg_dir). */
static void initialise_shares_vcpu0_l4(void)
{
    struct vcpu_guest_context c;

    setup(3);
    good_context(&c);
    c.ctrlreg[3] = current->kernel_cr3;
    CHECK(initialise(1, &c) == 0);
    CHECK(initialise(2, &c) == 0);
    CHECK(vcpu_of(1)->kernel_cr3 == current->kernel_cr3);
    CHECK(vcpu_of(2)->kernel_cr3 == current->kernel_cr3);
}

/* ---- 3. Hostile contexts -------------------------------------------------- */

static void cs_perch_ring0(struct vcpu_guest_context *c) { c->user_regs.cs = SW_CS0_SEL; }
static void cs_null(struct vcpu_guest_context *c) { c->user_regs.cs = 0; }
static void ss_perch_ring0(struct vcpu_guest_context *c) { c->user_regs.ss = SW_DS0_SEL; }
static void kernel_ss_perch(struct vcpu_guest_context *c) { c->kernel_ss = SW_DS0_SEL; }
static void kernel_ss_wide(struct vcpu_guest_context *c) { c->kernel_ss = 0x10000 | FLAT_KERNEL_SS64; }
static void rsp_in_hole(struct vcpu_guest_context *c) { c->user_regs.rsp = HOLE_VA; }
static void rip_in_hole(struct vcpu_guest_context *c) { c->user_regs.rip = HOLE_VA; }
static void rip_noncanonical(struct vcpu_guest_context *c) { c->user_regs.rip = 1ull << 47; }
static void kernel_sp_in_hole(struct vcpu_guest_context *c) { c->kernel_sp = HOLE_VA; }
static void gdt_frame_perch(struct vcpu_guest_context *c) { c->gdt_frames[0] = PRIVATE_MFN; }
static void gdt_frame_past_memory(struct vcpu_guest_context *c) { c->gdt_frames[0] = FRAMES; }
static void gdt_too_many(struct vcpu_guest_context *c) { c->gdt_ents = FIRST_RESERVED_GDT_ENTRY + 1; }
static void not_in_kernel(struct vcpu_guest_context *c) { c->flags &= ~(uint64_t)VGCF_IN_KERNEL; }
static void ldt_ents(struct vcpu_guest_context *c) { c->ldt_ents = 1; }
static void event_cb_in_hole(struct vcpu_guest_context *c) { c->event_callback_eip = HOLE_VA; }
static void failsafe_in_hole(struct vcpu_guest_context *c) { c->failsafe_callback_eip = HOLE_VA; }
static void syscall_cb_in_hole(struct vcpu_guest_context *c) { c->syscall_callback_eip = HOLE_VA; }
static void trap_in_hole(struct vcpu_guest_context *c) { c->trap_ctxt[3].address = HOLE_VA; }
static void gs_noncanonical(struct vcpu_guest_context *c) { c->gs_base_kernel = 1ull << 47; }
static void user_l4_given(struct vcpu_guest_context *c) { c->ctrlreg[1] = l4_1 << 12; }
static void l4_perch(struct vcpu_guest_context *c) { c->ctrlreg[3] = PRIVATE_MFN << 12; }
static void l4_none(struct vcpu_guest_context *c) { c->ctrlreg[3] = 0; }
/* vCPU 0's user L4 (it has one here): never also a kernel one. */
static void l4_vcpu0_user(struct vcpu_guest_context *c) { c->ctrlreg[3] = (GUEST_BASE + 5) << 12; }

static const struct {
    const char *name;
    void (*spoil)(struct vcpu_guest_context *);
} hostile[] = {
    { "cs 0xe008", cs_perch_ring0 },
    { "cs 0", cs_null },
    { "ss 0xe010", ss_perch_ring0 },
    { "kernel_ss 0xe010", kernel_ss_perch },
    { "kernel_ss > 0xffff", kernel_ss_wide },
    { "rsp in the hole", rsp_in_hole },
    { "rip in the hole", rip_in_hole },
    { "rip non-canonical", rip_noncanonical },
    { "kernel_sp in the hole", kernel_sp_in_hole },
    { "GDT frame perch's", gdt_frame_perch },
    { "GDT frame past memory", gdt_frame_past_memory },
    { "GDT too many entries", gdt_too_many },
    { "no VGCF_IN_KERNEL", not_in_kernel },
    { "ldt_ents 1", ldt_ents },
    { "event callback in the hole", event_cb_in_hole },
    { "failsafe callback in the hole", failsafe_in_hole },
    { "syscall callback in the hole", syscall_cb_in_hole },
    { "trap handler in the hole", trap_in_hole },
    { "gs_base_kernel non-canonical", gs_noncanonical },
    { "a user L4", user_l4_given },
    { "L4 perch's", l4_perch },
    { "no L4", l4_none },
    { "L4 vCPU 0's user one", l4_vcpu0_user },
};

/* Each refused with -EINVAL, the vCPU left off (no L4 taken, no IPI, not
 * up-able); then the good context is taken: the spoiled field was why. */
static void hostile_contexts_einval(void)
{
    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        struct vcpu_guest_context c;
        const struct vcpu *v;
        long rc;

        setup(2);
        v = vcpu_of(1);
        current->user_cr3 = (GUEST_BASE + 5) << 12;
        good_context(&c);
        hostile[i].spoil(&c);
        rc = initialise(1, &c);
        if (rc != -XEN_EINVAL || v->state != VCPU_OFF || v->kernel_cr3 != 0) {
            printf("FAIL %s: %s: rc %ld, state %d\n", check_case_name,
                   hostile[i].name, rc, (int)v->state);
            check_case_failed = 1;
            return;
        }
        CHECK(do_vcpu_op(VCPUOP_up, 1, 0, 0, 0) == -XEN_EINVAL);
        CHECK(host_env_ipis == 0);
        good_context(&c);
        CHECK(initialise(1, &c) == 0);
        CHECK(v->state == VCPU_DOWN);
    }
}

static void unreadable_context_efault(void)
{
    struct vcpu_guest_context c;

    setup(2);
    good_context(&c);
    put(CTXT_VA, &c, sizeof(c));
    CHECK(do_vcpu_op(VCPUOP_initialise, 1, UNMAPPED_VA, 0, 0) == -XEN_EFAULT);
    CHECK(vcpu_of(1)->state == VCPU_OFF);
    /* Its first page readable, the rest not. */
    CHECK(do_vcpu_op(VCPUOP_initialise, 1, LAST_VA, 0, 0) == -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_initialise, 1, HOLE_VA, 0, 0) == -XEN_EFAULT);
    CHECK(vcpu_of(1)->state == VCPU_OFF && vcpu_of(1)->kernel_cr3 == 0);
    CHECK(do_vcpu_op(VCPUOP_initialise, 1, CTXT_VA, 0, 0) == 0);
}

/* ---- 4. What only the vCPU itself may do ---------------------------------- */

static void others_timer_and_down_einval(void)
{
    struct vcpu_set_singleshot_timer t = { .timeout_abs_ns = 5000000 };

    setup(2);
    CHECK(bring_up(1) == 0);
    put(ARG_VA, &t, sizeof(t));
    CHECK(do_vcpu_op(VCPUOP_set_singleshot_timer, 1, ARG_VA, 0, 0) == -XEN_EINVAL);
    CHECK(vcpu_of(1)->timer.guest_deadline == 0);
    CHECK(current->timer.guest_deadline == 0);
    CHECK(do_vcpu_op(VCPUOP_stop_singleshot_timer, 1, 0, 0, 0) == -XEN_EINVAL);
    CHECK(do_vcpu_op(VCPUOP_down, 1, 0, 0, 0) == -XEN_EINVAL);
    CHECK(vcpu_of(1)->state == VCPU_UP);
    CHECK(host_env_nr_requests == 0);   /* no poweroff either */
    /* vCPU 1 on itself: its own timer is its to use. */
    host_env_cpu_now = 1;
    CHECK(do_vcpu_op(VCPUOP_set_singleshot_timer, 1, ARG_VA, 0, 0) == 0);
    CHECK(vcpu_of(1)->timer.guest_deadline == 5000000);
    CHECK(do_vcpu_op(VCPUOP_stop_singleshot_timer, 1, 0, 0, 0) == 0);
    CHECK(vcpu_of(1)->timer.guest_deadline == 0);
    CHECK(do_vcpu_op(VCPUOP_set_singleshot_timer, 0, ARG_VA, 0, 0) == -XEN_EINVAL);
    CHECK(do_vcpu_op(VCPUOP_down, 0, 0, 0, 0) == -XEN_EINVAL);
    CHECK(vcpu_of(0)->state == VCPU_UP);
}

/* ---- 5. Event channels ------------------------------------------------------- */

static void ipi_port_for_vcpu1(void)
{
    struct evtchn_status s;
    volatile struct vcpu_info *vi0, *vi1;
    long port;

    setup(2);
    vi0 = evtchn_vcpu_info_of(0);
    vi1 = evtchn_vcpu_info_of(1);
    CHECK(vi0 == &si->vcpu_info[0] && vi1 == &si->vcpu_info[1]);
    port = bind_ipi(1);
    CHECK(port > 0);
    CHECK(status((uint32_t)port, &s) == 0);
    CHECK(s.status == EVTCHNSTAT_ipi && s.vcpu == 1);
    CHECK(host_env_ipis == 0);
    CHECK(send((uint32_t)port) == 0);
    CHECK(port_pending((unsigned)port));
    CHECK(vi1->evtchn_upcall_pending == 1);
    CHECK(vi1->evtchn_pending_sel & (1ull << (port / 64)));
    CHECK(vi0->evtchn_upcall_pending == 0 && vi0->evtchn_pending_sel == 0);
    CHECK(host_env_ipis == 1);
    CHECK(host_env_ipi_cpu == 1 && host_env_ipi_vector == PERCH_IPI_VECTOR);
    /* Still pending: nothing new to tell vCPU 1. */
    CHECK(send((uint32_t)port) == 0);
    CHECK(host_env_ipis == 1);
}

/* An IPI port of vCPU 0's own, sent from vCPU 0: no IPI; from vCPU 1: one,
 * to vCPU 0. */
static void ipi_port_for_self_and_from_other(void)
{
    long port;

    setup(2);
    port = bind_ipi(0);
    CHECK(port > 0);
    CHECK(send((uint32_t)port) == 0);
    CHECK(port_pending((unsigned)port));
    CHECK(si->vcpu_info[0].evtchn_upcall_pending == 1);
    CHECK(host_env_ipis == 0);
    si->evtchn_pending[0] = 0;
    si->vcpu_info[0].evtchn_upcall_pending = 0;
    si->vcpu_info[0].evtchn_pending_sel = 0;
    CHECK(bring_up(1) == 0);
    host_env_ipis = 0;
    host_env_cpu_now = 1;   /* vCPU 1, on l4_1: the same mappings */
    CHECK(send((uint32_t)port) == 0);
    CHECK(si->vcpu_info[0].evtchn_upcall_pending == 1);
    CHECK(si->vcpu_info[1].evtchn_upcall_pending == 0);
    CHECK(host_env_ipis == 1 && host_env_ipi_cpu == 0);
}

/* An event for a vCPU that spins before it sleeps moves its wake_seq and
 * sends no IPI; once it has stopped spinning, the next event sends one. */
static void event_to_spinning_vcpu_needs_no_ipi(void)
{
    uint64_t seq;
    long port;

    setup(2);
    port = bind_ipi(1);
    CHECK(port > 0);
    seq = vcpu_of(1)->wake_seq;
    vcpu_of(1)->idle_spinning = true;
    CHECK(send((uint32_t)port) == 0);
    CHECK(si->vcpu_info[1].evtchn_upcall_pending == 1);
    CHECK(vcpu_of(1)->wake_seq == seq + 1);
    CHECK(host_env_ipis == 0);
    CHECK(perch_shared.stats.ipis_spared == 1);
    vcpu_of(1)->idle_spinning = false;
    si->evtchn_pending[0] = 0;
    CHECK(send((uint32_t)port) == 0);
    CHECK(host_env_ipis == 1 && host_env_ipi_cpu == 1);
    CHECK(perch_shared.stats.ipis_spared == 1);
}

/* With nothing sent, the spin lasts its 200 us of TSC and no more, and
 * leaves the vCPU marked as not spinning. */
static void spin_before_sleep_ends_in_time(void)
{
    setup(2);
    time_tsc_khz = 1000;   /* 200 us: 200 cycles */
    tsc_step = 10;
    evtchn_spin_before_sleep();
    CHECK(tsc_now >= 200 && tsc_now <= 230);
    CHECK(!current->idle_spinning);
    CHECK(perch_shared.vcpu_stats[0].idle_spins == 1);
    CHECK(perch_shared.vcpu_stats[0].idle_spins_woken == 0);
    CHECK(perch_shared.vcpu_stats[0].asleep_cycles >= 200);
}

/* vCPU 1 sends vCPU 0 an event while vCPU 0 spins (at its third look at
 * the TSC): the spin ends then, and vCPU 1 sent no IPI. */
static long spin_port;

static void vcpu1_sends(void)
{
    CHECK(current->idle_spinning);
    host_env_cpu_now = 1;
    CHECK(send((uint32_t)spin_port) == 0);
    host_env_cpu_now = 0;
}

static void spin_before_sleep_ends_at_an_event(void)
{
    setup(2);
    spin_port = bind_ipi(0);
    CHECK(spin_port > 0);
    CHECK(bring_up(1) == 0);
    host_env_ipis = 0;
    time_tsc_khz = 1000;
    tsc_step = 1;
    at_tsc_call = vcpu1_sends;
    at_tsc_call_n = 3;
    evtchn_spin_before_sleep();
    CHECK(tsc_now < 10);
    CHECK(host_env_ipis == 0);
    CHECK(si->vcpu_info[0].evtchn_upcall_pending == 1);
    CHECK(perch_shared.vcpu_stats[0].idle_spins_woken == 1);
    CHECK(!current->idle_spinning);
}

/* One vCPU, or --no-idle-spin: no spin at all. */
static void no_spin_alone_or_switched_off(void)
{
    setup(1);
    tsc_step = 1;
    evtchn_spin_before_sleep();
    CHECK(tsc_now == 0 && perch_shared.vcpu_stats[0].idle_spins == 0);
    setup(2);
    tsc_step = 1;
    optimizations_off = PERCH_OPT_IDLE_SPIN;
    evtchn_spin_before_sleep();
    CHECK(tsc_now == 0);
    CHECK(perch_shared.vcpu_stats[0].idle_spins == 0);
}

static void bind_ipi_past_nr_enoent(void)
{
    setup(2);
    CHECK(bind_ipi(2) == -XEN_ENOENT);
    CHECK(bind_ipi(64) == -XEN_ENOENT);
    CHECK(bind_ipi(1) > 0);
}

static void virq_timer_per_vcpu(void)
{
    struct evtchn_status s;
    long p1, p0;

    setup(2);
    p1 = bind_virq(VIRQ_TIMER, 1);
    p0 = bind_virq(VIRQ_TIMER, 0);
    CHECK(p1 > 0 && p0 > 0 && p1 != p0);
    CHECK(status((uint32_t)p1, &s) == 0);
    CHECK(s.status == EVTCHNSTAT_virq && s.u.virq == VIRQ_TIMER && s.vcpu == 1);
    CHECK(status((uint32_t)p0, &s) == 0);
    CHECK(s.status == EVTCHNSTAT_virq && s.vcpu == 0);
    CHECK(bind_virq(VIRQ_TIMER, 1) == -XEN_EEXIST);
    CHECK(bind_virq(VIRQ_TIMER, 2) == -XEN_ENOENT);
    /* vCPU 0's timer raises its own port only. */
    evtchn_raise_virq(VIRQ_TIMER);
    CHECK(port_pending((unsigned)p0) && !port_pending((unsigned)p1));
    CHECK(host_env_ipis == 0);
    /* vCPU 1's, raised on vCPU 1. */
    host_env_cpu_now = 1;
    evtchn_raise_virq(VIRQ_TIMER);
    CHECK(port_pending((unsigned)p1));
    CHECK(si->vcpu_info[1].evtchn_upcall_pending == 1);
    CHECK(host_env_ipis == 0);
}

static void global_virq_on_vcpu1_einval(void)
{
    setup(2);
    CHECK(bind_virq(VIRQ_CONSOLE, 1) == -XEN_EINVAL);
    CHECK(bind_virq(VIRQ_DOM_EXC, 1) == -XEN_EINVAL);
    CHECK(bind_virq(VIRQ_CONSOLE, 0) > 0);
}

static void bind_vcpu_of_ipi_port_einval(void)
{
    struct evtchn_status s;
    long ipi, global;

    setup(2);
    ipi = bind_ipi(0);
    CHECK(ipi > 0);
    CHECK(bind_vcpu((uint32_t)ipi, 1) == -XEN_EINVAL);
    CHECK(status((uint32_t)ipi, &s) == 0 && s.vcpu == 0);
    ipi = bind_ipi(1);
    CHECK(bind_vcpu((uint32_t)ipi, 0) == -XEN_EINVAL);
    CHECK(status((uint32_t)ipi, &s) == 0 && s.vcpu == 1);
    /* A global virq may move. */
    global = bind_virq(VIRQ_CONSOLE, 0);
    CHECK(global > 0);
    CHECK(bind_vcpu((uint32_t)global, 1) == 0);
    CHECK(status((uint32_t)global, &s) == 0 && s.vcpu == 1);
    CHECK(bind_vcpu((uint32_t)global, 2) == -XEN_ENOENT);
}

/* vCPU 1 is off, as when Linux registers a secondary's vcpu_info. */
static void register_vcpu_info_moves_only_that_vcpu(void)
{
    volatile struct vcpu_info *moved = (volatile struct vcpu_info *)
        ((uint8_t *)host_env_frame(VINFO_MFN) + 0x40);
    long port;

    setup(2);
    si->vcpu_info[1].evtchn_upcall_mask = 1;
    CHECK(register_vcpu_info(1, VINFO_MFN, 0x40) == 0);
    CHECK(evtchn_state.vcpu_info_maddr[1] == VINFO_MFN * 4096ull + 0x40);
    CHECK(evtchn_state.vcpu_info_maddr[0] == 0);
    CHECK(evtchn_vcpu_info_of(1) == moved);
    CHECK(evtchn_vcpu_info_of(0) == &si->vcpu_info[0]);
    CHECK(moved->evtchn_upcall_mask == 1);   /* the old one's contents */
    CHECK(register_vcpu_info(1, VINFO_MFN, 0x80) == -XEN_EINVAL);
    /* vCPU 1's events now land in the new one. */
    moved->evtchn_upcall_pending = 0;
    moved->evtchn_pending_sel = 0;
    si->vcpu_info[1].evtchn_upcall_pending = 0;
    port = bind_ipi(1);
    CHECK(send((uint32_t)port) == 0);
    CHECK(moved->evtchn_upcall_pending == 1);
    CHECK(si->vcpu_info[1].evtchn_upcall_pending == 0);
    CHECK(si->vcpu_info[0].evtchn_upcall_pending == 0);
    /* vCPU 0 still may move its own. */
    CHECK(register_vcpu_info(0, VINFO_MFN, 0x100) == 0);
    CHECK(evtchn_vcpu_info_of(1) == moved);
}

/* ---- 6. TLB shootdowns -------------------------------------------------------- */

static void flush_vcpus_then_shootdown(void)
{
    setup(3);
    vcpu_of(1)->in_guest = false;
    tlb_flush_vcpus(1ull << 1);
    CHECK(current->shootdown == 1ull << 1);
    CHECK(!(vcpu_of(1)->pending & PENDING_TLB_FLUSH));
    CHECK(!(current->pending & PENDING_TLB_FLUSH));   /* not asked, nothing stale */
    tlb_shootdown();
    CHECK(current->shootdown == 0);
    CHECK(vcpu_of(1)->pending & PENDING_TLB_FLUSH);
    CHECK(!(vcpu_of(2)->pending & PENDING_TLB_FLUSH));
    CHECK(!(current->pending & PENDING_TLB_FLUSH));
    CHECK(host_env_ipis == 0);   /* not in the guest: nothing to interrupt */
    CHECK(perch_shared.stats.tlb_shootdowns == 1);
    tlb_shootdown();   /* nothing owed: nothing done */
    CHECK(perch_shared.stats.tlb_shootdowns == 1);
}

/* The target runs guest code: it is sent an IPI and waited for until it
 * leaves (the stand-in leaves at once); one that does not run is not. */
static void shootdown_interrupts_vcpu_in_guest(void)
{
    setup(3);
    ipi_leaves_guest = 1;
    vcpu_of(1)->in_guest = false;
    vcpu_of(2)->in_guest = true;
    tlb_flush_vcpus((1ull << 1) | (1ull << 2));
    tlb_shootdown();
    CHECK(host_env_ipis == 1);
    CHECK(host_env_ipi_cpu == 2 && host_env_ipi_vector == PERCH_IPI_VECTOR);
    CHECK(!vcpu_of(2)->in_guest);
    CHECK(vcpu_of(1)->pending & PENDING_TLB_FLUSH);
    CHECK(vcpu_of(2)->pending & PENDING_TLB_FLUSH);
}

/* Kernel text rewritten (insn_patch.c): every other vCPU serializes before
 * guest code. One in the guest is kicked out of it (the interrupt
 * serializes); one in the Host executes env_serialize on its way out,
 * once. */
static void text_rewrite_serializes_the_others(void)
{
    setup(3);
    ipi_leaves_guest = 1;
    vcpu_of(1)->in_guest = false;
    vcpu_of(2)->in_guest = true;
    host_sync_others();
    CHECK(host_env_ipis == 1 && host_env_ipi_cpu == 2 && !vcpu_of(2)->in_guest);
    CHECK(vcpu_of(1)->must_serialize && vcpu_of(2)->must_serialize);
    CHECK(!current->must_serialize);
    host_env_cpu_now = 1;
    host_enter();
    host_leave(true);
    CHECK(host_env_serialized == 1 && !current->must_serialize && current->in_guest);
    host_enter();
    host_leave(true);
    CHECK(host_env_serialized == 1);
}

/*
 * An interrupt that finds a vCPU's Host on its way out, after it set
 * in_guest and let the lock go, gives in_guest back: that code goes on
 * into the guest, so another vCPU's shootdown must still interrupt it
 * and wait. (Left false, the shootdown skipped it and its stale TLB
 * outlived the kernel's flush: the SMP torture's wrong answers.)
 */
static void interrupt_on_the_way_out_keeps_in_guest(void)
{
    struct cpu_regs r;

    setup(2);
    CHECK(bring_up(1) == 0);
    host_env_cpu_now = 1;
    __atomic_store_n(&current->in_guest, true, __ATOMIC_SEQ_CST);
    memset(&r, 0, sizeof(r));
    r.vector = PERCH_TIMER_VECTOR + 1;
    r.rip = PERCH_REGION_VA + 0x100;
    r.cs = FLAT_KERNEL_CS64;
    CHECK(HOST_ENV_EXPECT_STOP(host_interrupt_cpl3(&r)));
    CHECK(vcpu_of(1)->in_guest);
    CHECK(current->lock_levels == 0 && current->guest_levels == 0);
    host_env_cpu_now = 0;
    host_env_ipis = 0;
    ipi_leaves_guest = 1;
    tlb_flush_vcpus(1ull << 1);
    tlb_shootdown();
    CHECK(host_env_ipis == 1 && host_env_ipi_cpu == 1);
    CHECK(vcpu_of(1)->pending & PENDING_TLB_FLUSH);
}

/* Back into Host code that had not left (a hypercall at work), the entry
 * leaves in_guest as it found it: false, the lock still the hypercall's. */
static void interrupt_inside_a_hypercall_keeps_it_out(void)
{
    struct cpu_regs r;

    bool in_guest, outer_levels;

    setup(2);
    __atomic_store_n(&current->in_guest, true, __ATOMIC_SEQ_CST);   /* guest code */
    host_enter();   /* the hypercall the interrupt finds */
    memset(&r, 0, sizeof(r));
    r.vector = PERCH_TIMER_VECTOR + 1;
    r.rip = PERCH_REGION_VA + 0x100;
    r.cs = FLAT_KERNEL_CS64;
    CHECK(HOST_ENV_EXPECT_STOP(host_interrupt_cpl3(&r)));
    in_guest = current->in_guest;
    outer_levels = current->lock_levels == 1 && current->guest_levels == 1;
    host_leave(true);   /* before any CHECK, which may end the case */
    CHECK(!in_guest && outer_levels);
    CHECK(current->in_guest && current->lock_levels == 0 && current->guest_levels == 0);
}

static void flush_vcpus_ignores_absent_ones(void)
{
    setup(2);
    tlb_flush_vcpus(~0ull);
    CHECK(current->shootdown == 1ull << 1);
    tlb_flush_vcpus(1ull << 5);
    CHECK(current->shootdown == 1ull << 1);
}

static void upper_level_change_shoots_down_all_others(void)
{
    const uint64_t old = (40ull << 12) | PTE_P | PTE_RW | PTE_US | PTE_A;

    setup(4);
    host_env_cpu_now = 2;
    tlb_note_change(old, (41ull << 12) | PTE_P | PTE_RW | PTE_US | PTE_A, 2);
    CHECK(current->shootdown == ((1ull << 0) | (1ull << 1) | (1ull << 3)));
    CHECK(current->pending & PENDING_TLB_FLUSH);
    CHECK(vcpu_of(0)->shootdown == 0);
    /* Seen at once by KVM (a new mapping, or only write access added):
     * nothing owed. */
    setup(4);
    tlb_note_change(0, old, 3);
    tlb_note_change(old & ~PTE_RW, old, 2);
    tlb_note_change(old, old, 4);
    CHECK(current->shootdown == 0);
    CHECK(!(current->pending & PENDING_TLB_FLUSH));
}

static void l1_change_stales_every_vcpu(void)
{
    const uint64_t old = (40ull << 12) | PTE_P | PTE_RW | PTE_US | PTE_A;

    setup(3);
    tlb_note_change(old, old & ~PTE_RW, 1);
    for (unsigned i = 0; i < 3; i++)
        CHECK(vcpu_of(i)->tlb_stale);
    CHECK(!vcpu_of(3)->tlb_stale);
    CHECK(current->shootdown == 0);   /* left for the guest's flush request */
    CHECK(!(vcpu_of(1)->pending & PENDING_TLB_FLUSH));
}

/* ---- 7. One vCPU: no IPI ever ----------------------------------------------- */

static void one_vcpu_sends_no_ipi(void)
{
    const uint64_t old = (40ull << 12) | PTE_P | PTE_RW | PTE_US | PTE_A;
    struct vcpu_guest_context c;
    long ipi, timer;

    setup(1);
    ipi_leaves_guest = 1;
    good_context(&c);
    CHECK(initialise(1, &c) == -XEN_ENOENT);
    CHECK(do_vcpu_op(VCPUOP_up, 1, 0, 0, 0) == -XEN_ENOENT);
    CHECK(do_vcpu_op(VCPUOP_up, 0, 0, 0, 0) == 0);
    CHECK(bind_ipi(1) == -XEN_ENOENT);
    ipi = bind_ipi(0);
    CHECK(ipi > 0);
    CHECK(send((uint32_t)ipi) == 0);
    CHECK(port_pending((unsigned)ipi));
    timer = bind_virq(VIRQ_TIMER, 0);
    CHECK(timer > 0);
    evtchn_raise_virq(VIRQ_TIMER);
    CHECK(port_pending((unsigned)timer));
    CHECK(bind_virq(VIRQ_TIMER, 1) == -XEN_ENOENT);
    vcpu_of(1)->in_guest = true;   /* a stray flag on a vCPU that is not there */
    tlb_flush_vcpus(~0ull);
    tlb_note_change(old, (41ull << 12) | PTE_P | PTE_US, 2);
    CHECK(current->shootdown == 0);
    tlb_flush_everywhere();
    CHECK(current->shootdown == 0);
    tlb_shootdown();
    CHECK(perch_shared.stats.tlb_shootdowns == 0);
    CHECK(!(vcpu_of(1)->pending & PENDING_TLB_FLUSH));
    CHECK(host_env_ipis == 0);
}

/* ---- 7. Where a `syscall` lands ------------------------------------------- */

/* The frame of an exception at rip in a `syscall` entry, the guest's
 * registers as `syscall` left them: set_segment_base(SEGBASE_FS, base). */
static struct cpu_regs syscall_exception(uint64_t rip, uint64_t base)
{
    struct cpu_regs r;

    memset(&r, 0, sizeof(r));
    r.rip = rip;
    r.cs = FLAT_KERNEL_CS64;
    r.rflags = 0x202;
    r.rsp = START_RSP;
    r.ss = FLAT_KERNEL_SS64;
    r.vector = 6;
    r.rcx = START_RIP;
    r.r11 = 0x246;
    r.rax = HYPERVISOR_set_segment_base;
    r.rdi = SEGBASE_FS;
    r.rsi = base;
    return r;
}

/* An entry unsure of its vCPU (host/env/entry.S) ends in its ud2: the
 * hypercall is made for the vCPU that took the #UD, whichever vCPU's
 * entry it was, and returns to the guest's rcx. */
static void unsure_entry_serves_the_vcpu_that_took_its_ud(void)
{
    uint64_t vcpu0_entry = host_env_syscall_entry + SYSCALL_ENTRY_UNSURE;
    struct cpu_regs r;

    setup(2);
    CHECK(bring_up(1) == 0);
    host_env_cpu_now = 1;
    current->in_kernel = true;   /* as once it runs its kernel */
    r = syscall_exception(vcpu0_entry, 0x7000);
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));
    CHECK(host_env_nr_requests == 0);
    CHECK(vcpu_of(1)->fs_base == 0x7000 && vcpu_of(0)->fs_base != 0x7000);
    CHECK(perch_shared.stats.syscalls_redirected == 1);
    CHECK(perch_shared.stats.hypercalls[HYPERVISOR_set_segment_base] == 1);
    CHECK(host_env_exit_regs.rip == START_RIP && host_env_exit_regs.rax == 0);
    CHECK(host_env_exit_regs.rsp == START_RSP);
    CHECK(current->lock_levels == 0);   /* one entry, one way out: the lock let go */
    if (current->lock_levels)
        return;   /* vCPU 0 would wait for the lock for ever */
    host_env_cpu_now = 0;
    r = syscall_exception(vcpu0_entry + SYSCALL_ENTRY_STRIDE, 0x8000);   /* vCPU 1's */
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));
    CHECK(vcpu_of(0)->fs_base == 0x8000 && vcpu_of(1)->fs_base == 0x7000);
    CHECK(perch_shared.stats.syscalls_redirected == 2);
    CHECK(current->lock_levels == 0);
}

/* The same when the hypercall leaves through guest_resume itself (an
 * event due on the way out): the exception's one entry lets the lock go,
 * or every other vCPU would wait for it for ever. */
static void unsure_entry_leaving_by_resume_lets_the_lock_go(void)
{
    struct cpu_regs r;

    setup(2);
    current->pending |= PENDING_TLB_FLUSH;
    r = syscall_exception(host_env_syscall_entry + SYSCALL_ENTRY_UNSURE, 0x7000);
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));
    CHECK(host_env_nr_requests == 0 && current->fs_base == 0x7000);
    CHECK(current->lock_levels == 0);
    if (current->lock_levels)
        return;   /* vCPU 1 would wait for the lock for ever */
    host_env_cpu_now = 1;
    current->in_kernel = true;
    r = syscall_exception(host_env_syscall_entry + SYSCALL_ENTRY_UNSURE, 0x9000);
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));   /* takes the lock: free */
    CHECK(current->fs_base == 0x9000 && current->lock_levels == 0);
}

/* Any other #UD in the entries, or an entry past the last vCPU's, is
 * perch's own fault (a guest kernel that wrote over the Host's code). */
static void ud_at_is_a_host_fault(uint64_t rip)
{
    struct cpu_regs r = syscall_exception(rip, 0x7000);

    setup(2);
    CHECK(HOST_ENV_EXPECT_STOP(host_trap_cpl3(&r)));
    CHECK(host_env_nr_requests == 1 && host_env_log[0].reason == PERCH_REQ_FATAL);
    CHECK_CONTAINS(host_env_log[0].message, "Host fault: #UD");
    CHECK(current->fs_base != 0x7000 && perch_shared.stats.syscalls_redirected == 0);
}

static void other_ud_in_an_entry_is_a_host_fault(void)
{
    ud_at_is_a_host_fault(host_env_syscall_entry);
    ud_at_is_a_host_fault(host_env_syscall_entry + SYSCALL_ENTRY_UNSURE + 2);
    ud_at_is_a_host_fault(host_env_syscall_entry + 2 * SYSCALL_ENTRY_STRIDE +
                          SYSCALL_ENTRY_UNSURE);
}

int main(void)
{
    RUN(is_up_answers_per_vcpu);
    RUN(up_before_initialise_einval);
    RUN(initialise_takes_good_context);
    RUN(initialise_twice_eexist);
    RUN(up_sends_one_ipi);
    RUN(initialise_shares_vcpu0_l4);
    RUN(hostile_contexts_einval);
    RUN(unreadable_context_efault);
    RUN(others_timer_and_down_einval);
    RUN(ipi_port_for_vcpu1);
    RUN(ipi_port_for_self_and_from_other);
    RUN(event_to_spinning_vcpu_needs_no_ipi);
    RUN(spin_before_sleep_ends_in_time);
    RUN(spin_before_sleep_ends_at_an_event);
    RUN(no_spin_alone_or_switched_off);
    RUN(bind_ipi_past_nr_enoent);
    RUN(virq_timer_per_vcpu);
    RUN(global_virq_on_vcpu1_einval);
    RUN(bind_vcpu_of_ipi_port_einval);
    RUN(register_vcpu_info_moves_only_that_vcpu);
    RUN(flush_vcpus_then_shootdown);
    RUN(shootdown_interrupts_vcpu_in_guest);
    RUN(text_rewrite_serializes_the_others);
    RUN(interrupt_on_the_way_out_keeps_in_guest);
    RUN(interrupt_inside_a_hypercall_keeps_it_out);
    RUN(flush_vcpus_ignores_absent_ones);
    RUN(upper_level_change_shoots_down_all_others);
    RUN(l1_change_stales_every_vcpu);
    RUN(one_vcpu_sends_no_ipi);
    RUN(unsure_entry_serves_the_vcpu_that_took_its_ud);
    RUN(unsure_entry_leaving_by_resume_lets_the_lock_go);
    RUN(other_ud_in_an_entry_is_a_host_fault);
    return check_exit_status();
}
