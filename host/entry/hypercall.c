/*
 * The hypercall table, and the two roads into it. A guest-kernel `syscall`
 * lands in host/env/entry.S, which saves the registers and calls
 * host_hypercall(): no ring 0, the whole call at native speed but for the
 * trap. With direct calls the guest kernel's patched hypercall and iret
 * jump to the direct entry instead (host_direct_call): no trap at all.
 */
#include "../core/env.h"
#include "../core/stats.h"
#include "../events/evtchn.h"
#include "../core/host.h"
#include "../core/host_lock.h"
#include "../cpu/direct_calls.h"
#include "../cpu/insn_patch.h"
#include "../mm/mm.h"
#include "../events/time.h"
#include "../mm/tlb.h"
#include "../core/vcpu.h"
#include "guest_resume.h"
#include "../core/where.h"

static const hypercall_fn hypercall_table[XEN_NR_HYPERCALLS] = {
    [HYPERVISOR_set_trap_table] = do_set_trap_table,
    [HYPERVISOR_stack_switch] = do_stack_switch,
    [HYPERVISOR_set_callbacks] = do_set_callbacks,
    [HYPERVISOR_fpu_taskswitch] = do_fpu_taskswitch,
    [HYPERVISOR_set_segment_base] = do_set_segment_base,
    [HYPERVISOR_set_gdt] = do_set_gdt,
    [HYPERVISOR_update_descriptor] = do_update_descriptor,
    [HYPERVISOR_callback_op] = do_callback_op,
    [HYPERVISOR_mmu_update] = do_mmu_update,
    [HYPERVISOR_mmuext_op] = do_mmuext_op,
    [HYPERVISOR_update_va_mapping] = do_update_va_mapping,
    [HYPERVISOR_multicall] = do_multicall,
    [HYPERVISOR_memory_op] = do_memory_op,
    [HYPERVISOR_vm_assist] = do_vm_assist,
    [HYPERVISOR_physdev_op] = do_physdev_op,
    [HYPERVISOR_physdev_op_compat] = do_physdev_op_compat,
    [HYPERVISOR_grant_table_op] = do_grant_table_op,
    [HYPERVISOR_event_channel_op] = do_event_channel_op,
    [HYPERVISOR_event_channel_op_compat] = do_event_channel_op_compat,
    [HYPERVISOR_vcpu_op] = do_vcpu_op,
    [HYPERVISOR_set_timer_op] = do_set_timer_op,
    [HYPERVISOR_console_io] = do_console_io,
    [HYPERVISOR_xen_version] = do_xen_version,
    [HYPERVISOR_sched_op] = do_sched_op,
    [HYPERVISOR_perch_op] = do_perch_op,
};

/* Without the lazy flush, every hypercall (every multicall entry) that
 * asks for a flush gets its own ring-0 visit for it, there and then. A
 * hypercall runs with interrupts on. */
static void flush_now(void)
{
    tlb_flushed();
    count_cr3_load(PERCH_CR3_FLUSH_EAGER);
    env_flush_tlb(current->kernel_cr3, true);
}

long hypercall_dispatch(uint64_t nr, const uint64_t args[5])
{
    hypercall_fn fn;
    long rc;

    if (nr >= XEN_NR_HYPERCALLS) {
        perch_shared.stats.hypercalls_unknown++;
        vcpu_stats()->hypercalls++;
        return -XEN_ENOSYS;
    }
    /* tour multicall.2: the table by number, counted; a multicall entry comes back here */
    perch_shared.stats.hypercalls[nr]++;
    vcpu_stats()->hypercalls++;
    fn = hypercall_table[nr];
    rc = fn ? fn(args[0], args[1], args[2], args[3], args[4]) : -XEN_ENOSYS;
    if ((optimizations_off & PERCH_OPT_LAZY_FLUSH) && (current->pending & PENDING_TLB_FLUSH))
        flush_now();
    if (current->shootdown)
        tlb_shootdown();
    return rc;
}

long hypercall_in_regs(const struct cpu_regs *regs)
{
    const uint64_t args[5] = { regs->rdi, regs->rsi, regs->rdx, regs->r10, regs->r8 };

    return hypercall_dispatch(regs->rax, args);
}

/* A guest-kernel hypercall that came by `syscall`, for --stats: where it
 * came from. Written under the Host lock, as every total. */
static void note_trapped_caller(uint64_t rip)
{
    uint32_t n = perch_shared.stats.nr_trapped_callers;

    for (uint32_t i = 0; i < n && i < PERCH_TRAPPED_CALLERS; i++)
        if (perch_shared.stats.trapped_callers[i].rip == rip) {
            perch_shared.stats.trapped_callers[i].count++;
            return;
        }
    if (n >= PERCH_TRAPPED_CALLERS) {
        perch_shared.stats.trapped_callers_unlisted++;
        return;
    }
    perch_shared.stats.trapped_callers[n] = (struct perch_trapped_caller){ rip, 1 };
    perch_shared.stats.nr_trapped_callers = n + 1;
}

