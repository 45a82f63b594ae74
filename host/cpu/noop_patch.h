/*
 * cli and sti in the guest kernel's text that the guest's I/O privilege
 * makes no-ops (its events are masked through vcpu_info, as in Xen) still
 * trap: a #GP at CPL3, one trap through the machine's hypervisor each.
 * Linux's this_cpu_cmpxchg16b_emu runs `pushf; cli; ...; popf` for every
 * slab operation of early boot, ~5 600 times before alternatives put
 * cmpxchg16b in its callers. So once the Host has emulated one at an
 * address of the kernel's text, while no other vCPU has a context (nothing
 * else can be fetching it), it writes a nop over it (at most
 * NOOP_PATCH_SITES of them); the bytes come back the moment any vCPU that
 * can run would have the instruction trap (set_iopl, a new vCPU context,
 * vm_assist architectural_iopl). Not with --gdb (gdb shows the kernel's
 * own bytes), nor with --no-insn-patching.
 */
#ifndef PERCH_HOST_NOOP_PATCH_H
#define PERCH_HOST_NOOP_PATCH_H

#include <stdbool.h>
#include <stdint.h>

#define NOOP_PATCH_SITES 16

/* At boot: nothing patched; with gdb (for_gdb), nothing ever will be. */
void noop_patch_init(bool for_gdb);

/* The one-byte cli or sti (opcode) at rip was just emulated as a no-op. */
void noop_patch_emulated(uint64_t rip, uint8_t opcode);

/* A vCPU's I/O privilege may have changed: undo every patch if it no
 * longer makes cli and sti no-ops on every vCPU that can run. */
void noop_patch_recheck(void);

/* Sites patched now (for tests and --stats). */
unsigned noop_patch_sites(void);

#endif
