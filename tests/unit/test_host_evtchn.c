/*
 * Unit tests of event channels (host/events/evtchn.c): the 2-level raise, every
 * event_channel_op, back-end ports, and moving vcpu_info with
 * VCPUOP_register_vcpu_info.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#include "../../host/events/evtchn.h"
#include "../../host/events/time.h"

#define FRAMES      64
#define SHINFO_MFN  3
#define GUEST_BASE  16      /* guest_mfn_base */
#define GUEST_PAGES 16
#define VA          0xffffffff80400000ull   /* 4 pages: GUEST_BASE.. */
#define VA_PAGES    4

/* ---- Fakes of the environment --------------------------------------------- */

static uint64_t fake_tsc;
static unsigned notified[16];
static unsigned nr_notified;

uint64_t env_rdtsc(void)
{
    return fake_tsc;
}

void env_timer_arm(uint64_t deadline_ns, uint64_t now_ns)
{
    (void)deadline_ns, (void)now_ns;
}

void env_timer_cancel(void)
{
}

void env_notify_backend(unsigned port)
{
    if (nr_notified < 16)
        notified[nr_notified] = port;
    nr_notified++;
}

/* ---- Helpers ------------------------------------------------------------------ */

static volatile struct shared_info *si;
static volatile struct vcpu_info *vi0;   /* shared_info's vcpu_info[0] */

static void setup(void)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = GUEST_PAGES;
    host_env_map_range(VA, GUEST_BASE, VA_PAGES, HOST_ENV_RW);
    evtchn_shared_info_mfn = SHINFO_MFN;
    evtchn_init();
    fake_tsc = 12345;
    time_tsc_khz = 2000000;
    time_init();
    nr_notified = 0;
    si = host_env_frame(SHINFO_MFN);
    vi0 = &si->vcpu_info[0];
}

/* Host pointer to guest VA `va` (inside the VA_PAGES mapped at VA). */
static void *guest(uint64_t va)
{
    return (uint8_t *)host_env_frame(GUEST_BASE + (va - VA) / 4096) + (va & 0xfff);
}

/* Run event_channel_op `cmd` on a copy of `s` placed at VA; copy it back. */
static long op(uint64_t cmd, void *s, size_t len)
{
    long rc;

    memcpy(guest(VA), s, len);
    rc = do_event_channel_op(cmd, VA, 0, 0, 0);
    memcpy(s, guest(VA), len);
    return rc;
}

/* The new port, or the error. */
static long bind_virq(uint32_t virq, uint32_t vcpu)
{
    struct evtchn_bind_virq b = { .virq = virq, .vcpu = vcpu, .port = 0xdead };
    long rc = op(EVTCHNOP_bind_virq, &b, sizeof(b));

    return rc ? rc : (long)b.port;
}

static long bind_ipi(void)
{
    struct evtchn_bind_ipi b = { .vcpu = 0, .port = 0xdead };
    long rc = op(EVTCHNOP_bind_ipi, &b, sizeof(b));

    return rc ? rc : (long)b.port;
}

static long port_op(uint64_t cmd, uint32_t port)
{
    return op(cmd, &port, sizeof(port));
}

/* EVTCHNOP_status of `port`: the status, or the error. */
static long status_of(uint32_t port, struct evtchn_status *out)
{
    struct evtchn_status s = { .dom = DOMID_SELF, .port = port };
    long rc;

    memset(&s.u, 0xaa, sizeof(s.u));
    rc = op(EVTCHNOP_status, &s, sizeof(s));
    if (out)
        *out = s;
    return rc ? rc : (long)s.status;
}

static bool bit(volatile const uint64_t *words, unsigned n)
{
    return (words[n / 64] >> (n % 64)) & 1;
}

static void set_bit(volatile uint64_t *words, unsigned n)
{
    words[n / 64] |= 1ull << (n % 64);
}

static void clear_upcall(volatile struct vcpu_info *vi)
{
    vi->evtchn_upcall_pending = 0;
    vi->evtchn_pending_sel = 0;
}

