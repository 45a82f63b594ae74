/*
 * The way into guest code. A frame bounced onto the guest kernel's stack
 * hands it an exception, an event or a system call, as Xen's
 * create_bounce_frame does, and switches the guest's mode; every path out
 * of the Host then ends in guest_resume, which delivers due events the
 * same way and picks the cheapest of the Switcher's exits that is right.
 */
#include "guest_resume.h"

#include "../core/env.h"
#include "../core/guest_mode.h"
#include "../core/host_lock.h"
#include "../core/stats.h"
#include "../core/vcpu.h"
#include "../events/evtchn.h"
#include "../mm/tlb.h"

/* The guest's mode changes with its GS base (Xen's swapgs); the address
 * space that goes with it is loaded on the way out. */
static void enter_kernel_mode(void)
{
    if (current->in_kernel)
        return;
    current->in_kernel = true;
    env_write_gs_base(current->gs_base_kernel);
}

void guest_enter_user(void)
{
    if (!current->in_kernel)
        return;
    current->in_kernel = false;
    env_write_gs_base(current->gs_base_user);
}

/* Hypervisor hole: a bounce frame must never land there (Xen's check). */
static bool stack_usable(uint64_t sp)
{
    return sp < XEN_HOLE_START || sp >= XEN_HOLE_END + 8 * 8;
}

int bounce_to_guest(struct cpu_regs *regs, uint64_t handler, unsigned flags,
                    uint64_t error_code)
{
    bool from_user = !current->in_kernel;
    uint64_t sp = (from_user ? current->kernel_sp : regs->rsp) & ~0xfull;
    uint64_t saved_mask = bounce_events_masked();
    uint64_t frame[8];
    unsigned n = 0;

    if (!handler || !stack_usable(sp))
        return -1;
    frame[n++] = regs->rcx;
    frame[n++] = regs->r11;
    if (flags & BOUNCE_ERROR_CODE)
        frame[n++] = error_code;
    frame[n++] = regs->rip;
    /* CS with RPL 0 tells the guest it was in kernel mode; bits 32-39 carry
     * the upcall mask as it was. */
    frame[n++] = (from_user ? regs->cs : regs->cs & ~3ull) | saved_mask << 32;
    frame[n++] = (regs->rflags & ~0x3200ull) | (saved_mask ? 0 : 0x200);
    frame[n++] = regs->rsp;
    frame[n++] = regs->ss;
    sp -= n * 8;
    if (copy_to_guest(sp, frame, n * 8))
        return -1;
    if (flags & BOUNCE_DISABLE_EVENTS)
        bounce_set_events_masked(true);
    enter_kernel_mode();
    regs->rip = handler;
    regs->cs = FLAT_KERNEL_CS64;
    regs->ss = FLAT_KERNEL_SS64;
    regs->rsp = sp;
    /* As the CPU clears them on an exception: TF, NT, RF, AC. */
    regs->rflags &= ~((1ull << 8) | (1ull << 14) | (1ull << 16) | (1ull << 18));
    return 0;
}

bool bounce_events_masked(void)
{
    return evtchn_vcpu_info()->evtchn_upcall_mask != 0;
}

void bounce_set_events_masked(bool masked)
{
    evtchn_vcpu_info()->evtchn_upcall_mask = masked;
}

void bounce_record_fault_address(uint64_t cr2)
{
    evtchn_vcpu_info()->arch.cr2 = cr2;
}

void (*guest_resume_watch)(struct cpu_regs *regs);

void guest_resume_needs_interrupts_on(void)
{
    current->interrupts_off = true;
}

/* The guest never runs with the real interrupt flag off: its virtual IF is
 * the upcall mask. Nor with IOPL above 0, TF, NT or RF: kept are the
 * arithmetic flags, DF, AC and ID; and TF while gdb steps it. */
static void sanitise_flags(struct cpu_regs *regs)
{
    regs->rflags = (regs->rflags & 0x240cd5) | 0x202 | current->gdb_step_flags;
}

/* Pending events go to the guest kernel's event callback, with events
 * masked, as Xen's upcall does: on every return to the guest. Not while
 * gdb steps: the step stays in the code gdb looks at (as QEMU's). */
static void deliver_upcall(struct cpu_regs *regs)
{
    if (!current->event_callback || !evtchn_upcall_due() || current->gdb_step_flags)
        return;
    if (bounce_to_guest(regs, current->event_callback, BOUNCE_DISABLE_EVENTS, 0))
        host_fatal("an event is due but the guest kernel's stack (rsp %lx) "
                   "cannot take the frame", regs->rsp);
}

