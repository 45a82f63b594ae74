/*
 * Linux's hypercalls and irets made plain jumps into the Host, with no
 * trap (docs/design.md, "Direct calls"). A 64-bit Xen PV kernel of 6.1
 * enters its hypervisor at two places only: xen_hypercall_pv, which every
 * hypercall calls, and xen_iret (with hypercall_iret two bytes in), where
 * every return from its handlers ends. Both end in a `syscall`, which on
 * these machines is a trap through the machine's hypervisor (docs/kvm.md).
 * Before the guest's first instruction, the Host rewrites both:
 *
 *   xen_iret          push $0          Linux's own first instruction, kept
 *               +2    jmp *(+8)        hypercall_iret: a jump to the Host
 *               +8    .quad host_direct_entry
 *   xen_hypercall_pv  push $-1         a hypercall, not an iret's flags
 *               +2    jmp *(xen_iret + 8)
 *
 * The Host lies 128 TiB from the kernel's text, out of a rel32's reach, so
 * the jumps go through a pointer; its only room is xen_iret's own bytes
 * after its `syscall` (which never returns) and the alignment after them.
 * xen_iret + 2 stays a boundary that means what it meant (xen_sysret64
 * jumps there with its own flags pushed); xen_hypercall_pv's return, from
 * +8 on, stays as it was, since Linux's boot rewrites it for its
 * return-thunk mitigations. Patched before the guest runs, no guest frame
 * can point inside the new bytes and no other vCPU is up. Each function's
 * bytes must be exactly Linux's, or neither is patched and the `syscall`
 * road stays.
 *
 * Older kernels call a hypercall page instead (their HYPERCALL_PAGE note;
 * Linux before 6.1.121 and its stable kin): there each 32-byte slot, the
 * Launcher's `syscall` stub, becomes `push $-1; mov $nr, %eax; jmp *`
 * (the iret slot, entered with the flags word pushed, only the jmp), the
 * Host's address in the slot's last 8 bytes.
 */
#ifndef PERCH_HOST_DIRECT_CALLS_H
#define PERCH_HOST_DIRECT_CALLS_H

#include <stdint.h>

#include "../core/host.h"

/* The word xen_hypercall_pv's patch pushes: not an iret's flags. */
#define DIRECT_CALL_HYPERCALL (~0ull)

/* Patch the kernel's functions, and its hypercall page, that
 * perch_shared.boot names, to jump to entry; for_gdb: leave them as they
 * are (gdb steps the kernel's own bytes). Returns, and records for
 * --stats, what became of them (of the functions, where the kernel has
 * them; else of the page). */
enum perch_direct_state direct_calls_install(uint64_t entry, bool for_gdb);

#endif