/* ---- The 2-level raise ----------------------------------------------------- */

static void raise_unmasked_sets_all_three_levels(void)
{
    long port;

    setup();
    port = bind_ipi();
    CHECK(port == 1);
    evtchn_raise(port);
    CHECK(bit(si->evtchn_pending, port));
    CHECK(vi0->evtchn_pending_sel == 1);
    CHECK(vi0->evtchn_upcall_pending == 1);
}

static void raise_masked_sets_only_pending(void)
{
    long port;

    setup();
    port = bind_ipi();
    set_bit(si->evtchn_mask, port);
    evtchn_raise(port);
    CHECK(bit(si->evtchn_pending, port));
    CHECK(vi0->evtchn_pending_sel == 0);
    CHECK(vi0->evtchn_upcall_pending == 0);
    CHECK(!evtchn_upcall_due());
}

/* A port already pending is not raised again: the guest has yet to see it. */
static void raise_when_already_pending_changes_nothing(void)
{
    long port;

    setup();
    port = bind_ipi();
    evtchn_raise(port);
    clear_upcall(vi0);
    evtchn_raise(port);
    CHECK(vi0->evtchn_pending_sel == 0);
    CHECK(vi0->evtchn_upcall_pending == 0);
}

/* Port P sets bit P/64 of the selector; a selector bit already set (another
 * port of that word pending) asks for no new upcall. */
static void raise_sets_the_ports_selector_word(void)
{
    setup();
    CHECK(evtchn_bind_backend(70, PERCH_LINE_CONSOLE) == 0);
    CHECK(evtchn_bind_backend(4095, PERCH_LINE_CONSOLE) == 0);
    CHECK(evtchn_bind_backend(127, PERCH_LINE_CONSOLE) == 0);
    evtchn_raise(70);
    CHECK(bit(si->evtchn_pending, 70));
    CHECK(vi0->evtchn_pending_sel == 1ull << 1);
    evtchn_raise(4095);
    CHECK(vi0->evtchn_pending_sel == ((1ull << 1) | (1ull << 63)));
    vi0->evtchn_upcall_pending = 0;
    evtchn_raise(127);   /* word 1 again */
    CHECK(bit(si->evtchn_pending, 127));
    CHECK(vi0->evtchn_upcall_pending == 0);
}

static void raise_of_free_or_invalid_port_ignored(void)
{
    uint8_t before[sizeof(struct shared_info)];

    setup();
    memcpy(before, (const void *)si, sizeof(before));
    evtchn_raise(0);
    evtchn_raise(5);
    evtchn_raise(4096);
    evtchn_raise(~0u);
    evtchn_raise_virq(VIRQ_TIMER);   /* not bound */
    evtchn_raise_virq(99);
    CHECK(memcmp(before, (const void *)si, sizeof(before)) == 0);
}

static void upcall_due_needs_pending_and_no_mask(void)
{
    setup();
    vi0->evtchn_upcall_pending = 0;
    vi0->evtchn_upcall_mask = 0;
    CHECK(!evtchn_upcall_due());
    vi0->evtchn_upcall_pending = 1;
    CHECK(evtchn_upcall_due());
    vi0->evtchn_upcall_mask = 1;
    CHECK(!evtchn_upcall_due());
}

/* Before shared_info is known nothing is raised, nothing is due. */
static void no_shared_info_no_events(void)
{
    long port;

    setup();
    port = bind_ipi();
    evtchn_shared_info_mfn = INVALID_MFN;
    CHECK(evtchn_shared_info() == NULL);
    CHECK(evtchn_vcpu_info() == NULL);
    evtchn_raise(port);
    CHECK(!evtchn_upcall_due());
    CHECK(!evtchn_port_pending(port));
    evtchn_shared_info_mfn = FRAMES;   /* outside machine memory */
    CHECK(evtchn_shared_info() == NULL);
    evtchn_shared_info_mfn = SHINFO_MFN;
    CHECK(!bit(si->evtchn_pending, port));
}

