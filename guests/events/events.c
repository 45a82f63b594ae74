/*
 * events: Xen's time and event machinery as a PV guest kernel uses it
 * (Linux 6.1's way, docs/xen-pv.md section 8):
 *
 *   1. shared_info mapped; vcpu_info[0] there, events masked at start;
 *   2. pvclock (version protocol, monotonic, TSC rate) and the wallclock;
 *   3. VCPUOP_register_vcpu_info into the guest's own page;
 *   4. the event callback: bind_virq(TIMER), bind_ipi, send, upcalls with
 *      Xen's frame, returning with HYPERVISOR_iret;
 *   5. per-port masking, EVTCHNOP_unmask, status and close;
 *   6. single-shot timers and SCHEDOP_block, set_timer_op;
 *   7. SCHEDOP_poll;
 *   8. the runstate area;
 *   9. 200 short timer ticks while idle.
 *
 * Every result is a PASS/FAIL line; the expected behaviour is Xen 4.17's
 * (comments name the Xen source that defines it).
 */
#include "rt.h"
#include "events.h"

const char guest_name[] = "events";

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define PTE_KERNEL_RW (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define BARRIER() __asm__ volatile("" ::: "memory")

static uint8_t shinfo_window[4096] __attribute__((aligned(4096)));
/* Two pages: the vcpu_info slot lives in the first one, and a bad offset
 * that crossed into the second would still hit the guest's own memory. */
static uint8_t vcpu_info_pages[2][4096] __attribute__((aligned(4096)));
#define VCPU_INFO_OFFSET  0x240
#define VCPU_INFO_OFFSET2 0x300
static struct vcpu_runstate_info runstate __attribute__((aligned(64)));

static const struct start_info *si;
static volatile struct shared_info *sh;
static volatile struct vcpu_info *vi;      /* the current vcpu_info */
static uint32_t timer_port, ipi_port;      /* 0: not bound */
static uint32_t tsc_khz;                   /* from the pvclock scale */

/* What the event callback saw. Written only by event_upcall. */
static volatile struct {
    unsigned count;            /* upcalls */
    unsigned timer, ipi;       /* times each port was found pending */
    unsigned other;            /* other ports found pending */
    unsigned empty;            /* upcalls that found no port */
    unsigned bad_mask;         /* upcalls entered with upcall_mask != 1 */
    unsigned bad_pending;      /* upcalls entered with upcall_pending != 1 */
    unsigned bad_frame;        /* frames not aligned as Xen aligns them */
    uint64_t last_sel;         /* pending_sel taken by the last upcall */
    uint64_t rip, cs, rflags, rsp;   /* the last frame */
    uint64_t timer_tsc;        /* rdtsc at the last timer upcall */
    uint64_t timer_ns;         /* pvclock at the last timer upcall */
    uint32_t flag;             /* set by every timer upcall */
} up;

/* ---- Small helpers --------------------------------------------------------- */

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return (uint64_t)hi << 32 | lo;
}

static uint64_t mfn_of(const void *va)
{
    return ((const uint64_t *)si->mfn_list)[((uint64_t)va - RT_VIRT_BASE) >> 12];
}

static long evtchn_op(unsigned cmd, void *arg)
{
    return hypercall2(HYPERVISOR_event_channel_op, cmd, (unsigned long)arg);
}

static long vcpu_op(unsigned cmd, void *arg)
{
    return hypercall3(HYPERVISOR_vcpu_op, cmd, 0, (unsigned long)arg);
}

static long send_port(uint32_t port)
{
    struct evtchn_send p = { .port = port };

    return evtchn_op(EVTCHNOP_send, &p);
}

static long singleshot(uint64_t deadline, uint32_t flags)
{
    struct vcpu_set_singleshot_timer s = { .timeout_abs_ns = deadline, .flags = flags };

    return vcpu_op(VCPUOP_set_singleshot_timer, &s);
}

static long set_timer_op(uint64_t deadline)
{
    return hypercall1(HYPERVISOR_set_timer_op, deadline);
}

static long block(void)
{
    return hc_sched_op(SCHEDOP_block, NULL);
}

static long poke(void)
{
    return hc_xen_version(XENVER_version, NULL);
}

/* Linux's local_irq_disable / enable under Xen: a store to upcall_mask,
 * and on enable any hypercall so that a pending upcall is delivered. */
static void events_off(void)
{
    vi->evtchn_upcall_mask = 1;
    BARRIER();
}

static void events_on(void)
{
    BARRIER();
    vi->evtchn_upcall_mask = 0;
    BARRIER();
    poke();
}

static bool port_bit(const volatile uint64_t *words, uint32_t port)
{
    return (words[port / 64] >> (port % 64)) & 1;
}

static void set_port_bit(volatile uint64_t *words, uint32_t port)
{
    __atomic_fetch_or(&words[port / 64], 1ull << (port % 64), __ATOMIC_SEQ_CST);
}

static void clear_port_bit(volatile uint64_t *words, uint32_t port)
{
    __atomic_fetch_and(&words[port / 64], ~(1ull << (port % 64)), __ATOMIC_SEQ_CST);
}

static bool sel_bit(uint32_t port)
{
    return (vi->evtchn_pending_sel >> (port / 64)) & 1;
}

/* ---- pvclock ---------------------------------------------------------------- */

struct pvtime {
    uint64_t ns;           /* system time */
    uint64_t tsc;          /* the rdtsc it was computed from */
    uint32_t version;
    uint32_t mul;
    int8_t shift;
    uint8_t flags;
    unsigned retries;
};

