/*
 * Unit tests of the Host's part of the Launcher's back ends
 * (host/events/backend.c and the interrupt path of host/entry/trap.c): the console's
 * and xenstore's ports are bound at start as back-end lines, the guest's
 * EVTCHNOP_send on one rings the Launcher's doorbell, the Launcher's
 * interrupt (PERCH_BACKEND_VECTOR) is acknowledged and raises the lines it
 * names, and only while the guest still has their ports; a device's port,
 * allocated by the guest for domain 0, is connected only if it is one.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#include "../../host/events/backend.h"
#include "../../host/events/evtchn.h"
#include "../../host/events/time.h"

#define FRAMES     64
#define SHINFO_MFN 3
#define ARG_MFN    4
#define ARG_VA     0xffffffff80400000ull
#define PORT       PERCH_CONSOLE_PORT
#define STORE_PORT PERCH_XENSTORE_PORT
#define DISK_LINE  PERCH_LINE_FIRST_DEVICE
#define GUEST_RIP  0xffffffff81000000ull

/* Counted by host_env.c's env_notify_backend(). */
extern unsigned host_env_backend_notifications;

static volatile struct shared_info *si;
static volatile struct vcpu_info *vi;

static void setup(void)
{
    host_env_reset(FRAMES);
    host_env_map(ARG_VA, ARG_MFN, HOST_ENV_RW);
    evtchn_shared_info_mfn = SHINFO_MFN;
    evtchn_init();
    time_tsc_khz = 1000000;
    time_init();
    si = host_env_frame(SHINFO_MFN);
    vi = &si->vcpu_info[0];
    memset(&perch_shared.lines, 0, sizeof(perch_shared.lines));
    backend_init(PORT, STORE_PORT);
}

/* The Launcher raising `line`, as its device thread does. */
static void raise_line(unsigned line)
{
    perch_shared.lines.raised |= 1ull << line;
}

static bool pending(unsigned port)
{
    return (si->evtchn_pending[port / 64] >> (port % 64)) & 1;
}

/* event_channel_op(cmd) with a uint32_t-sized argument at ARG_VA. */
static long op(unsigned cmd, const void *arg, size_t len)
{
    memcpy(host_env_frame(ARG_MFN), arg, len);
    return do_event_channel_op(cmd, ARG_VA, 0, 0, 0);
}

static long send(uint32_t port)
{
    return op(EVTCHNOP_send, &port, sizeof(port));
}

/* The Launcher's interrupt arriving while the guest kernel runs. */
static void launcher_interrupt(void)
{
    struct cpu_regs r = {
        .rip = GUEST_RIP, .cs = FLAT_KERNEL_CS64, .rflags = 0x202,
        .rsp = GUEST_RIP, .ss = FLAT_KERNEL_SS64,
        .vector = PERCH_BACKEND_VECTOR,
    };

    HOST_ENV_EXPECT_STOP(host_trap(&r));
}

static void console_port_bound_at_start(void)
{
    setup();
    CHECK(PORT != 0);
    CHECK(evtchn_state.port[PORT].state == EVTCHN_BACKEND);
    CHECK(evtchn_state.port[STORE_PORT].state == EVTCHN_BACKEND);
    CHECK(evtchn_state.port[STORE_PORT].line == PERCH_LINE_XENSTORE);
    CHECK(evtchn_backends_bound());
    CHECK(evtchn_state.nr_backends == 2);
}

static void no_console_binds_nothing(void)
{
    setup();
    evtchn_init();
    backend_init(0, 0);
    CHECK(!evtchn_backends_bound());
    raise_line(PERCH_LINE_CONSOLE);
    backend_interrupt();
    CHECK(!pending(PORT));
}

static void bad_port_is_fatal(void)
{
    host_env_reset(FRAMES);
    evtchn_shared_info_mfn = SHINFO_MFN;
    evtchn_init();
    CHECK(HOST_ENV_EXPECT_STOP(backend_init(EVTCHN_2L_NR_CHANNELS, 0)));
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    CHECK_CONTAINS(host_env_last_request()->message, "line 0");
}

/* Output: a send on the console port reaches the Launcher (doorbell),
 * with no exit and nothing raised to the guest. */
static void send_rings_the_doorbell(void)
{
    unsigned before;

    setup();
    before = host_env_backend_notifications;
    CHECK(send(PORT) == 0);
    CHECK(host_env_backend_notifications == before + 1);
    CHECK(host_env_nr_requests == 0);
    CHECK(!pending(PORT));
}

static void interrupt_raises_the_port(void)
{
    unsigned acks;

    setup();
    acks = host_env_interrupt_acks;
    vi->evtchn_upcall_mask = 0;
    raise_line(PERCH_LINE_CONSOLE);
    launcher_interrupt();
    CHECK(host_env_interrupt_acks == acks + 1);
    CHECK(pending(PORT));
    CHECK(vi->evtchn_upcall_pending == 1);
    CHECK((vi->evtchn_pending_sel >> (PORT / 64)) & 1);
}

