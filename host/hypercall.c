/*
 * The hypercall table. A guest-kernel `syscall` lands in host/vm/entry.S,
 * which saves the registers and calls host_hypercall(): no trap, no ring 0,
 * the whole call runs at native speed.
 */
#include "host.h"

static const hypercall_fn hypercall_table[XEN_NR_HYPERCALLS] = {
    [HYPERVISOR_console_io] = do_console_io,
    [HYPERVISOR_xen_version] = do_xen_version,
    [HYPERVISOR_sched_op] = do_sched_op,
    [HYPERVISOR_perch_op] = do_perch_op,
};

void host_hypercall(struct cpu_regs *regs)
{
    uint64_t nr = regs->rax;
    hypercall_fn fn;

    if (nr >= XEN_NR_HYPERCALLS) {
        perch_shared.stats.hypercalls_unknown++;
        regs->rax = -XEN_ENOSYS;
        return;
    }
    perch_shared.stats.hypercalls[nr]++;
    fn = hypercall_table[nr];
    regs->rax = fn ? fn(regs->rdi, regs->rsi, regs->rdx, regs->r10, regs->r8)
                   : -XEN_ENOSYS;
}
