/*
 * A hypercall or an iret that came by the direct entry (host/env/entry.S),
 * not by a trap: the guest kernel's patched xen_hypercall_pv or xen_iret
 * jumped there (host/cpu/direct_calls.h). The entry left the guest's rsp
 * as it found it, with rcx and rax just below it and the pushed word at
 * it; the rest of the registers are the guest's. Both leave through
 * guest_resume: a hypercall to its caller's return address (every register
 * but rax kept, as the patched function promises), an iret to its frame.
 */
#include "../core/host.h"
#include "../core/host_lock.h"
#include "../core/stats.h"
#include "../core/vcpu.h"
#include "../core/where.h"
#include "../cpu/direct_calls.h"
#include "../cpu/insn_patch.h"
#include "guest_resume.h"

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
