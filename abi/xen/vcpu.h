/*
 * vcpu_op (Xen 4.17's public/vcpu.h): runstate, timers and where the
 * vcpu_info lives.
 */
#ifndef PERCH_ABI_XEN_VCPU_H
#define PERCH_ABI_XEN_VCPU_H

#include "xen.h"

#define VCPUOP_initialise                      0
#define VCPUOP_up                              1
#define VCPUOP_down                            2
#define VCPUOP_is_up                           3
#define VCPUOP_get_runstate_info               4
#define VCPUOP_register_runstate_memory_area   5
#define VCPUOP_set_periodic_timer              6
#define VCPUOP_stop_periodic_timer             7
#define VCPUOP_set_singleshot_timer            8
#define VCPUOP_stop_singleshot_timer           9
#define VCPUOP_register_vcpu_info             10
#define VCPUOP_send_nmi                       11
#define VCPUOP_get_physid                     12
#define VCPUOP_register_vcpu_time_memory_area 13

#define RUNSTATE_running  0
#define RUNSTATE_runnable 1
#define RUNSTATE_blocked  2
#define RUNSTATE_offline  3

/* set_singleshot_timer: -ETIME if the deadline has already passed. */
#define VCPU_SSHOTTMR_future (1u << 0)

#ifndef __ASSEMBLER__

struct vcpu_runstate_info {
    int32_t state;             /* RUNSTATE_* */
    uint64_t state_entry_time; /* system time it was entered */
    uint64_t time[4];          /* ns spent in each state */
};
_Static_assert(sizeof(struct vcpu_runstate_info) == 48, "vcpu_runstate_info");
_Static_assert(offsetof(struct vcpu_runstate_info, state_entry_time) == 8, "entry_time");
_Static_assert(offsetof(struct vcpu_runstate_info, time) == 16, "runstate.time");

/* register_runstate_memory_area's argument: the guest VA of the record. */
struct vcpu_register_runstate_memory_area {
    uint64_t addr;
};
_Static_assert(sizeof(struct vcpu_register_runstate_memory_area) == 8, "runstate_area");

struct vcpu_set_periodic_timer {
    uint64_t period_ns;
};
_Static_assert(sizeof(struct vcpu_set_periodic_timer) == 8, "periodic_timer");

struct vcpu_set_singleshot_timer {
    uint64_t timeout_abs_ns;   /* absolute system time */
    uint32_t flags;            /* VCPU_SSHOTTMR_* */
};
_Static_assert(sizeof(struct vcpu_set_singleshot_timer) == 16, "singleshot_timer");
_Static_assert(offsetof(struct vcpu_set_singleshot_timer, flags) == 8, "singleshot.flags");

struct vcpu_register_vcpu_info {
    uint64_t mfn;              /* the frame that holds it */
    uint32_t offset;           /* where in the frame */
    uint32_t rsvd;
};
_Static_assert(sizeof(struct vcpu_register_vcpu_info) == 16, "register_vcpu_info");
_Static_assert(offsetof(struct vcpu_register_vcpu_info, offset) == 8, "vcpu_info.offset");

/*
 * VCPUOP_initialise's argument for a 64-bit PV guest: the new vCPU's
 * registers and the state Xen's other hypercalls would have set (public
 * arch-x86/xen.h, xen-x86_64.h). Offsets checked below.
 */
struct cpu_user_regs {
    uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
    uint64_t rax, rcx, rdx, rsi, rdi;
    uint32_t error_code, entry_vector;
    uint64_t rip;
    uint16_t cs, pad0;
    uint8_t saved_upcall_mask, pad1[3];
    uint64_t rflags, rsp;
    uint16_t ss, pad2[3], es, pad3[3], ds, pad4[3], fs, pad5[3], gs, pad6[3];
};
_Static_assert(sizeof(struct cpu_user_regs) == 200, "cpu_user_regs");
_Static_assert(offsetof(struct cpu_user_regs, rip) == 128, "cpu_user_regs.rip");
_Static_assert(offsetof(struct cpu_user_regs, rsp) == 152, "cpu_user_regs.rsp");

#define VGCF_I387_VALID               (1u << 0)
#define VGCF_IN_KERNEL                (1u << 2)
#define VGCF_failsafe_disables_events (1u << 3)
#define VGCF_syscall_disables_events  (1u << 4)
#define VGCF_online                   (1u << 5)

struct vcpu_guest_context {
    uint8_t fpu_ctxt[512];
    uint64_t flags;                 /* VGCF_* */
    struct cpu_user_regs user_regs;
    struct trap_info trap_ctxt[256];   /* entry v for vector v */
    uint64_t ldt_base, ldt_ents;
    uint64_t gdt_frames[16], gdt_ents;
    uint64_t kernel_ss, kernel_sp;
    uint64_t ctrlreg[8];            /* [3]: the kernel's L4 (cr3 format), [1]: the user's */
    uint64_t debugreg[8];
    uint64_t event_callback_eip, failsafe_callback_eip, syscall_callback_eip;
    uint64_t vm_assist;
    uint64_t fs_base, gs_base_kernel, gs_base_user;
};
_Static_assert(offsetof(struct vcpu_guest_context, user_regs) == 520, "ctxt.user_regs");
_Static_assert(offsetof(struct vcpu_guest_context, trap_ctxt) == 720, "ctxt.trap_ctxt");
_Static_assert(offsetof(struct vcpu_guest_context, gdt_frames) == 4832, "ctxt.gdt_frames");
_Static_assert(offsetof(struct vcpu_guest_context, ctrlreg) == 4984, "ctxt.ctrlreg");
_Static_assert(offsetof(struct vcpu_guest_context, event_callback_eip) == 5112, "ctxt.callbacks");
_Static_assert(sizeof(struct vcpu_guest_context) == 5168, "vcpu_guest_context");

#endif /* !__ASSEMBLER__ */

#endif
