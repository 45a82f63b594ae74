/*
 * Exceptions and interrupts that reached the Host, from either view and by
 * either road (a DPL3 gate at CPL3, or the Switcher's ring-0 stubs), and
 * the guest-user `syscall`, which arrives as an int3 at the LSTAR address of
 * the user view (launcher/vm/switcher_tables.c maps that page of int3s).
 *
 * A guest exception is bounced to the handler the guest kernel registered
 * with set_trap_table; with none, the guest is stopped with the vector, rip
 * and error code named. A fault at a Host or Switcher address is perch's
 * own bug and says so.
 */
#include "../core/stats.h"
#include "../events/backend.h"
#include "../cpu/emulate.h"
#include "../core/entry.h"
#include "../core/env.h"
#include "../events/evtchn.h"
#include "../cpu/fault_address.h"
#include "gdb.h"
#include "../core/guest_mode.h"
#include "guest_resume.h"
#include "../core/host.h"
#include "../core/host_lock.h"
#include "../cpu/insn_patch.h"
#include "../mm/mm.h"
#include "../events/time.h"
#include "../core/vcpu.h"
#include "../core/where.h"

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

static bool has_error_code(uint64_t v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30;
}

static void count_visit(uint64_t vector)
{
    perch_shared.stats.vectors[vector & 255]++;
    count_visit_of(vector < 32 ? PERCH_VISIT_EXCEPTION : PERCH_VISIT_INTERRUPT);
}

/* The guest had no handler: say where, with the top of its stack, which
 * usually holds the return address that tells who got there. */
static _Noreturn void no_handler(struct cpu_regs *regs, const char *mode)
{
    uint64_t v = regs->vector, stack[2] = { 0, 0 };

    copy_from_guest(stack, regs->rsp, sizeof(stack));
    host_fatal("guest %s took %s (vector %lu) at rip %lx, error %lx, rsp %lx "
               "[%lx %lx]; no handler", mode, vector_name(v), v, regs->rip,
               regs->error_code, regs->rsp, stack[0], stack[1]);
}

/* Deliver exception `v` to the guest kernel's handler. */
static _Noreturn void bounce_exception(struct cpu_regs *regs)
{
    uint64_t v = regs->vector;
    const struct trap_entry *t = &current->traps[v];
    const char *mode = current->in_kernel ? "kernel" : "user";
    unsigned flags = (t->disables_events ? BOUNCE_DISABLE_EVENTS : 0) |
                     (has_error_code(v) ? BOUNCE_ERROR_CODE : 0);

    /* tour fault.5: to the guest kernel's handler, the address in vcpu_info.arch.cr2 */
    if (!t->address)
        no_handler(regs, mode);
    if (bounce_to_guest(regs, t->address, flags, regs->error_code))
        host_fatal("guest %s took %s at rip %lx and its kernel stack cannot "
                   "take the exception frame", mode, vector_name(v), regs->rip);
    guest_resume(regs);
}

/* An interrupt: acknowledge it; the timer's turns into the guest's timer
 * event, the Launcher's (input in a back end's ring) into an event on that
 * back end's port; guest_resume delivers them when the guest has events
 * enabled. */
static void take_interrupt(uint64_t v)
{
    env_interrupt_ack();
    if (v == PERCH_TIMER_VECTOR && env_timer_due(time_now_ns()))
        time_timer_fired();
    if (v == PERCH_BACKEND_VECTOR)
        backend_interrupt();
}

/* The idle vCPU woke up: resume whoever called the HALT gate, with its
 * registers as they are and the frame its int3 left on the int3 stack. */
static _Noreturn void wake_from_halt(struct cpu_regs *regs)
{
    const volatile uint64_t *frame =
        (const volatile uint64_t *)(this_cpu_va(SW_STACK_TOP(SW_BP_STACK_VA)) - 40);

    regs->rip = frame[0];
    regs->cs = frame[1];
    regs->rflags = frame[2];
    regs->rsp = frame[3];
    regs->ss = frame[4];
    host_resume_interrupted(regs);
}

/*
 * An interrupt that found the Host at work: the Host finishes what it was
 * doing and delivers due events on its way out. Only an event this
 * interrupt made due may come after the Host's last look: then a nudge of
 * the timer makes sure the guest is interrupted again soon. (Nudging for
 * any due event fed itself: the nudge's interrupt found the Host busy with
 * the same undelivered event, nudged again, ~40,000 times a second.)
 */