/* ---- bind_virq, bind_ipi ---------------------------------------------------- */

static void bind_virq_timer_and_raise_it(void)
{
    struct evtchn_status s;
    long port;

    setup();
    port = bind_virq(VIRQ_TIMER, 0);
    CHECK(port == 1);
    CHECK(status_of(port, &s) == EVTCHNSTAT_virq);
    CHECK(s.u.virq == VIRQ_TIMER && s.vcpu == 0);
    evtchn_raise_virq(VIRQ_TIMER);
    CHECK(bit(si->evtchn_pending, port));
    CHECK(vi0->evtchn_upcall_pending == 1);
}

static void bind_virq_errors(void)
{
    setup();
    CHECK(bind_virq(VIRQ_TIMER, 0) == 1);
    CHECK(bind_virq(VIRQ_TIMER, 0) == -XEN_EEXIST);
    CHECK(bind_virq(VIRQ_DEBUG, 1) == -XEN_ENOENT);     /* per vCPU, no vCPU 1 */
    CHECK(bind_virq(VIRQ_CONSOLE, 1) == -XEN_EINVAL);   /* global: vCPU 0 only */
    CHECK(bind_virq(XEN_NR_VIRQS, 0) == -XEN_EINVAL);
    CHECK(bind_virq(~0u, 0) == -XEN_EINVAL);
    CHECK(bind_virq(VIRQ_DEBUG, ~0u) == -XEN_ENOENT);
    CHECK(bind_virq(VIRQ_DEBUG, 0) == 2);
    CHECK(bind_virq(VIRQ_CONSOLE, 0) == 3);   /* bound, never raised */
    CHECK(bind_virq(VIRQ_XENOPROF, 0) == 4);
    CHECK(bind_virq(VIRQ_XENPMU, 0) == 5);
    CHECK(bind_virq(XEN_NR_VIRQS - 1, 0) == 6);
}

static void bind_ipi_takes_lowest_free_port(void)
{
    setup();
    CHECK(evtchn_bind_backend(2, PERCH_LINE_CONSOLE) == 0);
    CHECK(bind_ipi() == 1);
    CHECK(bind_ipi() == 3);
    CHECK(bind_ipi() == 4);
    CHECK(port_op(EVTCHNOP_close, 3) == 0);
    CHECK(bind_ipi() == 3);
    CHECK(status_of(3, NULL) == EVTCHNSTAT_ipi);
    {
        struct evtchn_bind_ipi b = { .vcpu = 1 };

        CHECK(op(EVTCHNOP_bind_ipi, &b, sizeof(b)) == -XEN_ENOENT);
    }
}

static void ports_run_out(void)
{
    setup();
    for (unsigned i = 1; i < EVTCHN_2L_NR_CHANNELS; i++)
        CHECK(bind_ipi() == (long)i);
    CHECK(bind_ipi() == -XEN_ENOSPC);
    CHECK(bind_virq(VIRQ_TIMER, 0) == -XEN_ENOSPC);
    CHECK(port_op(EVTCHNOP_close, 77) == 0);
    CHECK(bind_virq(VIRQ_TIMER, 0) == 77);
}

/* ---- send, close, unmask ---------------------------------------------------- */

static void send_ipi_raises_it(void)
{
    long port;

    setup();
    port = bind_ipi();
    CHECK(port_op(EVTCHNOP_send, port) == 0);
    CHECK(bit(si->evtchn_pending, port));
    CHECK(vi0->evtchn_upcall_pending == 1);
    CHECK(nr_notified == 0);
}

static void send_backend_port_notifies_backend(void)
{
    setup();
    CHECK(evtchn_bind_backend(1, 3) == 0);
    CHECK(port_op(EVTCHNOP_send, 1) == 0);
    CHECK(port_op(EVTCHNOP_send, 1) == 0);
    CHECK(nr_notified == 2 && notified[0] == 3 && notified[1] == 3);   /* the line */
    CHECK(!bit(si->evtchn_pending, 1));   /* the guest's own side: untouched */
    CHECK(status_of(1, NULL) == EVTCHNSTAT_interdomain);
}

