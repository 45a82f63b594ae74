/*
 * --gdb, the Host's side (gdb.h). A stop is an exit to the Launcher with
 * the vCPU's registers in its perch_shared.gdb.cpu[] (launcher_gdb_stop);
 * the vCPU waits in the Launcher while gdb looks, and the answer (continue
 * or step, and maybe new registers) is read back when the exit returns.
 */
#include "gdb.h"

#include "../core/env.h"
#include "../core/guest_mode.h"
#include "guest_resume.h"
#include "../core/vcpu.h"

#define RFLAGS_TF (1ull << 8)

static void save_regs(const struct cpu_regs *regs, volatile struct perch_gdb_regs *g)
{
    g->rax = regs->rax; g->rbx = regs->rbx; g->rcx = regs->rcx; g->rdx = regs->rdx;
    g->rsi = regs->rsi; g->rdi = regs->rdi; g->rbp = regs->rbp; g->rsp = regs->rsp;
    g->r8 = regs->r8; g->r9 = regs->r9; g->r10 = regs->r10; g->r11 = regs->r11;
    g->r12 = regs->r12; g->r13 = regs->r13; g->r14 = regs->r14; g->r15 = regs->r15;
    g->rip = regs->rip; g->rflags = regs->rflags; g->cs = regs->cs; g->ss = regs->ss;
    g->fs_base = current->fs_base;
    g->gs_base = guest_gs_base();
    g->kernel_cr3 = current->kernel_cr3;
    g->user_cr3 = current->user_cr3;
    g->in_kernel = current->in_kernel;
}

/* gdb changed registers (G, P): the general ones and rip as gdb wrote
 * them, but never a rip in Xen's hole, and the flags only as far as the
 * way out keeps them (guest_resume sanitises them). cs and ss stay the
 * Host's. */
static void load_regs(struct cpu_regs *regs, const volatile struct perch_gdb_regs *g)
{
    regs->rax = g->rax; regs->rbx = g->rbx; regs->rcx = g->rcx; regs->rdx = g->rdx;
    regs->rsi = g->rsi; regs->rdi = g->rdi; regs->rbp = g->rbp; regs->rsp = g->rsp;
    regs->r8 = g->r8; regs->r9 = g->r9; regs->r10 = g->r10; regs->r11 = g->r11;
    regs->r12 = g->r12; regs->r13 = g->r13; regs->r14 = g->r14; regs->r15 = g->r15;
    if (guest_va_ok(g->rip))
        regs->rip = g->rip;
    regs->rflags = g->rflags & ~RFLAGS_TF;
}

/* Hand the guest to the Launcher until gdb lets it go on. */
static void stop(struct cpu_regs *regs, uint64_t why)
{
    volatile struct perch_gdb_vcpu *g = &perch_shared.gdb.cpu[current->id];

    save_regs(regs, &g->regs);
    launcher_gdb_stop(why);
    if (g->regs_changed)
        load_regs(regs, &g->regs);
    current->gdb_step_flags = g->resume == PERCH_GDB_STEP ? RFLAGS_TF : 0;
    current->gdb_step_rip = regs->rip;
}

/*
 * A step that comes back through here somewhere else than it began never
 * saw its #DB: the Host carried the instruction out (an emulated one, a
 * trapped page-table store, a hypercall: below), or it sent the guest to
 * a handler (a fault bounced). Either way the step is over, there. At
 * the same rip it has not run yet (an interrupt came first): go on with
 * TF.
 */
void gdb_boot(bool enabled)
{
    gdb_enabled = enabled;
    guest_resume_watch = enabled ? gdb_on_resume : 0;
}

void gdb_on_resume(struct cpu_regs *regs)
{
    if (current->gdb_step_flags && regs->rip != current->gdb_step_rip) {
        current->gdb_step_flags = 0;
        stop(regs, PERCH_GDB_STOP_TRAP);
    } else if (__atomic_exchange_n(&perch_shared.gdb.cpu[current->id].stop, 0,
                                   __ATOMIC_SEQ_CST)) {
        stop(regs, PERCH_GDB_STOP_INT);
    }
    /* A popf that sets TF traps after the next instruction, which on the
     * native way out is still the Host's: TF must come with an iretq. */
    if (current->gdb_step_flags)
        current->interrupts_off = true;
}

static bool is_breakpoint(uint64_t va)
{
    const volatile uint64_t *bp = perch_shared.gdb.breakpoints;

    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++)
        if (bp[i] == va)
            return true;
    return false;
}

/*
 * The step of a `syscall`: the CPU would trap at its target, the Host's
 * entry; PVM, which carries out `syscall` itself, traps only after the
 * entry's first instruction (measured: docs/kvm.md, "#DB"), a nop. Either
 * way the registers are still the guest's: make the hypercall (or, from
 * guest user, the system call) as the entry would have; the step, still
 * on, ends on the way back (at the instruction after it, or in the
 * kernel's syscall callback).
 */
#define SYSCALL_ENTRY_FIRST_INSN 1   /* nop */

static bool at_syscall_entry(uint64_t rip)
{
    long offset = env_syscall_entry_offset(rip);

    return offset == 0 || offset == SYSCALL_ENTRY_FIRST_INSN;
}

void gdb_event(struct cpu_regs *regs)
{
    bool stepping = current->gdb_step_flags != 0;
    uint64_t why = PERCH_GDB_STOP_TRAP;

    if (regs->vector == 3 && regs->rip > 1 && is_breakpoint(regs->rip - 1)) {
        regs->rip--;
        why = PERCH_GDB_STOP_BREAKPOINT;
    } else if (regs->vector == 1 && stepping) {
        regs->rflags &= ~RFLAGS_TF;
        if (at_syscall_entry(regs->rip)) {
            regs->r11 &= ~RFLAGS_TF;
            syscall_from_exception(regs);
        }
        if (regs->rip >= PERCH_REGION_VA && regs->rip < PERCH_ALIAS_VA)
            return;   /* no step of the guest's: perch's own fault */
    } else {
        return;
    }
    current->gdb_step_flags = 0;
    stop(regs, why);
    guest_resume(regs);
}
