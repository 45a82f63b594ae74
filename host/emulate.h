/*
 * What the Host emulates for a guest kernel that runs at CPL3: the
 * privileged instructions a Xen PV kernel still executes (host/emulate.c)
 * and the CPUID view Xen gives a PV guest (host/cpuid.c).
 *
 * The caller (the #UD and #GP paths of host/trap.c) decides that the trap
 * came from guest-kernel mode, calls emulate_privileged(), and acts on the
 * result; the emulator itself never injects anything.
 */
#ifndef PERCH_EMULATE_H
#define PERCH_EMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"

/* ---- Privileged-instruction emulation (host/emulate.c) ------------------ */

enum emul_result {
    EMUL_DONE,        /* emulated; regs (rip included) updated: resume */
    EMUL_INJECT_UD,   /* inject #UD, no error code, rip unchanged */
    EMUL_INJECT_GP,   /* inject #GP with regs->error_code, rip unchanged
                       * (the error code is 0 whenever emulation was tried) */
    EMUL_INJECT_PF,   /* the instruction bytes are unreadable: inject #PF
                       * with error code 0 and cr2 = emulate_fault_addr, as
                       * Xen does; rip unchanged */
};

/*
 * Emulate the instruction at regs->rip for a #UD (regs->vector 6) or a #GP
 * (any other vector: 13) taken in guest-kernel mode. #UD: only Xen's
 * forced-emulation CPUID (ud2; "xen"; cpuid). #GP with error code 0:
 * cpuid, rdmsr/wrmsr, in/out, mov to/from CR0/CR4, clts, wbinvd, cli/sti.
 */
enum emul_result emulate_privileged(struct cpu_regs *regs);

/* Address of the first unreadable instruction byte (EMUL_INJECT_PF). */
extern uint64_t emulate_fault_addr;

/*
 * Set when a wrmsr changed vcpu0.fs_base, gs_base_kernel or gs_base_user;
 * the caller loads the bases into the hardware and clears the flag.
 */
extern bool vcpu_segments_dirty;

/*
 * The guest's view of CR0.TS: clts and mov-to-CR0 change it, reading CR0
 * shows it. perch keeps the real TS clear (host/callbacks.c), so this is
 * only what the guest sees; do_fpu_taskswitch() should set it too.
 */
extern bool guest_cr0_ts;

/* The guest's shadow CR4 (what mov-from-CR4 returns). */
extern uint64_t guest_cr4;

/* Put the emulator's state back to what a new vCPU has. */
void emulate_reset(void);

/* ---- CPUID (host/cpuid.c) ------------------------------------------------ */

/*
 * The CPUID a Xen PV guest sees: leaf/subleaf in, eax..edx out. Built from
 * the real CPU through env_cpuid, with Xen 4.17's PV policy and perch's own
 * hidden bits applied, plus Xen's leaves at 0x40000000.
 */
void guest_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/*
 * The real CPU's CPUID, where guest_cpuid() starts from: host/vm/env.c runs
 * `cpuid` at CPL3 (KVM answers with the vCPU's CPUID); unit tests bring a
 * fake. Declared here until env.h has it.
 */
void env_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);

/* A feature bit perch hides from the guest, and why (for docs and tests). */
enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };
struct cpuid_hidden_bit {
    uint32_t leaf, subleaf;
    uint8_t reg;            /* CPUID_EAX .. CPUID_EDX */
    uint8_t bit;
    const char *name;
    const char *why;
};
extern const struct cpuid_hidden_bit cpuid_hidden[];
extern const size_t cpuid_hidden_count;

/* Multicall entries processed since boot (host/multicall.c). */
extern uint64_t multicall_stat_entries;

/* Enabled VMASST_TYPE_* bits, 1 << type (host/vm_assist.c). 64 bits wide:
 * m2p_strict is type 32. */
extern uint64_t vm_assist_enabled;

/* The guest kernel's virtual I/O privilege level and I/O bitmap, as
 * PHYSDEVOP_set_iopl / set_iobitmap left them (host/physdev.c). */
extern uint32_t physdev_iopl;
extern uint64_t physdev_iobitmap;        /* guest VA of the bitmap */
extern uint32_t physdev_iobitmap_ports;  /* ports it covers */
extern uint64_t physdev_pirq_eoi_mfn;    /* pirq_eoi_gmfn's frame, 0: none */

#endif