/* Xen accepts sends on IPI and interdomain ports only. */
static void send_elsewhere_einval(void)
{
    long vport;

    setup();
    vport = bind_virq(VIRQ_TIMER, 0);
    CHECK(port_op(EVTCHNOP_send, vport) == -XEN_EINVAL);
    CHECK(!bit(si->evtchn_pending, vport));
    CHECK(port_op(EVTCHNOP_send, 0) == -XEN_EINVAL);
    CHECK(port_op(EVTCHNOP_send, 9) == -XEN_EINVAL);
    CHECK(port_op(EVTCHNOP_send, 4096) == -XEN_EINVAL);
    CHECK(port_op(EVTCHNOP_send, ~0u) == -XEN_EINVAL);
    CHECK(nr_notified == 0);
}

static void close_frees_port_and_clears_pending(void)
{
    long port;

    setup();
    port = bind_virq(VIRQ_TIMER, 0);
    set_bit(si->evtchn_mask, port);
    evtchn_raise_virq(VIRQ_TIMER);
    CHECK(port_op(EVTCHNOP_close, port) == 0);
    CHECK(!bit(si->evtchn_pending, port));
    CHECK(bit(si->evtchn_mask, port));   /* the mask is the guest's */
    CHECK(status_of(port, NULL) == EVTCHNSTAT_closed);
    evtchn_raise_virq(VIRQ_TIMER);
    evtchn_raise(port);
    CHECK(!bit(si->evtchn_pending, port));
    CHECK(bind_virq(VIRQ_TIMER, 0) == port);   /* may be bound again */
    CHECK(port_op(EVTCHNOP_close, port) == 0);
    CHECK(port_op(EVTCHNOP_close, port) == -XEN_EINVAL);
    CHECK(port_op(EVTCHNOP_close, 0) == -XEN_EINVAL);
    CHECK(port_op(EVTCHNOP_close, 4096) == -XEN_EINVAL);
}

static void close_backend_port(void)
{
    setup();
    CHECK(evtchn_bind_backend(1, PERCH_LINE_CONSOLE) == 0);
    CHECK(evtchn_backends_bound());
    CHECK(port_op(EVTCHNOP_close, 1) == 0);
    CHECK(!evtchn_backends_bound());
    CHECK(port_op(EVTCHNOP_send, 1) == -XEN_EINVAL);
    evtchn_raise(1);                     /* a late notification: dropped */
    CHECK(!bit(si->evtchn_pending, 1));
    CHECK(nr_notified == 0);
}

/* Xen's unmask: a port masked while pending reaches the second level now. */
static void unmask_reraises_pending_port(void)
{
    long port;

    setup();
    port = bind_ipi();
    set_bit(si->evtchn_mask, port);
    evtchn_raise(port);
    CHECK(vi0->evtchn_upcall_pending == 0);
    CHECK(port_op(EVTCHNOP_unmask, port) == 0);
    CHECK(!bit(si->evtchn_mask, port));
    CHECK(vi0->evtchn_pending_sel == 1);
    CHECK(vi0->evtchn_upcall_pending == 1);
}

static void unmask_without_pending_or_mask_raises_nothing(void)
{
    long port;

    setup();
    port = bind_ipi();
    set_bit(si->evtchn_mask, port);
    CHECK(port_op(EVTCHNOP_unmask, port) == 0);
    CHECK(!bit(si->evtchn_mask, port));
    CHECK(vi0->evtchn_upcall_pending == 0);
    /* Pending but never masked: the raise already did the rest. */
    evtchn_raise(port);
    clear_upcall(vi0);
    CHECK(port_op(EVTCHNOP_unmask, port) == 0);
    CHECK(vi0->evtchn_upcall_pending == 0);
    CHECK(port_op(EVTCHNOP_unmask, 4096) == -XEN_EINVAL);
    CHECK(port_op(EVTCHNOP_unmask, 300) == 0);   /* free port: only unmasked */
}