static _Noreturn void interrupted_host(struct cpu_regs *regs, uint64_t v)
{
    bool was_due = evtchn_upcall_due();

    take_interrupt(v);
    if (!was_due && evtchn_upcall_due())
        env_timer_nudge(20000, time_now_ns());
    host_resume_interrupted(regs);
}

/* Apply the segment bases a wrmsr changed, in the mode the guest is in. */
static void load_segment_bases(void)
{
    if (!current->segments_dirty)
        return;
    current->segments_dirty = false;
    env_write_fs_base(current->fs_base);
    env_write_gs_base(guest_gs_base());
}

/* Turn regs into exception `vector` at the same rip, for the guest. */
static void become_exception(struct cpu_regs *regs, uint64_t vector,
                             uint64_t error_code)
{
    regs->vector = vector;
    regs->error_code = error_code;
}

/*
 * A #GP or #UD in guest-kernel mode may be an instruction a PV kernel
 * expects the hypervisor to emulate (CPUID, MSRs, port I/O, CRs). Returns
 * whether it was emulated; if not, regs says which exception the guest
 * gets instead (the emulator may turn one into another).
 */
static bool privileged_instruction(struct cpu_regs *regs)
{
    switch (emulate_privileged(regs)) {
    case EMUL_DONE:
        load_segment_bases();
        return true;
    case EMUL_INJECT_UD:
        become_exception(regs, 6, 0);
        return false;
    case EMUL_INJECT_GP:
        become_exception(regs, 13, regs->error_code);
        return false;
    case EMUL_INJECT_PF:
        become_exception(regs, 14, 0);
        bounce_record_fault_address(current->emulated_fault_address);
        return false;
    }
    return false;
}

/*
 * A #PF: a write by the guest kernel to one of its own read-only page
 * tables is emulated (writable page tables, as Xen's ptwr), and the
 * instruction patched so that it calls the Host next time (insn_patch.h);
 * returns whether it was. Anything else goes to the guest with the address in
 * vcpu_info.arch.cr2 and the user bit telling the guest's mode (the
 * hardware saw CPL3 either way).
 */
static bool page_fault(struct cpu_regs *regs, bool from_user, uint64_t cr2)
{
    uint64_t rip = regs->rip;

    /* tour fault.4: a guest kernel's write to its own page table is emulated (ptwr), then patched */
    if (!from_user && (regs->error_code & 3) == 3 &&
        ptwr_emulate(regs, cr2, regs->error_code) == 0) {
        insn_patch_trapped(rip, (unsigned)(regs->rip - rip));
        return true;
    }
    if (!from_user && (regs->error_code & 3) == 3 && insn_patch_fault_at_site(regs))
        return true;
    bounce_record_fault_address(cr2);
    regs->error_code = (regs->error_code & ~4ull) | (from_user ? 4 : 0);
    return false;
}

/*
 * An event of the guest's: an interrupt is taken, a fault perch can serve
 * (emulation, ptwr) is served, everything else bounces to the guest
 * kernel's handler. `cr2` says where a #PF's address is.
 */
static _Noreturn void guest_event(struct cpu_regs *regs, bool from_user,
                                  enum fault_address_source cr2)
{
    uint64_t v = regs->vector;

    where_entered(regs);
    if (gdb_enabled && (v == 1 || v == 3))
        gdb_event(regs);   /* returns if it is the guest's own #DB or #BP */
    if (!from_user && v != 3)
        insn_patch_leave_interior(regs);
    /* tour fault.3: an interrupt is taken, a fault perch can serve is served, the rest bounce */
    if (v >= 32) {
        take_interrupt(v);
        guest_resume(regs);
    }
    if (v == 14 && page_fault(regs, from_user, cr2 == FAULT_ADDRESS_CR2
                                                   ? fault_address_cpl3(regs)
                                                   : env_fault_address(cr2)))
        guest_resume(regs);
    if ((v == 13 || v == 6) && !from_user && privileged_instruction(regs))
        guest_resume(regs);
    if (v == 3 && !from_user && insn_patch_stray_int3(regs))
        guest_resume(regs);
    bounce_exception(regs);
}

/* An event at a Host or Switcher address (interrupts excepted) is perch's
 * own fault, but for the #UD of a `syscall` entry that could not prove
 * which vCPU it runs on (host/env/entry.S): this one, the CPU says. */