/*
 * What this vCPU's `syscall` entry (host/env/entry.S) checks to know that
 * it serves this vCPU: the GS base the guest runs with, read off the CPU
 * at the last moment. A guest kernel's is its per-CPU base, distinct on
 * every vCPU; guest user's may be any other vCPU's too, so with several
 * vCPUs none is given for it and a user `syscall` that lands at LSTAR
 * (without guest isolation) takes the entry's gate.
 */
static void note_entry_gs(void)
{
    uint64_t gs = current->in_kernel || host_nr_vcpus == 1 ? env_read_gs_base() : ENTRY_GS_NONE;

    __atomic_store_n(&this_cpu()->entry_gs, gs, __ATOMIC_SEQ_CST);
    /* Two vCPUs that claimed one base would share a Host stack: a kernel
     * that gives one base to two vCPUs gets the #UD road on them instead.
     * Each stores before it looks, so of two at once one sees the other. */
    for (unsigned i = 0; gs != ENTRY_GS_NONE && i < host_nr_vcpus; i++)
        if (i != current->id && __atomic_load_n(&host_cpu(i)->entry_gs, __ATOMIC_SEQ_CST) == gs) {
            __atomic_store_n(&this_cpu()->entry_gs, ENTRY_GS_NONE, __ATOMIC_SEQ_CST);
            return;
        }
}

/* Load cr3 on the way out: it flushes whatever was pending too. */
static _Noreturn void resume_loading(struct cpu_regs *regs, uint64_t cr3,
                                     enum perch_cr3_cause cause)
{
    tlb_flushed();
    count_cr3_load(cause);
    host_leave(true);
    switcher_resume_cr3(regs, cr3);
}

/*
 * Guest user in its own view is always entered through CR3_RESUME;
 * the next event from user mode brings the kernel CR3 back
 * (host_trap_user). Without guest isolation, user runs on the
 * kernel's L4 and leaves like a kernel frame.
 */
_Noreturn void guest_resume(struct cpu_regs *regs)
{
    bool restore_if;

    if (guest_resume_watch)
        guest_resume_watch(regs);
    if (current->shootdown)
        tlb_shootdown();
    restore_if = current->interrupts_off;
    current->interrupts_off = false;
    deliver_upcall(regs);
    sanitise_flags(regs);
    note_entry_gs();
    /* tour syscall.9: guest user in its own view is entered by CR3_RESUME: visit two */
    if (!current->in_kernel && !current->isolation_off) {
        current->loaded_cr3 = current->user_cr3;
        resume_loading(regs, current->user_cr3, PERCH_CR3_TO_USER);
    }
    /* tour multicall.6: however many flushes the batch asked for, one CR3 load */
    if (current->kernel_cr3 != current->loaded_cr3 || (current->pending & PENDING_TLB_FLUSH)) {
        enum perch_cr3_cause cause = current->kernel_cr3 != current->loaded_cr3
                                         ? PERCH_CR3_KERNEL_TABLES : PERCH_CR3_FLUSH;

        current->loaded_cr3 = current->kernel_cr3;
        resume_loading(regs, current->kernel_cr3, cause);
    }
    if (restore_if || (optimizations_off & PERCH_OPT_NATIVE_RETURN)) {
        count_visit_of(PERCH_VISIT_SERVICE_RESUME);
        host_leave(true);
        switcher_resume(regs);
    }
    /* tour syscall.6: a guest-kernel frame in the loaded address space: a jmp at CPL3, no ring 0 */
    host_leave(true);
    resume_native(regs);
}

/*
 * An interrupt may find the Host on its way out to the guest, the lock
 * already let go: the way out has looked at the pending flush already,
 * and another vCPU's shootdown that sees this vCPU leave the guest now
 * counts on it. So a flush it owes is done here, on the kernel's L4
 * (which maps the Host whatever the way out loads next), and with
 * interrupts still off: this is an interrupt's handler.
 */
_Noreturn void host_resume_interrupted(struct cpu_regs *regs)
{
    if ((current->pending & PENDING_TLB_FLUSH) && !host_holds_lock_below()) {
        tlb_flushed();
        count_cr3_load(PERCH_CR3_FLUSH);
        env_flush_tlb(current->kernel_cr3, false);
    }
    current->interrupts_off = false;
    count_visit_of(PERCH_VISIT_SERVICE_RESUME);
    host_leave(false);
    switcher_resume(regs);
}