/*
 * The `syscall` in regs, the Host entered: returns when the hypercall left
 * nothing for ring 0 to do. Otherwise (a pending flush or address-space
 * change) it leaves through guest_resume. Without guest isolation, guest
 * user's `syscall` lands here too, on the kernel's L4: the mode tells it
 * from a hypercall; and so does a patched page-table store's
 * (host/cpu/insn_patch.c): its return address tells it.
 */
static void serve_syscall(struct cpu_regs *regs)
{
    where_entered(regs);
    /* tour syscall.11: without guest isolation a user `syscall` lands here: steps 1-4, 9, 10 vanish */
    if (!current->in_kernel) {
        perch_shared.stats.cpl3_user_syscalls++;
        user_syscall(regs);
    }
    if (insn_patch_entry(regs))
        guest_resume(regs);
    note_trapped_caller(regs->rcx);
    if (regs->rax == HYPERVISOR_iret) {
        perch_shared.stats.hypercalls[HYPERVISOR_iret]++;
        do_iret(regs);
    }
    regs->rax = (uint64_t)hypercall_in_regs(regs);
    if (current->pending || evtchn_upcall_due() ||
        (optimizations_off & PERCH_OPT_NATIVE_RETURN))
        guest_resume(regs);
}

/* The entry code goes back to the guest with a jmp when this returns. */
void host_hypercall(struct cpu_regs *regs)
{
    host_enter();
    serve_syscall(regs);
    host_leave(true);
}

/* Entered already, by the exception: one Host entry, one way out. */
_Noreturn void syscall_from_exception(struct cpu_regs *regs)
{
    if (!current->in_kernel && !current->isolation_off)
        user_syscall(regs);
    regs->rip = regs->rcx;
    regs->rflags = regs->r11;
    regs->cs = FLAT_KERNEL_CS64;
    regs->ss = FLAT_KERNEL_SS64;
    regs->error_code = 0;
    regs->vector = PERCH_VECTOR_SYSCALL;
    serve_syscall(regs);
    guest_resume(regs);
}

/*
 * A hypercall or an iret that came by the direct entry (host/env/entry.S),
 * not by a trap: the guest kernel's patched xen_hypercall_pv or xen_iret
 * jumped there (host/cpu/direct_calls.h). The entry left the guest's rsp
 * as it found it, with rcx and rax just below it and the pushed word at
 * it; the rest of the registers are the guest's. Both leave through
 * guest_resume: a hypercall to its caller's return address (every register
 * but rax kept, as the patched function promises), an iret to its frame.
 */

/* rcx and rax as the entry left them below rsp, the pushed word, and the
 * word above it (a hypercall's return address, an iret frame's rip). */
enum { SAVED_RCX, SAVED_RAX, PUSHED, ABOVE, ENTRY_WORDS };

static _Noreturn void serve_iret(struct cpu_regs *regs, uint64_t flags)
{
    struct iret_context frame = { .rax = regs->rax, .r11 = regs->r11, .rcx = regs->rcx,
                                  .flags = flags };

    if (copy_from_guest(&frame.rip, regs->rsp, 5 * sizeof(uint64_t)))
        host_fatal("iret: the frame at rsp %lx cannot be read", regs->rsp);
    perch_shared.stats.hypercalls[HYPERVISOR_iret]++;
    regs->rip = perch_shared.boot.iret_func;   /* for the crash line: in xen_iret */
    where_entered(regs);
    iret_to(regs, &frame);
}

static _Noreturn void serve(struct cpu_regs *regs)
{
    uint64_t words[ENTRY_WORDS];

    if (copy_from_guest(words, regs->rsp - 16, sizeof(words)))
        host_fatal("the guest kernel jumped to the Host's direct entry with rsp %lx, "
                   "where no frame can be read", regs->rsp);
    if (!current->in_kernel)
        host_fatal("guest user mode jumped to the Host's direct entry (rsp %lx)", regs->rsp);
    regs->rcx = words[SAVED_RCX];
    regs->rax = words[SAVED_RAX];
    regs->rsp += 8;
    perch_shared.stats.direct_calls++;
    vcpu_stats()->direct_calls++;
    if (words[PUSHED] != DIRECT_CALL_HYPERCALL)
        serve_iret(regs, words[PUSHED]);
    regs->rip = words[ABOVE];
    regs->rsp += 8;
    where_entered(regs);
    /* A patched page-table store calls xen_hypercall_pv too. */
    if (!insn_patch_call(regs))
        regs->rax = (uint64_t)hypercall_in_regs(regs);
    guest_resume(regs);
}

_Noreturn void host_direct_call(struct cpu_regs *regs)
{
    host_enter();
    serve(regs);
}

_Noreturn void direct_call_from_exception(struct cpu_regs *regs)
{
    regs->cs = FLAT_KERNEL_CS64;
    regs->ss = FLAT_KERNEL_SS64;
    regs->error_code = 0;
    regs->vector = PERCH_VECTOR_SYSCALL;
    serve(regs);
}
