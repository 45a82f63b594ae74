/*
 * costs: what the basic paths of perch cost, timed with the TSC inside the
 * guest (virtbench style: batches of operations, several samples, the
 * empty loop's cost subtracted, median and range reported).
 *
 *   null hypercall       xen_version(XENVER_version): syscall to the Host
 *                        at CPL3 and back with a jmp, no ring 0
 *   switcher round trip  perch_op: one ring-0 visit through the RESUME gate
 *   launcher round trip  perch_op: one exit to the Launcher and back
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

static long op_switcher(void)
{
    return hypercall1(HYPERVISOR_perch_op, PERCH_OP_switcher_roundtrip);
}

static long op_launcher(void)
{
    return hypercall1(HYPERVISOR_perch_op, PERCH_OP_launcher_roundtrip);
}

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
    measure("switcher_roundtrip", op_switcher, 500);
    measure("launcher_roundtrip", op_launcher, 100);
}
