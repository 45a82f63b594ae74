/*
 * What lies outside the Host's C code: the Switcher's gates, the Launcher's
 * doorbell, the alias of guest memory, the local APIC. host/env/ provides
 * them inside the VM; tests/unit/host_env.c stands in for them in the unit
 * tests. The seam lives here, with the rooms that call it: env/ sits above
 * them all, and none includes from it.
 */
#ifndef PERCH_HOST_ENV_H
#define PERCH_HOST_ENV_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_regs;

/* Pointer through which machine address 0 is reached (the writable alias). */
uint8_t *env_alias_base(void);

/* Leave the VM through the Switcher's EXIT gate; returns when the Launcher
 * resumes the vCPU. */
void env_call_launcher(void);

/* Visit ring 0 and come straight back through the RESUME gate. */
void env_switcher_roundtrip(void);
/* One visit through a probe gate (abi/layout.h, SW_GATE_PROBE_*). */
void env_switcher_probe(uint64_t gate);

/* Tell the Launcher there is console output, without an exit (ioeventfd). */
void env_ring_doorbell(void);

/* The guest sent on back-end line `line`'s port (or the Host connected
 * one): tell the Launcher. */
void env_notify_backend(unsigned line);

/* Halt the vCPU until an interrupt has been handled: the timer interrupt
 * calls time_timer_fired(), a back end's interrupt evtchn_raise(), before
 * this returns. It may return early; callers re-check and call it again. */
void env_idle(void);

/*
 * Leave the Host for the frame in regs (host/env/entry.S); none returns.
 * switcher_resume goes through the RESUME gate (one ring-0 visit),
 * switcher_resume_cr3 loads a CR3 first (entering guest user, a new base
 * pointer, or a pending flush), resume_native needs no ring 0 (guest frames
 * in the loaded address space only).
 */
_Noreturn void switcher_resume(struct cpu_regs *regs);
_Noreturn void switcher_resume_cr3(struct cpu_regs *regs, uint64_t cr3);
_Noreturn void resume_native(struct cpu_regs *regs);

/* Reload cr3 (a TLB flush) through the CR3_RESUME gate and come back with
 * the interrupt flag as given: CPL3 cannot read it (host/env/flush_tlb.S),
 * so the caller says whether it runs with interrupts on. */
void env_flush_tlb(uint64_t cr3, bool interrupts_on);

/* How far rip is into some vCPU's `syscall` entry into the Host (0: its
 * MSR_LSTAR), or -1 if in none. A `syscall` may land at another vCPU's
 * (host/env/entry.S). In a user view those addresses hold int3s, which is
 * how a guest-user `syscall` reaches the Host. */
long env_syscall_entry_offset(uint64_t rip);

/* The Host's direct entry (host/env/entry.S), which the guest kernel's
 * patched hypercall and iret jump to (host/cpu/direct_calls.h); and
 * whether rip is its `ud2`, taken when the entry could not tell which vCPU
 * it serves. */
uint64_t env_direct_entry(void);
bool env_direct_entry_unsure(uint64_t rip);

/* Which vCPU the Host runs on (from where it runs), and the per-vCPU
 * words the entry code needs, set once at the vCPU's start. */
unsigned env_cpu_id(void);
void env_cpu_init(void);

/* The user-view stubs' slots (abi/layout.h): the guest's rax they saved
 * and the kernel CR3 they load. */
uint64_t env_user_rax(void);
void env_set_kernel_cr3_slot(uint64_t cr3);

/* Where a #PF's address is: the kernel view's ring-0 stub pushed it below
 * the CPU's frame, the user view's stub left it in a slot, and a #PF that
 * came through a DPL3 gate has it only in CR2 (one ring-0 visit). */
enum fault_address_source {
    FAULT_ADDRESS_KERNEL_STUB,
    FAULT_ADDRESS_USER_STUB,
    FAULT_ADDRESS_CR2,
};
uint64_t env_fault_address(enum fault_address_source from);

/* The local APIC (host/env/lapic.c): set it up, acknowledge an interrupt,
 * ask whether the timer's deadline has come (re-arming it when it fired
 * early), and make it fire again soon without changing the deadline. */
void env_interrupts_init(void);
void env_interrupt_ack(void);
/* Forget that an interrupt came (env_interrupt_ack notes it), before
 * deciding to sleep: one that comes after makes the HALT gate return at
 * once. */
void env_wake_clear(void);
/* A fixed interrupt `vector` to vCPU `cpu`'s local APIC. */
void env_send_ipi(unsigned cpu, unsigned vector);
/* The timer's interrupt came: whether its deadline has passed at system
 * time now_ns (else it is re-armed for the rest: the count is 32 bits). */
bool env_timer_due(uint64_t now_ns);
/* Make the timer fire within delay_ns unless it fires sooner anyway. */
void env_timer_nudge(uint64_t delay_ns, uint64_t now_ns);

/* Interrupt, and call time_timer_fired(), once system time reaches
 * `deadline_ns` (at once if it already has; it is now_ns now). Replaces
 * any earlier arming. The caller tells the time: the platform keeps no
 * clock of its own. */
void env_timer_arm(uint64_t deadline_ns, uint64_t now_ns);
void env_timer_cancel(void);

/* The vCPU's TSC, as the guest's rdtsc reads it. */
uint64_t env_rdtsc(void);

/* A serializing instruction: code another vCPU rewrote is fetched anew. */
void env_serialize(void);

/* Fill perch's slots into a guest L4 (kernel view: Switcher, Host, M2P
 * and alias; user view: Switcher and the syscall trampoline only). */
void hole_fill_l4(uint64_t l4_maddr, bool user_view);

/* The guest's segment bases, written natively (CR4.FSGSBASE). */
void env_write_fs_base(uint64_t base);
void env_write_gs_base(uint64_t base);
uint64_t env_read_gs_base(void);

#endif