/* ---- status, bind_vcpu, reset ---------------------------------------------- */

static void status_of_each_kind(void)
{
    struct evtchn_status s;

    setup();
    CHECK(evtchn_bind_backend(1, PERCH_LINE_CONSOLE) == 0);
    CHECK(bind_virq(VIRQ_DEBUG, 0) == 2);
    CHECK(bind_ipi() == 3);
    CHECK(status_of(0, &s) == EVTCHNSTAT_closed);
    CHECK(status_of(1, &s) == EVTCHNSTAT_interdomain);
    CHECK(s.u.interdomain.dom == 0 && s.u.interdomain.port == 0);
    CHECK(status_of(2, &s) == EVTCHNSTAT_virq && s.u.virq == VIRQ_DEBUG);
    CHECK(status_of(3, &s) == EVTCHNSTAT_ipi && s.vcpu == 0);
    CHECK(status_of(4095, &s) == EVTCHNSTAT_closed);
    CHECK(status_of(4096, NULL) == -XEN_EINVAL);
    {
        struct evtchn_status other = { .dom = 0, .port = 1 };

        CHECK(op(EVTCHNOP_status, &other, sizeof(other)) == -XEN_ESRCH);
    }
}

static long bind_vcpu(uint32_t port, uint32_t vcpu)
{
    struct evtchn_bind_vcpu b = { .port = port, .vcpu = vcpu };

    return op(EVTCHNOP_bind_vcpu, &b, sizeof(b));
}

static void bind_vcpu_rules(void)
{
    setup();
    CHECK(bind_virq(VIRQ_TIMER, 0) == 1);
    CHECK(bind_virq(VIRQ_CONSOLE, 0) == 2);
    CHECK(bind_ipi() == 3);
    CHECK(evtchn_bind_backend(4, PERCH_LINE_CONSOLE) == 0);
    CHECK(bind_vcpu(1, 0) == -XEN_EINVAL);   /* per-vCPU virq */
    CHECK(bind_vcpu(2, 0) == 0);             /* global virq */
    CHECK(bind_vcpu(3, 0) == -XEN_EINVAL);   /* IPI */
    CHECK(bind_vcpu(4, 0) == 0);             /* interdomain */
    CHECK(bind_vcpu(5, 0) == -XEN_EINVAL);   /* free */
    CHECK(bind_vcpu(4096, 0) == -XEN_EINVAL);
    CHECK(bind_vcpu(4, 1) == -XEN_ENOENT);
}

static void reset_closes_guest_ports_keeps_backends(void)
{
    struct evtchn_reset r = { .dom = DOMID_SELF };

    setup();
    CHECK(evtchn_bind_backend(1, PERCH_LINE_CONSOLE) == 0);
    CHECK(bind_virq(VIRQ_TIMER, 0) == 2);
    CHECK(bind_ipi() == 3);
    evtchn_raise(3);
    CHECK(op(EVTCHNOP_reset, &r, sizeof(r)) == 0);
    CHECK(status_of(1, NULL) == EVTCHNSTAT_interdomain);
    CHECK(status_of(2, NULL) == EVTCHNSTAT_closed);
    CHECK(status_of(3, NULL) == EVTCHNSTAT_closed);
    CHECK(!bit(si->evtchn_pending, 3));
    CHECK(bind_virq(VIRQ_TIMER, 0) == 2);
    r.dom = 1;
    CHECK(op(EVTCHNOP_reset, &r, sizeof(r)) == -XEN_ESRCH);
    CHECK(status_of(2, NULL) == EVTCHNSTAT_virq);
}