/* A port the guest masked only gets its pending bit; EVTCHNOP_unmask
 * then makes the upcall due (input typed early is not lost). */
static void masked_port_pends_until_unmasked(void)
{
    uint32_t port = PORT;

    setup();
    si->evtchn_mask[PORT / 64] |= 1ull << (PORT % 64);
    vi->evtchn_upcall_mask = 0;
    raise_line(PERCH_LINE_CONSOLE);
    backend_interrupt();
    CHECK(pending(PORT));
    CHECK(vi->evtchn_upcall_pending == 0);
    CHECK(!evtchn_upcall_due());
    CHECK(op(EVTCHNOP_unmask, &port, sizeof(port)) == 0);
    CHECK(vi->evtchn_upcall_pending == 1);
    CHECK(evtchn_upcall_due());
}

/* The guest closed the console's port and got the number again for a
 * VIRQ: the Launcher's interrupt must not raise that. */
static void closed_port_not_raised(void)
{
    uint32_t port = PORT;
    struct evtchn_bind_virq bv = { .virq = VIRQ_DEBUG, .vcpu = 0 };

    setup();
    CHECK(op(EVTCHNOP_close, &port, sizeof(port)) == 0);
    CHECK(op(EVTCHNOP_bind_virq, &bv, sizeof(bv)) == 0);
    memcpy(&bv, host_env_frame(ARG_MFN), sizeof(bv));
    CHECK(bv.port == PORT);
    raise_line(PERCH_LINE_CONSOLE);
    backend_interrupt();
    CHECK(!pending(PORT));
}

/* EVTCHNOP_reset keeps back-end ports: the console outlives it. */
static void reset_keeps_the_console(void)
{
    struct evtchn_reset r = { .dom = DOMID_SELF };

    setup();
    CHECK(op(EVTCHNOP_reset, &r, sizeof(r)) == 0);
    CHECK(evtchn_state.port[PORT].state == EVTCHN_BACKEND);
    CHECK(evtchn_state.port[STORE_PORT].state == EVTCHN_BACKEND);
    raise_line(PERCH_LINE_CONSOLE);
    backend_interrupt();
    CHECK(pending(PORT));
}

/* Only the lines the Launcher names are raised. */
static void only_raised_lines_are_raised(void)
{
    setup();
    raise_line(PERCH_LINE_XENSTORE);
    backend_interrupt();
    CHECK(pending(STORE_PORT));
    CHECK(!pending(PORT));
    CHECK(perch_shared.lines.raised == 0);
}

/* A front end's port for domain 0, as xen-blkfront allocates it. */
static uint32_t alloc_unbound(void)
{
    struct evtchn_alloc_unbound a = { .dom = DOMID_SELF, .remote_dom = 0 };

    if (op(EVTCHNOP_alloc_unbound, &a, sizeof(a)) != 0)
        return 0;
    memcpy(&a, host_env_frame(ARG_MFN), sizeof(a));
    return a.port;
}

static void connect(unsigned line, uint32_t port)
{
    perch_shared.lines.port[line] = port;
    perch_shared.lines.connect |= 1ull << line;
    backend_interrupt();
}

/* Connected: the Host answers with the port, a send reaches the
 * Launcher, a raise reaches the guest. */
static void a_device_port_is_connected(void)
{
    uint32_t port;
    unsigned before;

    setup();
    port = alloc_unbound();
    CHECK(port > STORE_PORT);
    CHECK(evtchn_state.port[port].state == EVTCHN_UNBOUND);
    before = host_env_backend_notifications;
    connect(DISK_LINE, port);
    CHECK(perch_shared.lines.connected[DISK_LINE] == port);
    CHECK(evtchn_state.port[port].state == EVTCHN_BACKEND);
    CHECK(host_env_backend_notifications == before + 1);   /* the answer */
    CHECK(send(port) == 0);
    CHECK(host_env_backend_notifications == before + 2);
    raise_line(DISK_LINE);
    backend_interrupt();
    CHECK(pending(port));
}

/* The Launcher names what the guest wrote in xenstore: a port that is not
 * an unbound one for domain 0 (a VIRQ's, the console's, a free one) is
 * refused, and keeps what it was. */
static void only_unbound_ports_are_connected(void)
{
    struct evtchn_bind_virq bv = { .virq = VIRQ_DEBUG, .vcpu = 0 };

    setup();
    CHECK(op(EVTCHNOP_bind_virq, &bv, sizeof(bv)) == 0);
    memcpy(&bv, host_env_frame(ARG_MFN), sizeof(bv));
    connect(DISK_LINE, bv.port);
    CHECK(perch_shared.lines.connected[DISK_LINE] == 0);
    CHECK(evtchn_state.port[bv.port].state == EVTCHN_VIRQ);
    connect(DISK_LINE, PORT);
    CHECK(perch_shared.lines.connected[DISK_LINE] == 0);
    CHECK(evtchn_state.port[PORT].line == PERCH_LINE_CONSOLE);
    connect(DISK_LINE, 100);
    CHECK(perch_shared.lines.connected[DISK_LINE] == 0);
    connect(DISK_LINE, EVTCHN_2L_NR_CHANNELS + 5);
    CHECK(perch_shared.lines.connected[DISK_LINE] == 0);
    raise_line(DISK_LINE);
    backend_interrupt();
    CHECK(!pending(bv.port) && !pending(100));
}