static uint64_t pvclock_scale(uint64_t delta, uint32_t mul, int8_t shift)
{
    if (shift < 0)
        delta >>= -shift;
    else
        delta <<= shift;
    return (uint64_t)(((unsigned __int128)delta * mul) >> 32);
}

/* Read vcpu_info.time with the version protocol: retry while the version
 * is odd (an update in progress) or changed under us. */
static void pvclock_read_from(volatile struct vcpu_time_info *t, struct pvtime *out)
{
    uint32_t version;
    uint64_t stamp, system, tsc;
    unsigned retries = 0;

    for (;;) {
        version = t->version;
        BARRIER();
        stamp = t->tsc_timestamp;
        system = t->system_time;
        out->mul = t->tsc_to_system_mul;
        out->shift = t->tsc_shift;
        out->flags = t->flags;
        tsc = rdtsc();
        BARRIER();
        if (!(version & 1) && t->version == version)
            break;
        retries++;
    }
    out->ns = system + pvclock_scale(tsc - stamp, out->mul, out->shift);
    out->tsc = tsc;
    out->version = version;
    out->retries = retries;
}

static uint64_t now_ns(void)
{
    struct pvtime t;

    pvclock_read_from(&vi->time, &t);
    return t.ns;
}

static uint64_t ns_to_ticks(uint64_t ns)
{
    return ns * tsc_khz / NS_PER_MS;
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
    return ticks * NS_PER_MS / tsc_khz;   /* fits: under 10^13 ticks */
}

/* Spin (events as they are) for `ns` of TSC time. */
static void spin_ns(uint64_t ns)
{
    uint64_t end = rdtsc() + ns_to_ticks(ns);

    while (rdtsc() < end)
        __asm__ volatile("pause");
}

/* ---- The event callback (entry.S calls it with events masked) -------------- */

void event_upcall(struct upcall_frame *f)
{
    uint64_t tsc = rdtsc();
    unsigned found = 0;

    up.count++;
    if (vi->evtchn_upcall_mask != 1)
        up.bad_mask++;
    if (vi->evtchn_upcall_pending != 1)
        up.bad_pending++;
    /* Xen aligns the interrupted rsp down to 16 and puts the 7-word frame
     * below it (x86_64/entry.S create_bounce_frame). */
    if ((f->rsp & ~15ull) != (uint64_t)&f->ss + 8)
        up.bad_frame++;
    up.rip = f->rip;
    up.cs = f->cs;
    up.rflags = f->rflags;
    up.rsp = f->rsp;

    /* The 2-level scan: upcall_pending off, take pending_sel, then every
     * pending and unmasked port of each selected word. */
    do {
        uint64_t sel;

        vi->evtchn_upcall_pending = 0;
        sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
        up.last_sel = sel;
        while (sel) {
            unsigned w = (unsigned)__builtin_ctzll(sel);
            uint64_t bits;

            sel &= sel - 1;
            bits = sh->evtchn_pending[w] & ~sh->evtchn_mask[w];
            while (bits) {
                uint32_t port = w * 64 + (unsigned)__builtin_ctzll(bits);

                bits &= bits - 1;
                clear_port_bit(sh->evtchn_pending, port);
                found++;
                if (timer_port && port == timer_port) {
                    up.timer++;
                    up.timer_tsc = tsc;
                    up.timer_ns = now_ns();
                    up.flag = 1;
                } else if (ipi_port && port == ipi_port) {
                    up.ipi++;
                } else {
                    up.other++;
                }
            }
        }
    } while (vi->evtchn_upcall_pending);
    if (!found)
        up.empty++;
}

_Noreturn void unexpected_trap(struct trap_frame *f, unsigned vector)
{
    test_fail("no_unexpected_exception", "vector %u error %#lx at rip %#lx "
              "(rsp %#lx, cr2 %#lx)", vector, (unsigned long)f->error,
              (unsigned long)f->rip, (unsigned long)f->rsp,
              vi ? (unsigned long)vi->arch.cr2 : 0ul);
    printk("events: %u passed, %u failed\n", tests_passed, tests_failed);
    xen_shutdown(SHUTDOWN_crash);
}

/* Block until the timer upcall has come (count moved past `before`), at
 * most `max_blocks` SCHEDOP_block calls, as an idle loop does: events off,
 * look, block (which turns them on). Returns the blocks made; *rc the
 * first nonzero result of block, if any. */
static unsigned wait_timer(unsigned before, unsigned max_blocks, long *rc)
{
    unsigned n = 0;

    *rc = 0;
    while (n < max_blocks) {
        long r;

        events_off();
        if (up.timer != before)
            break;
        r = block();
        n++;
        if (r && !*rc)
            *rc = r;
        if (up.timer != before)
            break;
    }
    events_on();
    return n;
}

/* ---- 1. shared_info --------------------------------------------------------- */

static bool test_shared_info(void)
{
    long rc = hypercall3(HYPERVISOR_update_va_mapping, (unsigned long)shinfo_window,
                         si->shared_info | PTE_KERNEL_RW, UVMF_INVLPG);

    if (!check("map_shared_info", rc == 0,
               "update_va_mapping(%#lx, maddr %#lx) = %ld",
               (unsigned long)shinfo_window, (unsigned long)si->shared_info, rc))
        return false;
    sh = (volatile struct shared_info *)shinfo_window;
    vi = &sh->vcpu_info[0];
    check("vcpu_info0_present",
          vi->time.version != 0 && !(vi->time.version & 1) &&
          vi->time.tsc_to_system_mul != 0,
          "vcpu_info[0].time: version %u, tsc_to_system_mul %u",
          vi->time.version, vi->time.tsc_to_system_mul);
    check("events_start_masked", vi->evtchn_upcall_mask == 1,
          "vcpu_info[0].evtchn_upcall_mask is %u, want 1 (the builder masks)",
          vi->evtchn_upcall_mask);
    /* As Linux does at init: every port masked; bound ports get unmasked. */
    for (unsigned w = 0; w < 64; w++)
        sh->evtchn_mask[w] = ~0ull;
    return true;
}

