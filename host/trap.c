/*
 * Exceptions and interrupts that reached the Host through the Switcher.
 *
 * Until the guest can register a trap table (the PV ABI issue), every
 * exception stops the guest with a precise reason: which vector, where, in
 * whose code. A fault at a Host or Switcher address is perch's own bug and
 * says so.
 */
#include "host.h"

static const char *const exception_names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
    "#OF overflow", "#BR bound range", "#UD invalid opcode",
    "#NM device not available", "#DF double fault", "coprocessor overrun",
    "#TS invalid TSS", "#NP segment not present", "#SS stack fault",
    "#GP general protection", "#PF page fault", "vector 15",
    "#MF x87 error", "#AC alignment check", "#MC machine check",
    "#XM SIMD error", "#VE virtualization", "#CP control protection",
};

static const char *vector_name(uint64_t vector)
{
    if (vector < 32 && exception_names[vector])
        return exception_names[vector];
    return vector < 32 ? "reserved exception" : "interrupt";
}

static bool in_perch_region(uint64_t rip)
{
    return rip >= PERCH_REGION_VA && rip < PERCH_ALIAS_VA;
}

static void count_visit(uint64_t vector)
{
    perch_shared.stats.vectors[vector & 255]++;
    perch_shared.stats.visits[vector < 32 ? PERCH_VISIT_EXCEPTION
                                          : PERCH_VISIT_INTERRUPT]++;
}

void host_trap(struct cpu_regs *regs)
{
    uint64_t v = regs->vector;

    count_visit(v);
    if ((regs->cs & 3) == 0)
        host_fatal("perch Switcher fault: %s (vector %lu) at rip %lx in ring 0",
                   vector_name(v), v, regs->rip);
    if (in_perch_region(regs->rip))
        host_fatal("perch Host fault: %s (vector %lu) at rip %lx, error %lx",
                   vector_name(v), v, regs->rip, regs->error_code);
    host_fatal("guest took %s (vector %lu) at rip %lx, error %lx, rsp %lx; "
               "no trap table yet", vector_name(v), v, regs->rip,
               regs->error_code, regs->rsp);
}