/* Nor are the fixed lines moved by a connect request. */
static void fixed_lines_are_not_connected(void)
{
    uint32_t port;

    setup();
    port = alloc_unbound();
    connect(PERCH_LINE_XENSTORE, port);
    CHECK(evtchn_state.port[port].state == EVTCHN_UNBOUND);
    CHECK(evtchn_state.port[STORE_PORT].line == PERCH_LINE_XENSTORE);
}

/* alloc_unbound only for domain 0 from the guest itself (the only other
 * domain there is); a send on a port nobody connected is dropped, as Xen
 * drops it. */
static void alloc_unbound_rules(void)
{
    struct evtchn_alloc_unbound a = { .dom = DOMID_SELF, .remote_dom = 5 };
    struct evtchn_status s;
    uint32_t port;

    setup();
    CHECK(op(EVTCHNOP_alloc_unbound, &a, sizeof(a)) == -XEN_ESRCH);
    a = (struct evtchn_alloc_unbound){ .dom = 3, .remote_dom = 0 };
    CHECK(op(EVTCHNOP_alloc_unbound, &a, sizeof(a)) == -XEN_ESRCH);
    /* Linux's own xenstore, when start_info names none: not offered. */
    a = (struct evtchn_alloc_unbound){ .dom = DOMID_SELF, .remote_dom = DOMID_SELF };
    CHECK(op(EVTCHNOP_alloc_unbound, &a, sizeof(a)) == -XEN_ENOSYS);
    port = alloc_unbound();
    CHECK(send(port) == 0);
    s = (struct evtchn_status){ .dom = DOMID_SELF, .port = port };
    CHECK(op(EVTCHNOP_status, &s, sizeof(s)) == 0);
    memcpy(&s, host_env_frame(ARG_MFN), sizeof(s));
    CHECK(s.status == EVTCHNSTAT_unbound);
    CHECK(s.u.unbound.dom == 0);
}

/* A reset closes a device's port (its front end allocates a new one) and
 * keeps the console's and xenstore's. */
static void reset_closes_device_ports(void)
{
    struct evtchn_reset r = { .dom = DOMID_SELF };
    uint32_t port;

    setup();
    port = alloc_unbound();
    connect(DISK_LINE, port);
    CHECK(op(EVTCHNOP_reset, &r, sizeof(r)) == 0);
    CHECK(evtchn_state.port[port].state == EVTCHN_FREE);
    CHECK(evtchn_state.nr_backends == 2);
    raise_line(DISK_LINE);
    backend_interrupt();
    CHECK(!pending(port));
}

/* The guest's own ports start above the console's. */
static void guest_ports_start_after_console(void)
{
    struct evtchn_bind_ipi bi = { .vcpu = 0 };

    setup();
    CHECK(op(EVTCHNOP_bind_ipi, &bi, sizeof(bi)) == 0);
    memcpy(&bi, host_env_frame(ARG_MFN), sizeof(bi));
    CHECK(bi.port != PORT && bi.port != 0);
}

/* Another vector (the timer's) raises nothing on the console port. */
static void other_vectors_do_not_raise(void)
{
    struct cpu_regs r = {
        .rip = GUEST_RIP, .cs = FLAT_KERNEL_CS64, .rflags = 0x202,
        .rsp = GUEST_RIP, .ss = FLAT_KERNEL_SS64, .vector = PERCH_TIMER_VECTOR,
    };

    unsigned acks;

    setup();
    acks = host_env_interrupt_acks;
    HOST_ENV_EXPECT_STOP(host_trap(&r));
    CHECK(host_env_interrupt_acks == acks + 1);
    CHECK(!pending(PORT));
}

int main(void)
{
    RUN(console_port_bound_at_start);
    RUN(no_console_binds_nothing);
    RUN(bad_port_is_fatal);
    RUN(send_rings_the_doorbell);
    RUN(interrupt_raises_the_port);
    RUN(masked_port_pends_until_unmasked);
    RUN(closed_port_not_raised);
    RUN(reset_keeps_the_console);
    RUN(only_raised_lines_are_raised);
    RUN(a_device_port_is_connected);
    RUN(only_unbound_ports_are_connected);
    RUN(fixed_lines_are_not_connected);
    RUN(alloc_unbound_rules);
    RUN(reset_closes_device_ports);
    RUN(guest_ports_start_after_console);
    RUN(other_vectors_do_not_raise);
    return check_exit_status();
}