/* ---- 2. pvclock and wallclock ---------------------------------------------- */

static void test_pvclock(void)
{
    struct pvtime t, a, b;
    uint64_t prev, backwards = 0, worst = 0;
    unsigned retries = 0;

    pvclock_read_from(&vi->time, &t);
    check("pvclock_mul_nonzero", t.mul != 0, "tsc_to_system_mul is 0");
    if (t.mul) {
        uint64_t khz = (1000000ull << 32) / t.mul;

        khz = t.shift < 0 ? khz << -t.shift : khz >> t.shift;
        tsc_khz = (uint32_t)khz;
    }
    printk("events: pvclock tsc_khz %u mul %u shift %d\n", tsc_khz, t.mul, t.shift);
    check("pvclock_tsc_khz_plausible", tsc_khz >= 100000 && tsc_khz <= 10000000,
          "TSC rate from the pvclock scale: %u kHz", tsc_khz);
    if (!tsc_khz)
        tsc_khz = 1000000;   /* keep the arithmetic below defined */
    check("pvclock_tsc_stable", t.flags & XEN_PVCLOCK_TSC_STABLE_BIT,
          "vcpu_time_info.flags %#x lacks TSC_STABLE", t.flags);

    /* Monotonic over many reads, with hypercalls (where a hypervisor may
     * refresh the record) in between. */
    prev = now_ns();
    for (unsigned i = 0; i < 200000; i++) {
        pvclock_read_from(&vi->time, &t);
        retries += t.retries;
        if (t.ns < prev) {
            backwards++;
            if (prev - t.ns > worst)
                worst = prev - t.ns;
        }
        prev = t.ns;
        if (i % 1000 == 999)
            poke();
    }
    check("pvclock_monotonic", backwards == 0,
          "%lu of 200000 reads went backwards, by up to %lu ns",
          (unsigned long)backwards, (unsigned long)worst);
    printk("events: pvclock 200000 reads, %u version retries\n", retries);

    /* Rate: 20 ms of TSC ticks must be 20 ms of system time. */
    pvclock_read_from(&vi->time, &a);
    while (rdtsc() - a.tsc < ns_to_ticks(20 * NS_PER_MS))
        __asm__ volatile("pause");
    pvclock_read_from(&vi->time, &b);
    {
        uint64_t got = b.ns - a.ns, want = ticks_to_ns(b.tsc - a.tsc);
        uint64_t diff = got > want ? got - want : want - got;

        check("pvclock_tsc_rate", b.ns > a.ns && diff <= want / 1000 + 2000,
              "%lu TSC ticks (%lu ns at %u kHz) advanced system time by %lu ns",
              (unsigned long)(b.tsc - a.tsc), (unsigned long)want, tsc_khz,
              (unsigned long)got);
    }

    /* Wallclock: wc_version even (read it with the same protocol), UTC
     * after 2020-01-01 and before 2100. */
    {
        uint32_t v, sec, nsec;
        unsigned tries = 0;

        do {
            v = sh->wc_version;
            BARRIER();
            sec = sh->wc_sec;
            nsec = sh->wc_nsec;
            BARRIER();
        } while (((v & 1) || sh->wc_version != v) && ++tries < 1000000);
        printk("events: wallclock %u.%09u at system time 0 (wc_version %u)\n",
               sec, nsec, v);
        check("wallclock_plausible",
              !(v & 1) && sec + now_ns() / 1000000000ull > 1577836800ull &&
              sec < 4102444800u && nsec < 1000000000u,
              "wc_version %u, wc_sec %u, wc_nsec %u", v, sec, nsec);
    }
}

/* ---- 3. VCPUOP_register_vcpu_info ------------------------------------------ */