static void not_offered_and_unknown_enosys(void)
{
    static const uint64_t cmds[] = {
        EVTCHNOP_bind_interdomain, EVTCHNOP_bind_pirq,
        EVTCHNOP_init_control, EVTCHNOP_expand_array, EVTCHNOP_set_priority,
        14, 15, 1000, ~0ull, (1ull << 32) | EVTCHNOP_bind_ipi,
    };
    uint8_t zeros[32] = { 0 };

    setup();
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        CHECK(op(cmds[i], zeros, sizeof(zeros)) == -XEN_ENOSYS);
    CHECK(status_of(1, NULL) == EVTCHNSTAT_closed);   /* nothing bound */
}

/* Hypercall 16: { cmd; union at offset 4 }. */
static void compat_entry_forwards_old_ops(void)
{
    uint8_t *g;
    uint32_t cmd = EVTCHNOP_bind_ipi, port;

    setup();
    g = guest(VA + 0x100);
    memset(g, 0, 32);
    memcpy(g, &cmd, 4);
    CHECK(do_event_channel_op_compat(VA + 0x100, 0, 0, 0, 0) == 0);
    memcpy(&port, g + 4 + 4, 4);   /* bind_ipi.port */
    CHECK(port == 1);
    cmd = EVTCHNOP_send;
    memcpy(g, &cmd, 4);
    memcpy(g + 4, &port, 4);
    CHECK(do_event_channel_op_compat(VA + 0x100, 0, 0, 0, 0) == 0);
    CHECK(bit(si->evtchn_pending, 1));
    cmd = EVTCHNOP_init_control;
    memcpy(g, &cmd, 4);
    CHECK(do_event_channel_op_compat(VA + 0x100, 0, 0, 0, 0) == -XEN_ENOSYS);
    cmd = EVTCHNOP_reset;   /* newer than the compat interface */
    memcpy(g, &cmd, 4);
    CHECK(do_event_channel_op_compat(VA + 0x100, 0, 0, 0, 0) == -XEN_ENOSYS);
    CHECK(do_event_channel_op_compat(0, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_event_channel_op_compat(VA + VA_PAGES * 4096, 0, 0, 0, 0) == -XEN_EFAULT);
}

static void bad_pointers_efault(void)
{
    static const uint64_t cmds[] = {
        EVTCHNOP_bind_virq, EVTCHNOP_bind_ipi, EVTCHNOP_close, EVTCHNOP_send,
        EVTCHNOP_status, EVTCHNOP_bind_vcpu, EVTCHNOP_unmask, EVTCHNOP_reset,
    };
    const uint64_t bad[] = {
        0, VA + VA_PAGES * 4096, VA + VA_PAGES * 4096 - 1, HOST_IMAGE_VA,
        PERCH_ALIAS_VA, 0x8000000000000000ull,
    };

    setup();
    for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
        for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
            CHECK(do_event_channel_op(cmds[c], bad[b], 0, 0, 0) == -XEN_EFAULT);
    CHECK(status_of(1, NULL) == EVTCHNSTAT_closed);
}

/* The result cannot be written back: -EFAULT, but (as in Xen) bound. */
static void read_only_struct_efault_but_bound(void)
{
    struct evtchn_bind_virq b = { .virq = VIRQ_TIMER, .vcpu = 0 };
    struct evtchn_status s = { .dom = DOMID_SELF, .port = 1 };

    setup();
    host_env_map(VA + 0x3000, GUEST_BASE + 3, HOST_ENV_RO);
    memcpy(guest(VA + 0x3000), &b, sizeof(b));
    CHECK(do_event_channel_op(EVTCHNOP_bind_virq, VA + 0x3000, 0, 0, 0) == -XEN_EFAULT);
    CHECK(bind_virq(VIRQ_TIMER, 0) == -XEN_EEXIST);
    memcpy(guest(VA + 0x3000), &s, sizeof(s));
    CHECK(do_event_channel_op(EVTCHNOP_status, VA + 0x3000, 0, 0, 0) == -XEN_EFAULT);
    CHECK(port_op(EVTCHNOP_close, 1) == 0);
}

static void backend_binding_rules(void)
{
    setup();
    CHECK(!evtchn_backends_bound());
    CHECK(evtchn_bind_backend(0, PERCH_LINE_CONSOLE) == -XEN_EINVAL);
    CHECK(evtchn_bind_backend(4096, PERCH_LINE_CONSOLE) == -XEN_EINVAL);
    CHECK(evtchn_bind_backend(1, PERCH_LINES) == -XEN_EINVAL);
    CHECK(evtchn_bind_backend(1, PERCH_LINE_CONSOLE) == 0);
    CHECK(evtchn_bind_backend(1, PERCH_LINE_CONSOLE) == -XEN_EBUSY);
    CHECK(evtchn_backends_bound());
    CHECK(bind_ipi() == 2);   /* the guest's bindings go around it */
    CHECK(evtchn_bind_backend(2, PERCH_LINE_CONSOLE) == -XEN_EBUSY);
    evtchn_raise(1);          /* the back end notifies the guest */
    CHECK(bit(si->evtchn_pending, 1) && vi0->evtchn_upcall_pending);
}

/* ---- register_vcpu_info ---------------------------------------------------- */

static long register_vcpu_info(uint64_t mfn, uint32_t offset)
{
    struct vcpu_register_vcpu_info r = { .mfn = mfn, .offset = offset };

    memcpy(guest(VA), &r, sizeof(r));
    return do_vcpu_op(VCPUOP_register_vcpu_info, 0, VA, 0, 0);
}

static void register_vcpu_info_moves_it(void)
{
    volatile struct vcpu_info *vi;
    uint32_t version;
    long port;

    setup();
    port = bind_ipi();
    vi0->evtchn_upcall_mask = 1;
    vi0->evtchn_pending_sel = 5;
    vi0->arch.cr2 = 0x1234;
    version = vi0->time.version;
    fake_tsc = 4000000000ull;   /* 2 s at 2 GHz */
    CHECK(register_vcpu_info(GUEST_BASE + 1, 64) == 0);
    vi = (volatile struct vcpu_info *)((uint8_t *)host_env_frame(GUEST_BASE + 1) + 64);
    CHECK(evtchn_vcpu_info() == vi);
    CHECK(vi->evtchn_upcall_mask == 1);
    CHECK(vi->arch.cr2 == 0x1234);
    CHECK(vi->evtchn_pending_sel == ~0ull);
    CHECK(vi->evtchn_upcall_pending == 1);
    CHECK(vi->time.version == version + 2 && vi->time.version % 2 == 0);
    CHECK(vi->time.tsc_timestamp == 4000000000ull);
    CHECK(vi->time.system_time == 2000000000ull);
    CHECK(vi->time.tsc_to_system_mul != 0);
    /* From now on events land there. */
    clear_upcall(vi);
    clear_upcall(vi0);
    evtchn_raise(port);
    CHECK(vi->evtchn_upcall_pending == 1 && vi->evtchn_pending_sel == 1);
    CHECK(vi0->evtchn_upcall_pending == 0 && vi0->evtchn_pending_sel == 0);
    vi->evtchn_upcall_mask = 0;
    CHECK(evtchn_upcall_due());
    /* Once only (Xen 4.17: -EINVAL). */
    CHECK(register_vcpu_info(GUEST_BASE + 2, 0) == -XEN_EINVAL);
    CHECK(evtchn_vcpu_info() == vi);
}

static void register_vcpu_info_last_slot_of_page(void)
{
    setup();
    CHECK(register_vcpu_info(GUEST_BASE + GUEST_PAGES - 1, 4096 - 64) == 0);
    CHECK(evtchn_vcpu_info() ==
          (volatile struct vcpu_info *)((uint8_t *)host_env_frame(GUEST_BASE + GUEST_PAGES - 1) +
                                        4096 - 64));
}

static void register_vcpu_info_refused(void)
{
    uint8_t before[4096];

    setup();
    memcpy(before, host_env_frame(GUEST_BASE + 1), sizeof(before));
    CHECK(register_vcpu_info(GUEST_BASE + 1, 4096 - 56) == -XEN_ENXIO);  /* crosses */
    CHECK(register_vcpu_info(GUEST_BASE + 1, 4096) == -XEN_ENXIO);
    CHECK(register_vcpu_info(GUEST_BASE + 1, 0xffffffffu) == -XEN_ENXIO);
    CHECK(register_vcpu_info(GUEST_BASE + 1, 4) == -XEN_ENXIO);          /* unaligned */
    CHECK(register_vcpu_info(GUEST_BASE + 1, 60) == -XEN_ENXIO);
    CHECK(register_vcpu_info(SHINFO_MFN, 0) == -XEN_EINVAL);     /* perch's */
    CHECK(register_vcpu_info(GUEST_BASE - 1, 0) == -XEN_EINVAL);
    CHECK(register_vcpu_info(GUEST_BASE + GUEST_PAGES, 0) == -XEN_EINVAL);
    CHECK(register_vcpu_info(FRAMES + 5, 0) == -XEN_EINVAL);
    CHECK(register_vcpu_info(~0ull, 0) == -XEN_EINVAL);
    CHECK(register_vcpu_info(1ull << 52, 0) == -XEN_EINVAL);
    CHECK(do_vcpu_op(VCPUOP_register_vcpu_info, 0, 0, 0, 0) == -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_register_vcpu_info, 0, VA + VA_PAGES * 4096 - 8, 0, 0) ==
          -XEN_EFAULT);
    CHECK(do_vcpu_op(VCPUOP_register_vcpu_info, 1, VA, 0, 0) == -XEN_ENOENT);
    CHECK(evtchn_vcpu_info() == vi0);
    CHECK(memcmp(before, host_env_frame(GUEST_BASE + 1), sizeof(before)) == 0);
}

