/*
 * costs: what the basic paths of perch cost, timed with the TSC inside the
 * guest (virtbench style: batches of operations, several samples, the
 * empty loop's cost subtracted, median and range reported).
 *
 *   null hypercall       xen_version(XENVER_version): syscall to the Host
 *                        at CPL3 and back with a jmp, no ring 0
 *   direct hypercall     the same through Linux's own xen_hypercall_pv
 *                        (linux_calls.S), which perch patches into a jump
 *                        to the Host: no trap at all (--trap-hypercalls:
 *                        the syscall again)
 *   switcher round trip  perch_op: one ring-0 visit through the RESUME gate
 *   launcher round trip  perch_op: one exit to the Launcher and back
 *   probe_*              perch_op: one ring-0 visit by a probe road
 *                        (abi/layout.h, SW_GATE_PROBE_*): iretq at two
 *                        places of the Switcher's compare chain, sysretq,
 *                        two swapgs, a CR3 reload
 *
 * and with a second vCPU (--cpus 2), which spins in guest code meanwhile
 * (`smp-only` on the command line: these rows alone):
 *
 *   ipi_roundtrip        an event sent to vCPU 1, which sends one back: two
 *                        event sends, each an interrupt to a vCPU running
 *                        guest code and an upcall there
 *   shootdown            MMUEXT_TLB_FLUSH_ALL: nothing stale here, so the
 *                        cost is vCPU 1's: the IPI that makes it leave the
 *                        guest, waited for (host/mm/tlb.c)
 *
 * Lines "costs: NAME cycles MEDIAN (MIN - MAX) per op, N ops" are read by
 * tests/guests/costs.sh, which also checks that --stats counted exactly one
 * visit or exit per operation.
 */
#include "rt.h"
#include "../../abi/layout.h"
#include "events.h"
#include "smp.h"
#include "timing.h"

const char guest_name[] = "costs";

static long op_null(void)
{
    return hc_xen_version(XENVER_version, NULL) > 0 ? 0 : -1;
}

/* As Linux calls it: the number in rax, the arguments in rdi, rsi. */
static long op_direct_null(void)
{
    register unsigned long cmd asm("rdi") = XENVER_version;
    register unsigned long arg asm("rsi") = 0;
    long rc;

    asm volatile("call xen_hypercall_pv"
                 : "=a"(rc), "+r"(cmd), "+r"(arg)
                 : "a"((unsigned long)HYPERVISOR_xen_version)
                 : "rcx", "rdx", "r8", "r10", "r11", "memory");
    return rc > 0 ? 0 : -1;
}

static long op_switcher(void)
{
    return hypercall1(HYPERVISOR_perch_op, PERCH_OP_switcher_roundtrip);
}

static long op_launcher(void)
{
    return hypercall1(HYPERVISOR_perch_op, PERCH_OP_launcher_roundtrip);
}

#define PROBE(road, name)                                                    \
    static long op_probe_##name(void)                                        \
    {                                                                        \
        return hypercall2(HYPERVISOR_perch_op, PERCH_OP_switcher_probe, road); \
    }
PROBE(PERCH_PROBE_IRETQ, iretq)
PROBE(PERCH_PROBE_SYSRETQ, sysretq)
PROBE(PERCH_PROBE_SWAPGS, swapgs)
PROBE(PERCH_PROBE_CR3, cr3)
PROBE(PERCH_PROBE_IRETQ_END, iretq_end)

/* vCPU 0's and vCPU 1's IPI ports; vCPU 1 answers while partner_on. */
static uint32_t ipi_port[2];
static volatile bool partner_ready, partner_on = true;

static uint32_t bind_own_ipi(void)
{
    struct evtchn_bind_ipi bi = { .vcpu = rt_cpu_id() };

    if (rt_evtchn_op(EVTCHNOP_bind_ipi, &bi) || rt_evtchn_unmask(bi.port))
        return 0;
    return bi.port;
}

/* vCPU 1: every event from vCPU 0 answered with one back. */
static void partner(void *arg)
{
    (void)arg;
    ipi_port[1] = bind_own_ipi();
    rt_vcpu_info()->evtchn_upcall_mask = 0;
    partner_ready = true;
    while (partner_on)
        if (rt_event_take(ipi_port[1]))
            rt_evtchn_send(ipi_port[0]);
    rt_vcpu_info()->evtchn_upcall_mask = 1;
}

/* The answer, or -1 after a second without one. */
static long op_ipi(void)
{
    uint64_t deadline;

    if (rt_evtchn_send(ipi_port[1]))
        return -1;
    deadline = rt_now_ns() + 1000 * RT_NS_PER_MS;
    while (!rt_event_take(ipi_port[0]))
        if (rt_now_ns() > deadline)
            return -1;
    return 0;
}

static long op_shootdown(void)
{
    struct mmuext_op op = { .cmd = MMUEXT_TLB_FLUSH_ALL };

    return hypercall4(HYPERVISOR_mmuext_op, (unsigned long)&op, 1, 0, DOMID_SELF);
}

static void measure(const char *name, long (*op)(void), unsigned batch)
{
    if (rt_time(name, op, batch))
        test_fail(name, "the operation returned an error");
    else
        test_pass(name);
}

static bool wait_partner(void *arg)
{
    (void)arg;
    return partner_ready;
}

/* The rows that need vCPU 1 answering: with one vCPU, none. */
static void measure_with_partner(const struct start_info *si)
{
    long rc;

    if (rt_cpu_count() < 2)
        return;
    if (!rt_events_init(si) || !(ipi_port[0] = bind_own_ipi())) {
        test_fail("ipi_roundtrip", "no IPI port for vCPU 0");
        return;
    }
    rc = rt_cpu_run(1, partner, NULL);
    if (rc || !rt_wait(wait_partner, NULL, 2000) || !ipi_port[1]) {
        test_fail("ipi_roundtrip", "vCPU 1 did not start answering (rt_cpu_run %ld)", rc);
        return;
    }
    rt_vcpu_info()->evtchn_upcall_mask = 0;
    measure("ipi_roundtrip", op_ipi, 200);
    measure("shootdown", op_shootdown, 200);
    rt_vcpu_info()->evtchn_upcall_mask = 1;
    partner_on = false;
    if (!rt_cpu_wait(1, 2000))
        test_fail("partner_ends", "vCPU 1 did not return");
}

void guest_main(const struct start_info *si)
{
    if (cmdline_get(si, "smp-only")) {
        measure_with_partner(si);
        return;
    }
    measure("null_hypercall", op_null, 20000);
    measure("direct_hypercall", op_direct_null, 20000);
    measure("switcher_roundtrip", op_switcher, 500);
    measure("launcher_roundtrip", op_launcher, 100);
    measure("probe_iretq", op_probe_iretq, 500);
    measure("probe_sysretq", op_probe_sysretq, 500);
    measure("probe_swapgs", op_probe_swapgs, 500);
    measure("probe_cr3", op_probe_cr3, 500);
    measure("probe_iretq_end", op_probe_iretq_end, 500);
    measure_with_partner(si);
}