static void test_register_vcpu_info(void)
{
    uint8_t *slot = vcpu_info_pages[0] + VCPU_INFO_OFFSET;
    struct vcpu_register_vcpu_info req = {
        .mfn = mfn_of(vcpu_info_pages[0]), .offset = VCPU_INFO_OFFSET,
    };
    volatile struct vcpu_info *nvi = (volatile struct vcpu_info *)slot;
    uint64_t before, after;
    long rc;

    /* A slot that would cross the page end: -ENXIO (common/domain.c
     * map_vcpu_info: offset > PAGE_SIZE - sizeof(vcpu_info)). */
    {
        struct vcpu_register_vcpu_info bad = {
            .mfn = mfn_of(vcpu_info_pages[0]), .offset = 4096 - 32,
        };

        rc = vcpu_op(VCPUOP_register_vcpu_info, &bad);
        check_eq("register_vcpu_info_crossing_page_refused", rc, -XEN_ENXIO);
    }

    memset(slot, 0xa5, sizeof(struct vcpu_info));
    before = now_ns();
    rc = vcpu_op(VCPUOP_register_vcpu_info, &req);
    if (!check("register_vcpu_info", rc == 0,
               "VCPUOP_register_vcpu_info(mfn %#lx, offset %#x) = %ld",
               (unsigned long)req.mfn, req.offset, rc))
        return;
    vi = nvi;
    /* Xen copies the old vcpu_info, then sets pending_sel to all ones and
     * upcall_pending (map_vcpu_info, "Mark everything as being pending"). */
    check("vcpu_info_moved_all_pending",
          nvi->evtchn_upcall_pending == 1 && nvi->evtchn_pending_sel == ~0ull,
          "new vcpu_info: upcall_pending %u, pending_sel %#lx; want 1, all ones",
          nvi->evtchn_upcall_pending, (unsigned long)nvi->evtchn_pending_sel);
    check("vcpu_info_moved_mask_kept", nvi->evtchn_upcall_mask == 1,
          "new vcpu_info: upcall_mask %u, want 1 (copied from the old one)",
          nvi->evtchn_upcall_mask);
    after = now_ns();
    check("vcpu_info_moved_time_valid",
          !(nvi->time.version & 1) && nvi->time.tsc_to_system_mul != 0 &&
          after >= before && after - before < 1000 * NS_PER_MS,
          "new vcpu_info time: version %u, mul %u, %lu ns before, %lu after",
          nvi->time.version, nvi->time.tsc_to_system_mul,
          (unsigned long)before, (unsigned long)after);

    /* Only once per vCPU: Xen 4.17 answers -EINVAL, 4.18 and later -EBUSY. */
    {
        struct vcpu_register_vcpu_info again = {
            .mfn = mfn_of(vcpu_info_pages[0]), .offset = VCPU_INFO_OFFSET2,
        };

        rc = vcpu_op(VCPUOP_register_vcpu_info, &again);
        check("register_vcpu_info_twice_refused", rc == -XEN_EINVAL || rc == -XEN_EBUSY,
              "a second registration returned %ld, want -EINVAL (-22, Xen 4.17) "
              "or -EBUSY (-16, 4.18+)", rc);
        if (rc == 0)   /* it moved again: follow it */
            vi = (volatile struct vcpu_info *)(vcpu_info_pages[0] + VCPU_INFO_OFFSET2);
    }
}

/* ---- 4. The event callback, bind_virq, bind_ipi, send ----------------------- */

static const struct {
    uint8_t vector, flags;
    uint16_t cs;
    uint32_t pad;
    uint64_t address;
} traps[] = {
    { 0, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_0 },
    { 1, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_1 },
    { 2, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_2 },
    { 3, 3, FLAT_KERNEL_CS64, 0, (uint64_t)trap_3 },
    { 4, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_4 },
    { 5, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_5 },
    { 6, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_6 },
    { 7, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_7 },
    { 8, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_8 },
    { 10, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_10 },
    { 11, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_11 },
    { 12, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_12 },
    { 13, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_13 },
    { 14, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_14 },
    { 16, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_16 },
    { 17, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_17 },
    { 18, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_18 },
    { 19, 0, FLAT_KERNEL_CS64, 0, (uint64_t)trap_19 },
    { 0, 0, 0, 0, 0 },
};

static bool test_callback_and_bind(void)
{
    struct callback_register cb = {
        .type = CALLBACKTYPE_event, .flags = CALLBACKF_mask_events,
        .address = (uint64_t)event_callback,
    };
    struct evtchn_bind_virq bv = { .virq = VIRQ_TIMER, .vcpu = 0, .port = 0 };
    struct evtchn_bind_ipi bi = { .vcpu = 0, .port = 0 };
    long rc;

    rc = hypercall1(HYPERVISOR_set_trap_table, (unsigned long)traps);
    check_eq("set_trap_table", rc, 0);
    rc = hypercall2(HYPERVISOR_callback_op, CALLBACKOP_register, (unsigned long)&cb);
    if (!check_eq("callback_op_register_event", rc, 0))
        return false;

    rc = evtchn_op(EVTCHNOP_bind_virq, &bv);
    if (check("bind_virq_timer", rc == 0 && bv.port > 0 && bv.port < EVTCHN_2L_NR_CHANNELS,
              "EVTCHNOP_bind_virq(VIRQ_TIMER, vcpu 0) = %ld, port %u", rc, bv.port))
        timer_port = bv.port;
    rc = evtchn_op(EVTCHNOP_bind_ipi, &bi);
    if (check("bind_ipi", rc == 0 && bi.port > 0 && bi.port < EVTCHN_2L_NR_CHANNELS &&
              bi.port != bv.port,
              "EVTCHNOP_bind_ipi(vcpu 0) = %ld, port %u (timer port %u)",
              rc, bi.port, bv.port))
        ipi_port = bi.port;
    printk("events: timer port %u, ipi port %u\n", timer_port, ipi_port);

    /* A vCPU's VIRQ binds once (common/event_channel.c evtchn_bind_virq). */
    {
        struct evtchn_bind_virq again = { .virq = VIRQ_TIMER, .vcpu = 0, .port = 0 };

        rc = evtchn_op(EVTCHNOP_bind_virq, &again);
        check_eq("bind_virq_timer_twice_refused", rc, -XEN_EEXIST);
    }
    if (!timer_port || !ipi_port)
        return false;
    clear_port_bit(sh->evtchn_mask, timer_port);
    clear_port_bit(sh->evtchn_mask, ipi_port);
    return true;
}

