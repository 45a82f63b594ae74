/*
 * The guest's virtual CPUs as the Host keeps them, each in its vCPU's
 * per-vCPU area (abi/layout.h, HOST_CPU_VA). host/core/guest_mode.c owns the
 * mode and the address spaces, host/entry/guest_resume.c the pending privileged
 * work that the way out applies.
 */
#ifndef PERCH_VCPU_H
#define PERCH_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../../abi/xen/vcpu.h"
#include "host.h"
#include "entry.h"

/* Privileged work the Host queues for the next ring-0 visit, which happens
 * anyway or is forced before returning to the guest (lguest's lazy flush:
 * never one visit per item). */
#define PENDING_TLB_FLUSH  (1u << 0)   /* a CR3 reload, kernel or user */

struct trap_entry {
    uint64_t address;       /* 0: no handler */
    uint16_t cs;
    bool disables_events;   /* trap_info flags bit 2: an "interrupt gate" */
};

struct vcpu {
    unsigned id;            /* 0 .. host_nr_vcpus - 1: Xen's vcpu_id */

    /* Mode and address spaces. */
    bool in_kernel;
    uint64_t kernel_cr3;    /* machine address of the kernel L4 */
    uint64_t user_cr3;      /* machine address of the user L4, 0 if none */
    uint64_t loaded_cr3;    /* what CR3 holds now: loaded only to change it */
    bool isolation_off;     /* --no-guest-isolation: user on the kernel L4 */
    uint32_t pending;       /* PENDING_* */
    bool tlb_stale;         /* a change since the last flush needs one */
    bool interrupts_off;    /* the Host runs with IF off: RESUME to leave */

    /* Where the guest kernel wants events and traps (set_trap_table,
     * set_callbacks, callback_op, stack_switch). */
    struct trap_entry traps[256];
    uint64_t event_callback;
    uint64_t failsafe_callback;
    uint64_t syscall_callback;
    bool syscall_disables_events;
    uint64_t kernel_sp;
    uint64_t kernel_ss;

    /* Segment bases (set_segment_base); the Host swaps the GS bases on
     * every switch between guest kernel and guest user. segments_dirty:
     * a wrmsr changed one; the trap path loads them into the hardware. */
    uint64_t fs_base;
    uint64_t gs_base_kernel;
    uint64_t gs_base_user;
    bool segments_dirty;

    /* The emulated processor (host/cpu/emulate.c): the guest's view of CR0.TS
     * (clts, mov-to-CR0 and fpu_taskswitch change it; the real TS stays
     * clear), its shadow CR4, and the first unreadable instruction byte of
     * an EMUL_INJECT_PF. */
    bool cr0_ts;
    uint64_t cr4;
    uint64_t xcr0;          /* the guest kernel's XCR0 (xsetbv): a subset of
                             * the real one, which KVM keeps (host/cpu/cpuid.c) */
    uint64_t emulated_fault_address;

    /* The virtual I/O privilege level and I/O bitmap (physdev_op). */
    uint32_t iopl;
    uint64_t iobitmap;          /* guest VA of the bitmap */
    uint32_t iobitmap_ports;    /* ports it covers */

    /* Time (host/events/time.c): the guest's single-shot timer and the Host's own
     * wake-up (0: not armed), and the runstate area the guest registered. */
    struct {
        uint64_t guest_deadline;
        uint64_t wake_deadline;
        uint64_t armed;         /* what its local APIC counts to (lapic.c) */
    } timer;
    struct {
        uint64_t guest_va;      /* 0: not registered */
        struct vcpu_runstate_info info;
        uint64_t steal_seen;    /* KVM's steal when last accounted (time.c) */
    } runstate;

    /* The last #PF address proven at CPL3, with where it was taken: the
     * same proof twice in a row is read from CR2 (host/cpu/fault_address.c). */
    uint64_t proven_fault_rip, proven_fault_cr3, proven_fault_address;

    /* --gdb (host/entry/gdb.c): TF while gdb steps the guest, else 0; the way
     * out keeps it in the guest's flags. gdb_step_rip: where the step
     * began. */
    uint64_t gdb_step_flags;
    uint64_t gdb_step_rip;

