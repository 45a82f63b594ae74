/*
 * Patching the guest kernel's trapping page-table stores into Host calls
 * (lguest's and VMI's paravirt patching, applied to the stores Linux does
 * not route through pv_ops). A trapped store costs an exception; the same
 * store as a `syscall` into the Host costs a hypercall (docs/kvm.md).
 *
 * Rules that keep it correct (docs/design.md, section 6):
 *   - only an instruction ptwr has just emulated, in the kernel's own text
 *     (perch_shared.boot.kernel_text_*), within one page, and only once
 *     that page is mapped read-only: before Linux write-protects its text
 *     it may rewrite it with plain stores the Host never sees;
 *   - 5 bytes or more: `call xen_hypercall_pv` where perch made that a
 *     direct jump to the Host (direct_calls.h: no trap), else `push %rcx;
 *     push %r11; syscall`, every register kept either way; 3 or 4: `push
 *     %rcx; syscall` only where r11 is provably dead after it
 *     (host/x86/insn_liveness.c); the instruction's other bytes int3;
 *   - guest code never stays between a patch's instructions: an event
 *     there puts it back to before the patch (insn_patch_leave_interior),
 *     so an undo never leaves a resume in the middle of the original;
 *   - the instruction as the guest wrote it is kept; the Host emulates
 *     that, never the bytes in memory;
 *   - the original comes back before any new writable mapping of its page
 *     (text_poke, module loading, ...), to be patched again at a later
 *     trap that finds the page read-only (at most PERCH_PATCH_MAX_REWRITES
 *     times); and for good when the store turns out to target something
 *     other than a page table (the original then runs).
 * A guest that jumps into a patch, or forges a `syscall` that returns to
 * one, gets its own registers and stack shuffled, nothing of the Host's.
 */
#ifndef PERCH_HOST_INSN_PATCH_H
#define PERCH_HOST_INSN_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/host.h"

/* ptwr just emulated a trapped store of len bytes at rip: count it, and
 * patch the site when the rules allow. */
void insn_patch_trapped(uint64_t rip, unsigned len);

/* A guest-kernel `syscall` whose return address (regs->rcx) ends an active
 * patch: regs become the guest's at the patched instruction (rcx and r11
 * from its stack, its flags), the instruction is done, and true; the
 * caller resumes the guest with regs. One that ends a `syscall` patch
 * undone since (another vCPU's): regs put back the same way, regs->rip
 * the site again, and true. false: not a patch, regs untouched. */
bool insn_patch_entry(struct cpu_regs *regs);

/* An event stopped guest-kernel code inside a `syscall` patch, after a
 * push and before its `syscall` (any #BP but the site's own int3, which
 * insn_patch_stray_int3 serves): regs go back to before the patch, its
 * pushes taken back and rip at the site. Elsewhere regs are left alone. */
void insn_patch_leave_interior(struct cpu_regs *regs);

/* A hypercall by the direct entry whose return address (regs->rip, rsp
 * already above it) ends an active `call` patch: the patched instruction
 * is done as insn_patch_entry does it, and true. One that ends a call
 * patch undone since: regs->rip is the site again, and true. false: a
 * hypercall. */
bool insn_patch_call(struct cpu_regs *regs);

/* A write fault of the guest kernel at an active site that ptwr could not
 * take: with several vCPUs, the store faulted just before another vCPU,
 * holding the Host lock, patched the site. The instruction it ran (the
 * original) is done, regs stepped past it: true. */
bool insn_patch_fault_at_site(struct cpu_regs *regs);

/* A #BP of the guest kernel at regs->rip: the int3 a patch being written
 * or undone on another vCPU put over a site's first byte, gone now? Then
 * regs->rip is the site again, to run what it holds now, and true. */
bool insn_patch_stray_int3(struct cpu_regs *regs);

/* An L1 entry is about to map frame mfn writable: its patches are undone
 * first, so that what the guest writes lands on its own bytes. mm.c calls
 * it through mm_writable_frame_hook, filled in with the first patch. */
void insn_patch_frame_writable(uint64_t mfn);

#endif