static void test_upcalls(void)
{
    unsigned n;
    long rc;

    /* register_vcpu_info left upcall_pending set: enabling events and
     * making a hypercall delivers that (spurious) upcall. */
    n = up.count;
    events_on();
    check("unmask_delivers_pending_upcall",
          up.count == n + 1 && vi->evtchn_upcall_pending == 0 &&
          vi->evtchn_upcall_mask == 0 && up.bad_mask == 0,
          "%u upcalls (want 1), then upcall_pending %u, upcall_mask %u; "
          "%u entered with events unmasked",
          up.count - n, vi->evtchn_upcall_pending, vi->evtchn_upcall_mask,
          up.bad_mask);

    /* Send with events enabled: the upcall comes on the way out of send. */
    n = up.count;
    {
        unsigned ipis = up.ipi;

        rc = send_port(ipi_port);
        check("ipi_send_upcall",
              rc == 0 && up.count == n + 1 && up.ipi == ipis + 1 &&
              ((up.last_sel >> (ipi_port / 64)) & 1) &&
              !port_bit(sh->evtchn_pending, ipi_port) &&
              vi->evtchn_upcall_pending == 0 && vi->evtchn_upcall_mask == 0,
              "send = %ld; %u upcalls, %u with the ipi port, sel %#lx; after: "
              "pending %d, upcall_pending %u, upcall_mask %u",
              rc, up.count - n, up.ipi - ipis, (unsigned long)up.last_sel,
              port_bit(sh->evtchn_pending, ipi_port), vi->evtchn_upcall_pending,
              vi->evtchn_upcall_mask);
    }
    check("upcall_entered_masked", up.bad_mask == 0 && up.bad_pending == 0,
          "%u upcalls entered with upcall_mask != 1, %u with upcall_pending != 1",
          up.bad_mask, up.bad_pending);
    /* The frame (x86_64/entry.S create_bounce_frame): CS with RPL 0 for a
     * guest-kernel context, the saved upcall_mask (0) in bits 32-39,
     * RFLAGS.IF = !saved mask, rsp aligned as Xen aligns it. */
    check("upcall_frame",
          (up.cs & 0xffff) == (FLAT_KERNEL_CS64 & ~3u) && ((up.cs >> 32) & 0xff) == 0 &&
          (up.rflags & 0x200) && up.bad_frame == 0 &&
          up.rsp > (uint64_t)rt_stack_bottom && up.rsp <= (uint64_t)rt_stack_top,
          "cs slot %#lx (want 0xe030, mask 0 in bits 32-39), rflags %#lx (want IF), "
          "rsp %#lx (stack %#lx-%#lx), %u misaligned frames",
          (unsigned long)up.cs, (unsigned long)up.rflags, (unsigned long)up.rsp,
          (unsigned long)rt_stack_bottom, (unsigned long)rt_stack_top, up.bad_frame);

    /* Send with events masked: pending, sel and upcall_pending set, no
     * upcall until events are enabled again. */
    events_off();
    n = up.count;
    rc = send_port(ipi_port);
    check("masked_send_stays_pending",
          rc == 0 && up.count == n && port_bit(sh->evtchn_pending, ipi_port) &&
          sel_bit(ipi_port) && vi->evtchn_upcall_pending == 1,
          "send = %ld; %u upcalls (want 0); pending %d, sel bit %d, "
          "upcall_pending %u (want 1, 1, 1)",
          rc, up.count - n, port_bit(sh->evtchn_pending, ipi_port),
          sel_bit(ipi_port), vi->evtchn_upcall_pending);
    {
        unsigned ipis = up.ipi;

        events_on();
        check("enable_events_delivers_upcall",
              up.count == n + 1 && up.ipi == ipis + 1 &&
              !port_bit(sh->evtchn_pending, ipi_port) && vi->evtchn_upcall_mask == 0,
              "%u upcalls, %u with the ipi port (want 1, 1); pending %d, upcall_mask %u",
              up.count - n, up.ipi - ipis, port_bit(sh->evtchn_pending, ipi_port),
              vi->evtchn_upcall_mask);
    }
}

/* ---- 5. Port masks, EVTCHNOP_unmask, status, close -------------------------- */

