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

const char guest_name[] = "costs";

#define SAMPLES 11

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

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

static long op_empty(void)
{
    __asm__ volatile("" ::: "memory");
    return 0;
}

/* Cycles per op of one batch; -1 if an op failed. */
static int64_t time_batch(long (*op)(void), unsigned batch)
{
    uint64_t start = rdtsc();

    for (unsigned i = 0; i < batch; i++)
        if (op())
            return -1;
    return (int64_t)(rdtsc() - start) / batch;
}

static void sort(int64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];

            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static void measure(const char *name, long (*op)(void), unsigned batch)
{
    int64_t s[SAMPLES], empty = time_batch(op_empty, batch);

    for (int i = 0; i < SAMPLES; i++) {
        s[i] = time_batch(op, batch);
        if (s[i] < 0) {
            test_fail(name, "the operation returned an error");
            return;
        }
        s[i] -= empty;
    }
    sort(s, SAMPLES);
    printk("costs: %s cycles %ld (%ld - %ld) per op, %u ops\n", name,
           (long)s[SAMPLES / 2], (long)s[0], (long)s[SAMPLES - 1],
           SAMPLES * batch);
    test_pass(name);
}

void guest_main(const struct start_info *si)
{
    (void)si;
    measure("null_hypercall", op_null, 20000);
    measure("switcher_roundtrip", op_switcher, 500);
    measure("launcher_roundtrip", op_launcher, 100);
}