    /* SMP (host/core/host_lock.c, host/xen/vcpu_op.c). in_guest: the vCPU runs
     * guest code, so its TLB may hold guest mappings (atomic: others read
     * it). lock_levels: host_lock.h's stack of bits. ipi_seq: lapic.c's
     * count of IPIs sent; ipi_dest: the destination its local APIC's ICR
     * holds, + 1 (0: not known). state: VCPU_OFF until VCPUOP_initialise gives
     * it a context (start: its first guest registers), VCPU_DOWN until
     * VCPUOP_up, VCPU_DOWN again while it sleeps in VCPUOP_down.
     * guest_levels: beside lock_levels, the in_guest each entry found.
     * must_serialize: another vCPU rewrote kernel text (host_sync_others);
     * serialize before running guest code again (atomic). lock_taken_at:
     * the TSC when this vCPU last took the lock, for --stats. idle_spinning
     * and wake_seq: host/events/evtchn.c's spin before a sleep (atomic). */
    bool in_guest;
    bool must_serialize;
    bool idle_spinning;
    uint64_t wake_seq;
    uint64_t lock_levels;
    uint64_t guest_levels;
    uint64_t lock_taken_at;
    uint64_t shootdown;     /* vCPUs (bit i) that owe a flush: host/mm/tlb.c */
    unsigned ipi_seq;
    unsigned ipi_dest;
    enum { VCPU_OFF, VCPU_DOWN, VCPU_UP } state;
    struct cpu_regs start;
};

/*
 * The Host's per-vCPU area: the words host/env/entry.S keeps there
 * (host/core/entry.h), then the vCPU. The Host always runs on the stack
 * of the vCPU it serves, in the same block: that is how it finds it.
 */
struct host_cpu {
    uint64_t syscall_rsp;
    uint64_t native_rip;
    uint64_t native_tail;
    uint64_t entry_gs;
    uint64_t landing_lock;
    uint64_t landing_rax;
    struct vcpu vcpu;
};
_Static_assert(__builtin_offsetof(struct host_cpu, syscall_rsp) == HOST_CPU_SYSCALL_RSP, "entry.h");
_Static_assert(__builtin_offsetof(struct host_cpu, native_rip) == HOST_CPU_NATIVE_RIP, "entry.h");
_Static_assert(__builtin_offsetof(struct host_cpu, native_tail) == HOST_CPU_NATIVE_TAIL, "entry.h");
_Static_assert(__builtin_offsetof(struct host_cpu, entry_gs) == HOST_CPU_ENTRY_GS, "entry.h");
_Static_assert(__builtin_offsetof(struct host_cpu, landing_lock) == HOST_CPU_LANDING_LOCK, "entry.h");
_Static_assert(__builtin_offsetof(struct host_cpu, landing_rax) == HOST_CPU_LANDING_RAX, "entry.h");
_Static_assert(sizeof(struct host_cpu) <= HOST_CPU_STATE_BYTES, "the state below the stacks");

#ifdef PERCH_HOST_VM
/* Not volatile: the answer is the same all through one Host entry. */
static inline struct host_cpu *this_cpu(void)
{
    uint64_t sp;

    __asm__("mov %%rsp, %0" : "=r"(sp));
    return (struct host_cpu *)(sp & ~(PERCH_CPU_STRIDE - 1));
}

static inline struct host_cpu *host_cpu(unsigned id)
{
    return (struct host_cpu *)PERCH_CPU_VA(HOST_CPU_VA, (uint64_t)id);
}
#else
/* The unit tests' stand-ins (tests/unit/host_env.c). */
struct host_cpu *this_cpu(void);
struct host_cpu *host_cpu(unsigned id);
#endif

/* The vCPU the Host is serving now, and vCPU id (id < host_nr_vcpus). */
#define current (&this_cpu()->vcpu)
static inline struct vcpu *vcpu_of(unsigned id)
{
    return &host_cpu(id)->vcpu;
}

/* This vCPU's copy of a per-vCPU page given at vCPU 0's address va. */
static inline uint64_t this_cpu_va(uint64_t va)
{
    return PERCH_CPU_VA(va, (uint64_t)current->id);
}

/* The guest's vCPUs (perch_shared.boot.nr_vcpus, at start). */
extern unsigned host_nr_vcpus;

/* PERCH_OPT_* switched off for this run (perch_shared.boot, at start). */
extern uint32_t optimizations_off;

/* The hypervisor help the guest has switched on (vm_assist,
 * host/xen/vm_assist.c): VMASST_TYPE_* bits (abi/xen/xen.h), 1 << type, 64
 * bits wide as m2p_strict is type 32. The domain's, not the hypercall's:
 * the rooms that give the help read it here. */
extern uint64_t vm_assist_enabled;

/* Whether vCPU v's I/O privilege lets the guest kernel run cli, sti and
 * in/out: Xen's virtual IOPL against ring 1, or ring 0 under vm_assist
 * architectural_iopl. */
static inline bool vcpu_iopl_allows(const struct vcpu *v)
{
    unsigned cpl = (vm_assist_enabled & (1ull << VMASST_TYPE_architectural_iopl)) ? 0 : 1;

    return cpl <= v->iopl;
}

#endif