static void check_not_perch(struct cpu_regs *regs)
{
    uint64_t v = regs->vector;

    if (v == 6 && (regs->cs & 3) && env_syscall_entry_offset(regs->rip) == SYSCALL_ENTRY_UNSURE) {
        perch_shared.stats.syscalls_redirected++;
        vcpu_stats()->syscalls_redirected++;
        syscall_from_exception(regs);
    }

    if (v == 6 && (regs->cs & 3) && env_direct_entry_unsure(regs->rip)) {
        perch_shared.stats.syscalls_redirected++;
        vcpu_stats()->syscalls_redirected++;
        direct_call_from_exception(regs);
    }
    /* Its first instructions write below the guest's rsp. */
    if (v == 14 && regs->rip - env_direct_entry() < DIRECT_ENTRY_STORES)
        host_fatal("the guest kernel jumped to the Host's direct entry with rsp %lx, "
                   "which it cannot write", regs->rsp);

    if ((regs->cs & 3) == 0)
        host_fatal("perch Switcher fault: %s (vector %lu) at rip %lx in ring 0",
                   vector_name(v), v, regs->rip);
    /* A `syscall` gdb stepped traps at the Host's entry (gdb.c). */
    if (in_perch_region(regs->rip) && gdb_enabled)
        gdb_event(regs);
    if (in_perch_region(regs->rip))
        host_fatal("perch Host fault: %s (vector %lu) at rip %lx, error %lx",
                   vector_name(v), v, regs->rip, regs->error_code);
}

/* Through the Switcher, in the kernel view (guest kernel, or guest user
 * on the kernel's L4 without isolation). */
void host_trap(struct cpu_regs *regs)
{
    uint64_t v = regs->vector;

    host_enter();
    count_visit(v);
    if (v >= 32 && (regs->cs & 3) == 0 && regs->rip == this_cpu_va(SW_HALT_WAKE_RIP)) {
        take_interrupt(v);
        wake_from_halt(regs);
    }
    if (v >= 32 && in_perch_region(regs->rip))
        interrupted_host(regs, v);
    if (v >= 32 || v == 3)
        guest_resume_needs_interrupts_on();
    check_not_perch(regs);
    guest_event(regs, !current->in_kernel, FAULT_ADDRESS_KERNEL_STUB);
}

/* Through a DPL3 gate, no ring 0: an exception of guest code in the kernel
 * view. The interrupt flag never went off. */
void host_trap_cpl3(struct cpu_regs *regs)
{
    host_enter();
    /* tour fault.9: guest_event as before; a #PF's address from its instruction (fault_address.c) */
    perch_shared.stats.cpl3_vectors[regs->vector & 255]++;
    vcpu_stats()->cpl3_events++;
    check_not_perch(regs);
    guest_event(regs, !current->in_kernel, FAULT_ADDRESS_CR2);
}

/*
 * Through a DPL3 interrupt gate: an interrupt, wherever it found the vCPU,
 * with IF off until the Host leaves through ring 0. One that found ring 0
 * (only a guest kernel that forged its way there runs ring 0 with
 * interrupts on: the HALT gate has an IDT of its own) has demoted that
 * code to CPL3 and cannot be resumed.
 */
void host_interrupt_cpl3(struct cpu_regs *regs)
{
    host_enter();
    perch_shared.stats.cpl3_vectors[regs->vector & 255]++;
    vcpu_stats()->cpl3_events++;
    if ((regs->cs & 3) == 0)
        host_fatal("an interrupt (vector %lu) came through a DPL3 gate while "
                   "ring 0 ran at rip %lx with interrupts on", regs->vector,
                   regs->rip);
    if (in_perch_region(regs->rip))
        interrupted_host(regs, regs->vector);
    guest_resume_needs_interrupts_on();
    guest_event(regs, !current->in_kernel, FAULT_ADDRESS_CR2);
}

/*
 * Through the user view's stubs, which loaded the kernel CR3. The user
 * view's int3 at LSTAR + 1 is a guest-user `syscall`: that page of int3s is
 * built by launcher/vm/switcher_tables.c (switcher_build_user_view). Any
 * vCPU's LSTAR: a `syscall` may land at another vCPU's (host/env/entry.S),
 * but this road came through this vCPU's own IDT.
 */
void host_trap_user(struct cpu_regs *regs)
{
    host_enter();
    /* tour syscall.4: an int3 at LSTAR + 1 is a guest-user `syscall` */
    regs->rax = env_user_rax();
    current->loaded_cr3 = current->kernel_cr3;   /* the stub loaded it */
    if (regs->vector >= 32)
        guest_resume_needs_interrupts_on();
    if (regs->vector == 3 && env_syscall_entry_offset(regs->rip - 1) == 0) {
        count_visit_of(PERCH_VISIT_USER_SYSCALL);
        user_syscall(regs);
    }
    count_visit(regs->vector);
    guest_event(regs, true, FAULT_ADDRESS_USER_STUB);
}
