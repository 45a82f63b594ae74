/*
 * The privileged instructions a Xen PV kernel still executes at CPL3, and
 * what the Host emulates of them (host/cpu/emulate.c).
 *
 * The caller (the #UD and #GP paths of host/entry/trap.c) decides that the trap
 * came from guest-kernel mode, calls emulate_privileged(), and acts on the
 * result; the emulator itself never injects anything.
 */
#ifndef PERCH_EMULATE_H
#define PERCH_EMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/host.h"

enum emul_result {
    EMUL_DONE,        /* emulated; regs (rip included) updated: resume */
    EMUL_INJECT_UD,   /* inject #UD, no error code, rip unchanged */
    EMUL_INJECT_GP,   /* inject #GP with regs->error_code, rip unchanged
                       * (the error code is 0 whenever emulation was tried) */
    EMUL_INJECT_PF,   /* the instruction bytes are unreadable: inject #PF
                       * with error code 0 and cr2 = current->emulated_fault_address, as
                       * Xen does; rip unchanged */
};

/*
 * Emulate the instruction at regs->rip for a #UD (regs->vector 6) or a #GP
 * (any other vector: 13) taken in guest-kernel mode. #UD: only Xen's
 * forced-emulation CPUID (ud2; "xen"; cpuid). #GP with error code 0:
 * cpuid, rdmsr/wrmsr, in/out, mov to/from CR0/CR4, clts, wbinvd, cli/sti.
 */
enum emul_result emulate_privileged(struct cpu_regs *regs);

/* The emulator's state is the vCPU's (struct vcpu, host/core/vcpu.h):
 * emulated_fault_address, segments_dirty, cr0_ts, cr4. */

/* Put the emulator's state back to what a new vCPU has. */
void emulate_reset(void);

#endif
