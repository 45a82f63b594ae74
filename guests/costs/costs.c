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
 * Lines "costs: NAME cycles MEDIAN (MIN - MAX) per op, N ops" are read by
 * tests/guests/costs.sh, which also checks that --stats counted exactly one
 * visit or exit per operation.
 */
#include "rt.h"
#include "../../abi/layout.h"
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

static void measure(const char *name, long (*op)(void), unsigned batch)
{
    if (rt_time(name, op, batch))
        test_fail(name, "the operation returned an error");
    else
        test_pass(name);
}

void guest_main(const struct start_info *si)
{
    (void)si;
    measure("null_hypercall", op_null, 20000);
    measure("direct_hypercall", op_direct_null, 20000);
    measure("switcher_roundtrip", op_switcher, 500);
    measure("launcher_roundtrip", op_launcher, 100);
    measure("probe_iretq", op_probe_iretq, 500);
    measure("probe_sysretq", op_probe_sysretq, 500);
    measure("probe_swapgs", op_probe_swapgs, 500);
    measure("probe_cr3", op_probe_cr3, 500);
    measure("probe_iretq_end", op_probe_iretq_end, 500);
}
