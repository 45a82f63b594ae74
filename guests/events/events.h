/*
 * The events guest: the parts of Xen's public ABI it uses that abi/xen.h
 * does not carry (event_channel.h, vcpu.h, sched.h, callback.h, xen.h of
 * Xen 4.17), written down again from the interface, and what entry.S and
 * events.c share.
 */
#ifndef EVENTS_GUEST_H
#define EVENTS_GUEST_H

#include "rt.h"

/* ---- event_channel.h ---- */
#define EV_EVTCHNOP_bind_virq  1
#define EV_EVTCHNOP_close      3
#define EV_EVTCHNOP_send       4
#define EV_EVTCHNOP_status     5
#define EV_EVTCHNOP_bind_ipi   7
#define EV_EVTCHNOP_unmask     9

#define EV_EVTCHNSTAT_closed 0
#define EV_EVTCHNSTAT_virq   4
#define EV_EVTCHNSTAT_ipi    5

#define EV_NR_PORTS 4096u       /* 2-level: 64 words of 64 bits */

struct ev_bind_virq {
    uint32_t virq;
    uint32_t vcpu;
    uint32_t port;              /* out */
};

struct ev_bind_ipi {
    uint32_t vcpu;
    uint32_t port;              /* out */
};

/* close, send and unmask all take just the port. */
struct ev_port {
    uint32_t port;
};

struct ev_status {
    uint16_t dom;
    uint32_t port;
    uint32_t status;            /* out: EVTCHNSTAT_* */
    uint32_t vcpu;              /* out */
    union {
        uint32_t virq;
        struct {
            uint16_t dom;
            uint32_t port;
        } interdomain;
    } u;
};
_Static_assert(sizeof(struct ev_status) == 24, "evtchn_status");
_Static_assert(offsetof(struct ev_status, status) == 8, "evtchn_status.status");
_Static_assert(offsetof(struct ev_status, u) == 16, "evtchn_status.u");

/* ---- xen.h ---- */
#define EV_VIRQ_TIMER 0
#define EV_DOMID_SELF 0x7ff0

/* ---- callback.h ---- */
#define EV_CALLBACKOP_register  0
#define EV_CALLBACKTYPE_event   0
#define EV_CALLBACKF_mask_events 1

struct ev_callback_register {
    uint16_t type;
    uint16_t flags;
    uint64_t address;
};
_Static_assert(offsetof(struct ev_callback_register, address) == 8, "callback");

/* ---- vcpu.h ---- */
#define EV_VCPUOP_register_runstate_memory_area 5
#define EV_VCPUOP_stop_periodic_timer   7
#define EV_VCPUOP_set_singleshot_timer  8
#define EV_VCPUOP_stop_singleshot_timer 9
#define EV_VCPUOP_register_vcpu_info   10
#define EV_VCPU_SSHOTTMR_future 1u

#define EV_RUNSTATE_running  0
#define EV_RUNSTATE_runnable 1
#define EV_RUNSTATE_blocked  2
#define EV_RUNSTATE_offline  3

struct ev_runstate_info {
    int32_t state;
    uint64_t state_entry_time;
    uint64_t time[4];
};
_Static_assert(sizeof(struct ev_runstate_info) == 48, "vcpu_runstate_info");

struct ev_singleshot {
    uint64_t timeout_abs_ns;
    uint32_t flags;
};
_Static_assert(sizeof(struct ev_singleshot) == 16, "vcpu_set_singleshot_timer");

struct ev_register_vcpu_info {
    uint64_t mfn;
    uint32_t offset;
    uint32_t rsvd;
};
_Static_assert(sizeof(struct ev_register_vcpu_info) == 16, "register_vcpu_info");

/* ---- sched.h ---- */
struct ev_sched_poll {
    uint64_t ports;             /* VA of uint32_t ports[nr_ports] */
    uint32_t nr_ports;
    uint64_t timeout;           /* absolute system time; 0: none */
};
_Static_assert(sizeof(struct ev_sched_poll) == 24, "sched_poll");

/* Errors this guest expects (Xen's errno values, negated in rax). */
#define EV_ENXIO  6
#define EV_ETIME 62

/* ---- entry.S ---- */

/* The registers event_callback and the trap entries save, lowest first. */
struct upcall_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t rip, cs, rflags, rsp, ss;
};

struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t error, rip, cs, rflags, rsp, ss;
};

extern char event_callback[];
extern char spin_loop_start[], spin_loop_end[];
extern char trap_0[], trap_1[], trap_2[], trap_3[], trap_4[], trap_5[],
    trap_6[], trap_7[], trap_8[], trap_10[], trap_11[], trap_12[], trap_13[],
    trap_14[], trap_16[], trap_17[], trap_18[], trap_19[];

uint64_t spin_with_patterns(volatile uint32_t *flag, uint64_t max_loops);
void event_upcall(struct upcall_frame *f);
_Noreturn void unexpected_trap(struct trap_frame *f, unsigned vector);

#endif
