/*
 * The Host: perch's hypervisor proper, freestanding C running at CPL3 inside
 * the VM in every guest-kernel address space. Hypercalls reach it through
 * `syscall` (MSR_LSTAR) without a trap; exceptions and interrupts reach it
 * through the Switcher's handoff frames. It serves the guest at native speed
 * and asks the Switcher only for privileged steps and the Launcher only for
 * the rare slow path.
 *
 * This header is what the Host's files share. Everything here compiles for
 * the VM and for the host-side unit tests alike; the few things that differ
 * (how to reach the Switcher and the Launcher, where the alias of guest
 * memory lives) are behind env.h.
 */
#ifndef PERCH_HOST_H
#define PERCH_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../../abi/xen/xen.h"

/*
 * A vCPU's registers as the Host's entry code saves them: the general
 * registers, then the iret frame in the hardware's order (so a pointer to
 * `rip` is an iret frame), then the Host's own note of how it was entered.
 * host/env/entry.S builds and consumes this layout: keep them in step.
 */
struct cpu_regs {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t rip, cs, rflags, rsp, ss;
    uint64_t error_code;
    uint64_t vector;          /* 0-255, or PERCH_VECTOR_SYSCALL */
};
_Static_assert(offsetof(struct cpu_regs, rax) == 14 * 8, "entry.S pops rax last");
_Static_assert(offsetof(struct cpu_regs, rip) == 15 * 8, "entry.S iret frame");
_Static_assert(offsetof(struct cpu_regs, vector) == 21 * 8, "entry.S vector slot");

/* The page shared with the Launcher (its layout is in abi/layout.h). */
extern struct perch_shared perch_shared;

/* Entry points called from host/env/entry.S. host_hypercall returns when
 * the guest may be resumed natively; the others leave through guest_resume
 * (host/entry/guest_resume.h). host_trap: through the Switcher in the kernel
 * view; host_trap_user: through the user view's stubs; host_trap_cpl3 and
 * host_interrupt_cpl3: through DPL3 gates, without ring 0. */
void host_hypercall(struct cpu_regs *regs);
_Noreturn void host_boot(struct cpu_regs *regs);
void host_trap(struct cpu_regs *regs);
void host_trap_user(struct cpu_regs *regs);
void host_trap_cpl3(struct cpu_regs *regs);
void host_interrupt_cpl3(struct cpu_regs *regs);

/* A guest-user `syscall`, bounced to the guest kernel's syscall callback
 * (host/entry/trap.c). */
_Noreturn void user_syscall(struct cpu_regs *regs);

/* A `syscall` that reached the Host as an exception inside its entry (a
 * step gdb asked for; an entry that could not prove its vCPU), regs the
 * guest's registers as `syscall` left them: made as the entry would have
 * (host/entry/hypercall.c). */
_Noreturn void syscall_from_exception(struct cpu_regs *regs);

/* The direct entry (host/cpu/direct_calls.h): host_direct_call from
 * host/env/entry.S; direct_call_from_exception when the entry's `ud2`
 * brought it, the Host entered already (host/entry/hypercall.c). */
_Noreturn void host_direct_call(struct cpu_regs *regs);
_Noreturn void direct_call_from_exception(struct cpu_regs *regs);

/* Run hypercall nr with its five arguments, counting it (also what a
 * multicall entry does). */
long hypercall_dispatch(uint64_t nr, const uint64_t args[5]);
/* The same for the hypercall regs hold, as every road into the Host
 * leaves it: the number in rax, the arguments in rdi, rsi, rdx, r10, r8. */
long hypercall_in_regs(const struct cpu_regs *regs);

/* Hypercall handlers: arguments as the guest passed them in rdi, rsi, rdx,
 * r10, r8; the result goes back in rax. */
typedef long (*hypercall_fn)(uint64_t a1, uint64_t a2, uint64_t a3,
                             uint64_t a4, uint64_t a5);