static void test_masking(void)
{
    struct evtchn_unmask p = { .port = ipi_port };
    struct evtchn_status st;
    unsigned n = up.count, ipis = up.ipi;
    long rc;

    /* A masked port raised: pending, but no sel bit, no upcall_pending and
     * no upcall, even with events enabled (event_2l.c set_pending). */
    set_port_bit(sh->evtchn_mask, ipi_port);
    rc = send_port(ipi_port);
    check("masked_port_no_upcall",
          rc == 0 && up.count == n && port_bit(sh->evtchn_pending, ipi_port) &&
          !sel_bit(ipi_port) && vi->evtchn_upcall_pending == 0,
          "send = %ld; %u upcalls (want 0); pending %d (want 1), sel bit %d, "
          "upcall_pending %u (want 0, 0)",
          rc, up.count - n, port_bit(sh->evtchn_pending, ipi_port),
          sel_bit(ipi_port), vi->evtchn_upcall_pending);

    /* EVTCHNOP_unmask re-raises it (event_2l.c unmask): seen with events
     * masked, then delivered when they are enabled. */
    events_off();
    rc = evtchn_op(EVTCHNOP_unmask, &p);
    check("evtchn_unmask_reraises",
          rc == 0 && !port_bit(sh->evtchn_mask, ipi_port) &&
          port_bit(sh->evtchn_pending, ipi_port) && sel_bit(ipi_port) &&
          vi->evtchn_upcall_pending == 1 && up.count == n,
          "unmask = %ld; mask %d (want 0), pending %d, sel bit %d, "
          "upcall_pending %u (want 1, 1, 1), %u upcalls while masked",
          rc, port_bit(sh->evtchn_mask, ipi_port),
          port_bit(sh->evtchn_pending, ipi_port), sel_bit(ipi_port),
          vi->evtchn_upcall_pending, up.count - n);
    events_on();
    check("evtchn_unmask_then_upcall", up.count == n + 1 && up.ipi == ipis + 1,
          "%u upcalls, %u with the ipi port (want 1, 1)", up.count - n, up.ipi - ipis);

    memset(&st, 0, sizeof(st));
    st.dom = DOMID_SELF;
    st.port = ipi_port;
    rc = evtchn_op(EVTCHNOP_status, &st);
    check("status_ipi", rc == 0 && st.status == EVTCHNSTAT_ipi && st.vcpu == 0,
          "status = %ld: status %u vcpu %u (want %u, 0)", rc, st.status, st.vcpu,
          EVTCHNSTAT_ipi);
    memset(&st, 0, sizeof(st));
    st.dom = DOMID_SELF;
    st.port = timer_port;
    rc = evtchn_op(EVTCHNOP_status, &st);
    check("status_virq_timer",
          rc == 0 && st.status == EVTCHNSTAT_virq && st.vcpu == 0 &&
          st.u.virq == VIRQ_TIMER,
          "status = %ld: status %u vcpu %u virq %u (want %u, 0, 0)", rc, st.status,
          st.vcpu, st.u.virq, EVTCHNSTAT_virq);

    /* Only IPI and interdomain ports can be sent to (evtchn_send). */
    events_off();
    rc = send_port(timer_port);
    check_eq("send_to_virq_port_refused", rc, -XEN_EINVAL);
    clear_port_bit(sh->evtchn_pending, timer_port);
    events_on();

    rc = evtchn_op(EVTCHNOP_close, &p);
    check_eq("close_ipi", rc, 0);
    memset(&st, 0, sizeof(st));
    st.dom = DOMID_SELF;
    st.port = ipi_port;
    rc = evtchn_op(EVTCHNOP_status, &st);
    check("status_closed", rc == 0 && st.status == EVTCHNSTAT_closed,
          "status = %ld: status %u (want %u)", rc, st.status, EVTCHNSTAT_closed);
    n = up.count;
    rc = send_port(ipi_port);
    check("send_to_closed_port_fails", rc == -XEN_EINVAL && up.count == n,
          "send = %ld (want -EINVAL, -22), %u upcalls", rc, up.count - n);
    rc = evtchn_op(EVTCHNOP_close, &p);
    check_eq("close_closed_port_fails", rc, -XEN_EINVAL);
    ipi_port = 0;
}

/* ---- 6. Timers ------------------------------------------------------------- */

/* A timer armed with `arm` for t0 + 1 ms, then SCHEDOP_block. */
static void timer_block_test(const char *name, bool use_set_timer_op)
{
    unsigned before = up.timer, blocks;
    uint64_t t0, deadline, elapsed;
    long rc, brc;

    events_off();
    t0 = now_ns();
    deadline = t0 + NS_PER_MS;
    rc = use_set_timer_op ? set_timer_op(deadline) : singleshot(deadline, 0);
    blocks = wait_timer(before, 50, &brc);
    elapsed = up.timer_ns - t0;
    check(name,
          rc == 0 && brc == 0 && blocks == 1 && up.timer == before + 1 &&
          up.timer_ns >= deadline && elapsed < 500 * NS_PER_MS,
          "arm = %ld, block = %ld, %u blocks (want 1: it sleeps until the "
          "timer fires); %u timer upcalls (want 1); "
          "upcall at %lu ns after arming (want >= 1 ms, < 500 ms)",
          rc, brc, blocks, up.timer - before, (unsigned long)elapsed);
}

/* A deadline in the past fires at once: pending when the call returns. */
static void timer_past_test(const char *name, bool use_set_timer_op)
{
    unsigned before = up.timer, n = up.count;
    uint64_t t0, late = 0;
    bool at_once;
    long rc;

    events_off();
    t0 = now_ns();
    rc = use_set_timer_op ? set_timer_op(t0 - NS_PER_MS) : singleshot(t0 - NS_PER_MS, 0);
    at_once = port_bit(sh->evtchn_pending, timer_port);
    if (!at_once) {
        while (!port_bit(sh->evtchn_pending, timer_port) && now_ns() - t0 < 100 * NS_PER_MS)
            ;
        late = now_ns() - t0;
    }
    events_on();
    check(name, rc == 0 && at_once && up.timer == before + 1 && up.count == n + 1,
          "arm = %ld; pending on return %d (else after %lu ns); "
          "%u timer upcalls after enabling events (want 1)",
          rc, at_once, (unsigned long)late, up.timer - before);
}

/* Armed for 1 ms, cancelled, then 3 ms of waiting: nothing fires. */
static void timer_cancel_test(const char *name, bool use_set_timer_op)
{
    unsigned before = up.timer;
    long rc1, rc2;
    bool fired;

    events_off();
    if (use_set_timer_op) {
        rc1 = set_timer_op(now_ns() + NS_PER_MS);
        rc2 = set_timer_op(0);
    } else {
        rc1 = singleshot(now_ns() + NS_PER_MS, 0);
        rc2 = vcpu_op(VCPUOP_stop_singleshot_timer, NULL);
    }
    spin_ns(3 * NS_PER_MS);
    poke();
    fired = port_bit(sh->evtchn_pending, timer_port);
    events_on();
    check(name, rc1 == 0 && rc2 == 0 && !fired && up.timer == before,
          "arm = %ld, cancel = %ld; fired anyway: pending %d, %u upcalls",
          rc1, rc2, fired, up.timer - before);
}

