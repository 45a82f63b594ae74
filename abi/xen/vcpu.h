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

#endif /* !__ASSEMBLER__ */

#endif