/* A perch whose guest memory starts beyond the memslot refuses too. */
static void register_vcpu_info_frame_beyond_memory(void)
{
    setup();
    perch_shared.boot.guest_nr_pages = FRAMES * 2;
    CHECK(register_vcpu_info(FRAMES + 1, 0) == -XEN_EINVAL);
    CHECK(register_vcpu_info(FRAMES - 1 - 8, 0) == 0);   /* below the tables */
}

int main(void)
{
    RUN(raise_unmasked_sets_all_three_levels);
    RUN(raise_masked_sets_only_pending);
    RUN(raise_when_already_pending_changes_nothing);
    RUN(raise_sets_the_ports_selector_word);
    RUN(raise_of_free_or_invalid_port_ignored);
    RUN(upcall_due_needs_pending_and_no_mask);
    RUN(no_shared_info_no_events);
    RUN(bind_virq_timer_and_raise_it);
    RUN(bind_virq_errors);
    RUN(bind_ipi_takes_lowest_free_port);
    RUN(ports_run_out);
    RUN(send_ipi_raises_it);
    RUN(send_backend_port_notifies_backend);
    RUN(send_elsewhere_einval);
    RUN(close_frees_port_and_clears_pending);
    RUN(close_backend_port);
    RUN(unmask_reraises_pending_port);
    RUN(unmask_without_pending_or_mask_raises_nothing);
    RUN(status_of_each_kind);
    RUN(bind_vcpu_rules);
    RUN(reset_closes_guest_ports_keeps_backends);
    RUN(not_offered_and_unknown_enosys);
    RUN(compat_entry_forwards_old_ops);
    RUN(bad_pointers_efault);
    RUN(read_only_struct_efault_but_bound);
    RUN(backend_binding_rules);
    RUN(register_vcpu_info_moves_it);
    RUN(register_vcpu_info_last_slot_of_page);
    RUN(register_vcpu_info_refused);
    RUN(register_vcpu_info_frame_beyond_memory);
    return check_exit_status();
}