long do_console_io(uint64_t cmd, uint64_t len, uint64_t buf, uint64_t, uint64_t);
long do_sched_op(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_xen_version(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_perch_op(uint64_t cmd, uint64_t, uint64_t, uint64_t, uint64_t);
long do_set_trap_table(uint64_t table, uint64_t, uint64_t, uint64_t, uint64_t);
long do_set_callbacks(uint64_t event, uint64_t failsafe, uint64_t syscall,
                      uint64_t, uint64_t);
long do_callback_op(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_stack_switch(uint64_t ss, uint64_t sp, uint64_t, uint64_t, uint64_t);
long do_fpu_taskswitch(uint64_t set, uint64_t, uint64_t, uint64_t, uint64_t);
long do_set_segment_base(uint64_t which, uint64_t base, uint64_t, uint64_t, uint64_t);
long do_set_gdt(uint64_t frame_list, uint64_t entries, uint64_t, uint64_t, uint64_t);
long do_update_descriptor(uint64_t maddr, uint64_t desc, uint64_t, uint64_t, uint64_t);
long do_multicall(uint64_t entries, uint64_t count, uint64_t, uint64_t, uint64_t);
long do_memory_op(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_vm_assist(uint64_t cmd, uint64_t type, uint64_t, uint64_t, uint64_t);
long do_physdev_op(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_physdev_op_compat(uint64_t arg, uint64_t, uint64_t, uint64_t, uint64_t);
long do_grant_table_op(uint64_t cmd, uint64_t uop, uint64_t count, uint64_t, uint64_t);

/* iret is no ordinary hypercall: the frame it pops becomes the vCPU's.
 * do_iret: the frame at regs->rsp, as the `syscall` road leaves it;
 * iret_to: a frame the Host has already read (the direct road). */
_Noreturn void do_iret(struct cpu_regs *regs);
_Noreturn void iret_to(struct cpu_regs *regs, const struct iret_context *frame);

/* Ask the Launcher to act on perch_shared.request; returns when it resumes
 * the vCPU (for a shutdown or a fatal request it never does). */
void launcher_request(enum perch_request reason, uint64_t arg0);

/* --gdb (host/entry/gdb.c makes the stops): whether gdb is served, as the
 * Host read perch_shared.gdb.enabled at boot. */
extern bool gdb_enabled;

/* Does the Launcher want this vCPU stopped for gdb? A sleep ends for it. */
bool gdb_stop_asked(void);

/* Stop this vCPU for gdb, its registers in perch_shared.gdb.cpu[id] (none
 * for PERCH_GDB_STOP_OFFLINE), until gdb lets it go on: it waits in the
 * Launcher with the Host lock let go, so that every other vCPU can reach
 * its own stop (all-stop). */
void launcher_gdb_stop(uint64_t why);

/* Stop the guest: it broke a rule, or the Host found itself in a state it
 * cannot go on from. The message reaches the user through the Launcher. */
_Noreturn void host_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Console output into the ring the Launcher drains (host/events/console.c). */
void console_put(const char *bytes, size_t len);

/*
 * Guest memory as the current guest-kernel page tables map it, read and
 * written through the alias after a software walk (host/core/guest_access.c):
 * a bad guest pointer gives -XEN_EFAULT, never a fault in the Host.
 */
long copy_from_guest(void *dst, uint64_t va, size_t len);
long copy_to_guest(uint64_t va, const void *src, size_t len);

/* Whether va is canonical; whether it is an address the guest owns
 * (canonical and outside Xen's hole, L4 slots 256-271); whether
 * [va, va + bytes) lies where a guest pointer may point (below the
 * non-canonical gap or above the hole: Xen's guest_handle_okay). None says
 * what is mapped there. */
bool va_canonical(uint64_t va);
bool guest_va_ok(uint64_t va);
bool guest_handle_okay(uint64_t va, uint64_t bytes);

/*
 * The one walk of the guest's page tables (the current guest-kernel L4,
 * through the alias): the machine address of the L1 entry that maps va,
 * if each upper entry (L4, L3, L2) has every bit of `need` and is no
 * superpage. GUEST_NO_ENTRY if va is not guest_va_ok(), an entry lacks a
 * bit, or a table lies outside machine memory. The L1 entry itself is the
 * caller's to check.
 */
#define GUEST_NO_ENTRY (~0ull)
uint64_t guest_l1e_maddr(uint64_t va, uint64_t need);

/* The machine address of the byte at va if an L1 entry maps it to one of
 * the guest's own frames (and, with read_only, without write access): for
 * the rooms that patch the guest kernel's text through the alias; 0 if
 * not. */
uint64_t guest_frame_maddr(uint64_t va, bool read_only);

/* The guest page-table entry at machine address maddr, read through the
 * alias in one access: how the walk and host/mm/ read entries. */
uint64_t guest_read_entry(uint64_t maddr);

/* Is mfn one of the guest's own frames (from guest_mfn_base on, and in
 * machine memory)? The one rule for every frame the guest names. */
bool guest_owns_frame(uint64_t mfn);

#endif