static void test_timers(void)
{
    long rc;

    rc = vcpu_op(VCPUOP_stop_periodic_timer, NULL);
    check_eq("stop_periodic_timer", rc, 0);

    timer_block_test("singleshot_block_wakes", false);
    timer_past_test("singleshot_past_fires_at_once", false);
    timer_block_test("set_timer_op_block_wakes", true);
    timer_past_test("set_timer_op_past_fires_at_once", true);
    timer_cancel_test("set_timer_op_zero_cancels", true);
    timer_cancel_test("stop_singleshot_cancels", false);

    /* VCPU_SSHOTTMR_future and a past deadline: -ETIME and no timer (Xen
     * 4.17 common/domain.c; 4.18 and later ignore the flag and fire). */
    {
        unsigned before = up.timer;
        bool fired;

        events_off();
        rc = singleshot(now_ns() - NS_PER_MS, VCPU_SSHOTTMR_future);
        spin_ns(NS_PER_MS);
        poke();
        fired = port_bit(sh->evtchn_pending, timer_port);
        events_on();
        check("singleshot_future_past_etime", rc == -XEN_ETIME && !fired,
              "set_singleshot_timer(past, VCPU_SSHOTTMR_future) = %ld (want -62), "
              "fired %d, %u timer upcalls", rc, fired, up.timer - before);
    }

    /* An upcall into running code (the timer fires while the guest spins
     * with events enabled) returns to it with every register intact. */
    {
        unsigned before = up.timer;
        uint64_t bad;

        up.flag = 0;
        rc = singleshot(now_ns() + 2 * NS_PER_MS, 0);
        bad = spin_with_patterns(&up.flag, 1ull << 33);
        check("upcall_preserves_registers",
              rc == 0 && bad == 0 && up.timer == before + 1 &&
              up.rip >= (uint64_t)spin_loop_start && up.rip <= (uint64_t)spin_loop_end &&
              (up.rflags & 0x200),
              "arm = %ld; changed-register mask %#lx (bit 63: no upcall came; "
              "bits 1-14 rbx rcx rdx rsi rbp r8-r15 rdi, 15 rflags); %u timer upcalls; "
              "interrupted rip %#lx (loop %#lx-%#lx), rflags %#lx",
              rc, (unsigned long)bad, up.timer - before, (unsigned long)up.rip,
              (unsigned long)spin_loop_start, (unsigned long)spin_loop_end,
              (unsigned long)up.rflags);
    }
}

/* ---- 7. SCHEDOP_poll ---------------------------------------------------------- */

static long poll_port(uint32_t port, uint64_t timeout)
{
    struct sched_poll p = {
        .ports = (uint64_t)&port, .nr_ports = 1, .timeout = timeout,
    };

    return hc_sched_op(SCHEDOP_poll, &p);
}

static void test_poll(void)
{
    uint64_t t0, t1;
    long rc;

    /* Nothing armed: returns when the timeout has passed. */
    vcpu_op(VCPUOP_stop_singleshot_timer, NULL);
    events_off();
    t0 = now_ns();
    rc = poll_port(timer_port, t0 + 2 * NS_PER_MS);
    t1 = now_ns();
    events_on();
    check("poll_timeout", rc == 0 && t1 >= t0 + 2 * NS_PER_MS && t1 - t0 < 500 * NS_PER_MS,
          "poll(timer port, timeout +2 ms) = %ld after %lu ns", rc,
          (unsigned long)(t1 - t0));

    /* The timer port becomes pending after 1 ms: poll ends then, long
     * before its 300 ms timeout. */
    {
        unsigned before = up.timer;
        bool pending;

        events_off();
        t0 = now_ns();
        rc = singleshot(t0 + NS_PER_MS, 0);
        rc = rc ? rc : poll_port(timer_port, t0 + 300 * NS_PER_MS);
        t1 = now_ns();
        pending = port_bit(sh->evtchn_pending, timer_port);
        events_on();
        check("poll_wakes_on_port",
              rc == 0 && pending && t1 >= t0 + NS_PER_MS && t1 - t0 < 200 * NS_PER_MS &&
              up.timer == before + 1,
              "arm+poll = %ld after %lu ns (want 1-200 ms), port pending %d, "
              "%u timer upcalls after enabling events", rc,
              (unsigned long)(t1 - t0), pending, up.timer - before);
    }

    /* Already pending: poll returns at once. */
    {
        events_off();
        rc = singleshot(now_ns() - NS_PER_MS, 0);
        t0 = now_ns();
        rc = rc ? rc : poll_port(timer_port, t0 + 300 * NS_PER_MS);
        t1 = now_ns();
        events_on();
        check("poll_pending_returns_at_once", rc == 0 && t1 - t0 < 50 * NS_PER_MS,
              "poll = %ld after %lu ns (want < 50 ms)", rc, (unsigned long)(t1 - t0));
    }
}

/* ---- 8. Runstate --------------------------------------------------------------- */

static void test_runstate(void)
{
    uint64_t arg = (uint64_t)&runstate;
    volatile struct vcpu_runstate_info *rs = &runstate;
    uint64_t blocked0, blocked1, now;
    unsigned before;
    long rc, brc;

    memset(&runstate, 0xff, sizeof(runstate));
    rc = vcpu_op(VCPUOP_register_runstate_memory_area, &arg);
    now = now_ns();
    if (!check("register_runstate", rc == 0 && rs->state == RUNSTATE_running &&
               rs->state_entry_time <= now,
               "register = %ld; state %d (want running 0), entry time %lu (now %lu)",
               rc, rs->state, (unsigned long)rs->state_entry_time, (unsigned long)now))
        return;

    blocked0 = rs->time[RUNSTATE_blocked];
    before = up.timer;
    events_off();
    rc = singleshot(now_ns() + 2 * NS_PER_MS, 0);
    wait_timer(before, 50, &brc);
    poke();
    blocked1 = rs->time[RUNSTATE_blocked];
    check("runstate_blocked_grows",
          rc == 0 && up.timer == before + 1 && blocked1 >= blocked0 + NS_PER_MS / 2,
          "arm = %ld, %u timer upcalls; time[blocked] %lu -> %lu ns over a 2 ms block",
          rc, up.timer - before, (unsigned long)blocked0, (unsigned long)blocked1);
    now = now_ns();
    check("runstate_running_after_block",
          rs->state == RUNSTATE_running && rs->state_entry_time <= now &&
          rs->state_entry_time + 500 * NS_PER_MS > now,
          "state %d (want 0), entry time %lu, now %lu", rs->state,
          (unsigned long)rs->state_entry_time, (unsigned long)now);
}

/* ---- 9. Many ticks ------------------------------------------------------------ */

#define TICKS 200
static int64_t latency[TICKS];

static void sort(int64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        int64_t x = v[i];
        unsigned j = i;

        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void test_many_ticks(void)
{
    unsigned delivered = 0, early = 0, arm_failed = 0, blocks = 0, others;
    unsigned count0 = up.count;
    struct pvtime start, end;
    uint64_t worst_early = 0;
    long first_brc = 0;

    others = up.other + up.empty;
    pvclock_read_from(&vi->time, &start);
    for (unsigned i = 0; i < TICKS; i++) {
        struct pvtime t;
        unsigned before = up.timer;
        uint64_t deadline;
        long rc, brc;

        events_off();
        pvclock_read_from(&vi->time, &t);
        deadline = t.ns + 100 * NS_PER_US;
        rc = singleshot(deadline, 0);
        if (rc)
            arm_failed++;
        blocks += wait_timer(before, 100, &brc);
        if (brc && !first_brc)
            first_brc = brc;
        if (up.timer == before + 1) {
            delivered++;
            if (up.timer_ns < deadline) {
                early++;
                if (deadline - up.timer_ns > worst_early)
                    worst_early = deadline - up.timer_ns;
            }
        }
        latency[i] = (int64_t)(up.timer_tsc - (t.tsc + ns_to_ticks(100 * NS_PER_US)));
    }
    pvclock_read_from(&vi->time, &end);

    sort(latency, TICKS);
    printk("events: timer tick cycles %ld (%ld - %ld)\n", (long)latency[TICKS / 2],
           (long)latency[0], (long)latency[TICKS - 1]);
    printk("events: %u ticks in %lu us, %u blocks, %u upcalls\n", delivered,
           (unsigned long)((end.ns - start.ns) / NS_PER_US), blocks, up.count - count0);
    check("many_ticks_delivered",
          delivered == TICKS && arm_failed == 0 && first_brc == 0 && blocks == TICKS,
          "%u of %d timer upcalls; %u arms failed; block returned %ld; "
          "%u blocks (want one per tick)", delivered, TICKS, arm_failed, first_brc,
          blocks);
    check("many_ticks_not_early", early == 0,
          "%u upcalls came before their deadline by pvclock, by up to %lu ns",
          early, (unsigned long)worst_early);
    if (up.other + up.empty != others)
        printk("events: %u upcalls during the ticks found no timer port\n",
               up.other + up.empty - others);
    check("many_ticks_took_time", end.ns - start.ns >= TICKS * 100 * NS_PER_US,
          "%d ticks of 100 us took %lu ns", TICKS, (unsigned long)(end.ns - start.ns));

    /* Over all those refreshes of the time record, system time still
     * advanced exactly as the TSC did. */
    {
        uint64_t got = end.ns - start.ns, want = ticks_to_ns(end.tsc - start.tsc);
        uint64_t diff = got > want ? got - want : want - got;

        check("pvclock_consistent_over_refreshes", diff <= want / 10000 + 10000,
              "%lu TSC ticks = %lu ns at %u kHz, system time advanced %lu ns",
              (unsigned long)(end.tsc - start.tsc), (unsigned long)want, tsc_khz,
              (unsigned long)got);
    }
}

void guest_main(const struct start_info *start)
{
    si = start;
    if (!test_shared_info())
        return;
    test_pvclock();
    test_register_vcpu_info();
    if (test_callback_and_bind()) {
        test_upcalls();
        test_masking();
        test_timers();
        test_poll();
        test_runstate();
        test_many_ticks();
    }
    check("upcall_bookkeeping", up.bad_mask == 0 && up.bad_pending == 0 &&
          up.bad_frame == 0,
          "%u upcalls entered with events unmasked, %u without upcall_pending, "
          "%u with a misaligned frame", up.bad_mask, up.bad_pending, up.bad_frame);
    printk("events: %u upcalls (%u timer, %u ipi, %u other ports, %u empty)\n",
           up.count, up.timer, up.ipi, up.other, up.empty);
    printk("events: %u passed, %u failed\n", tests_passed, tests_failed);
}
