/*
 * Event channels with Xen's 2-level ABI (host/evtchn.c): 4096 ports whose
 * pending and mask bitmaps live in shared_info, and the vCPU's vcpu_info
 * (upcall_pending, upcall_mask, pending_sel), which starts as
 * shared_info->vcpu_info[0] and moves when the guest registers its own.
 * The Host reaches both through the alias of machine memory, never through
 * a guest virtual address.
 *
 * One vCPU: every port notifies vCPU 0. The guest is stopped whenever the
 * Host runs; the timer interrupt may still raise VIRQ_TIMER in the middle
 * of the Host's work, so the shared bits change by locked instructions.
 * Bindings are made and undone only by hypercalls and at start, never from
 * an interrupt.
 */
#ifndef PERCH_HOST_EVTCHN_H
#define PERCH_HOST_EVTCHN_H

#include "host.h"

/* ---- The ABI (public/event_channel.h, xen.h, sched.h; Xen 4.17) ----------
 * Not in abi/xen.h yet; the guards let it move there without a clash. */
#ifndef EVTCHNOP_bind_interdomain
#define EVTCHNOP_bind_interdomain 0
#define EVTCHNOP_bind_virq        1
#define EVTCHNOP_bind_pirq        2
#define EVTCHNOP_close            3
#define EVTCHNOP_send             4
#define EVTCHNOP_status           5
#define EVTCHNOP_alloc_unbound    6
#define EVTCHNOP_bind_ipi         7
#define EVTCHNOP_bind_vcpu        8
#define EVTCHNOP_unmask           9
#define EVTCHNOP_reset           10
#define EVTCHNOP_init_control    11
#define EVTCHNOP_expand_array    12
#define EVTCHNOP_set_priority    13

#define EVTCHNSTAT_closed      0
#define EVTCHNSTAT_unbound     1
#define EVTCHNSTAT_interdomain 2
#define EVTCHNSTAT_pirq        3
#define EVTCHNSTAT_virq        4
#define EVTCHNSTAT_ipi         5

/* Virtual IRQs: TIMER, DEBUG, XENOPROF and XENPMU are per vCPU; the
 * others (CONSOLE 2 ... ENOMEM 12, ARCH_0..7 = 16..23) are global. */
#define VIRQ_TIMER     0
#define VIRQ_DEBUG     1
#define VIRQ_CONSOLE   2
#define VIRQ_XENOPROF  7
#define VIRQ_XENPMU   13
#define XEN_NR_VIRQS  24

#ifndef DOMID_SELF
#define DOMID_SELF 0x7ff0u
#endif

#define EVTCHN_2L_NR_CHANNELS 4096u   /* 64 words of 64 bits */

struct evtchn_bind_virq {
    uint32_t virq;
    uint32_t vcpu;
    uint32_t port;             /* out */
};
struct evtchn_bind_ipi {
    uint32_t vcpu;
    uint32_t port;             /* out */
};
struct evtchn_close { uint32_t port; };
struct evtchn_send { uint32_t port; };
struct evtchn_unmask { uint32_t port; };
struct evtchn_bind_vcpu {
    uint32_t port;
    uint32_t vcpu;
};
struct evtchn_reset { uint16_t dom; };
struct evtchn_status {
    uint16_t dom;              /* in */
    uint32_t port;             /* in */
    uint32_t status;           /* out: EVTCHNSTAT_* */
    uint32_t vcpu;             /* out: the vCPU it notifies */
    union {
        struct { uint16_t dom; } unbound;
        struct { uint16_t dom; uint32_t port; } interdomain;
        uint32_t pirq;
        uint32_t virq;
    } u;
};
_Static_assert(sizeof(struct evtchn_bind_virq) == 12, "evtchn_bind_virq");
_Static_assert(sizeof(struct evtchn_bind_ipi) == 8, "evtchn_bind_ipi");
_Static_assert(sizeof(struct evtchn_status) == 24, "evtchn_status");
_Static_assert(offsetof(struct evtchn_status, status) == 8, "status.status");
_Static_assert(offsetof(struct evtchn_status, u.interdomain.port) == 20, "status.u");
#endif

/* The legacy hypercall 16 passes { uint32_t cmd; union of the above }: the
 * union's members are 4-byte aligned, so it starts at offset 4. */
#define EVTCHN_OP_COMPAT_ARG_OFFSET 4

/* SCHEDOP_poll's argument. */
#ifndef SCHED_POLL_MAX_PORTS
struct sched_poll {
    uint64_t ports;            /* guest VA of uint32_t ports[nr_ports] */
    uint32_t nr_ports;
    uint64_t timeout;          /* absolute system time (ns); 0: none */
};
_Static_assert(sizeof(struct sched_poll) == 24, "sched_poll");
_Static_assert(offsetof(struct sched_poll, timeout) == 16, "sched_poll.timeout");
#define SCHED_POLL_MAX_PORTS 128   /* Xen's limit */
#endif

#ifndef XEN_ENXIO
#define XEN_ENXIO  6
#endif

/* ---- perch's event-channel state ---------------------------------------- */

enum evtchn_port_state {
    EVTCHN_FREE = 0,   /* port 0 is never bound: Xen reserves it */
    EVTCHN_VIRQ,       /* bound to a virtual IRQ */
    EVTCHN_IPI,        /* bound to an IPI (a send raises it locally) */
    EVTCHN_BACKEND,    /* interdomain to a back end inside perch */
};

struct evtchn_port {
    uint8_t state;         /* enum evtchn_port_state */
    uint8_t virq;          /* EVTCHN_VIRQ: which */
    uint8_t notify_vcpu;   /* always 0: one vCPU */
};

struct evtchn_state {
    struct evtchn_port port[EVTCHN_2L_NR_CHANNELS];
    uint16_t virq_port[XEN_NR_VIRQS];  /* vCPU 0's bindings; 0: none */
    bool vcpu_info_moved;       /* registered: vcpu_info is at ... */
    uint64_t vcpu_info_maddr;   /* ... this machine address */
    unsigned nr_backends;       /* ports in EVTCHN_BACKEND */
    uint64_t kicks;             /* counts new pending bits: wakes pollers */
};

/* Read it, do not write it, outside host/evtchn.c. */
extern struct evtchn_state evtchn_state;

/* Machine frame of shared_info (perch-private), set at start before the
 * guest runs (0 until then, like perch_shared.boot.shared_info_mfn in the
 * unit tests). A frame outside machine memory (INVALID_MFN) means none:
 * no event can be raised, nothing is due. */
extern uint64_t evtchn_shared_info_mfn;

/* Forget every binding and registration: all ports free, vcpu_info back in
 * shared_info. Leaves shared_info's contents and evtchn_shared_info_mfn. */
void evtchn_init(void);

/* shared_info and the current vcpu_info through the alias; NULL while
 * evtchn_shared_info_mfn is not a frame of machine memory. */
volatile struct shared_info *evtchn_shared_info(void);
volatile struct vcpu_info *evtchn_vcpu_info(void);

/* Bind `port` (1..4095, free) as interdomain to a back end inside perch:
 * the guest's EVTCHNOP_send on it calls env_notify_backend(port).
 * 0, -XEN_EINVAL (out of range) or -XEN_EBUSY (already bound). */
int evtchn_bind_backend(unsigned port);

/* Raise a bound port as Xen's 2-level ABI does: set its pending bit; if it
 * was not pending and is not masked, set its word's bit in pending_sel and
 * upcall_pending. A free or out-of-range port is ignored. */
void evtchn_raise(unsigned port);

/* Raise vCPU 0's binding of `virq`, if it has one. */
void evtchn_raise_virq(unsigned virq);

/* Is `port`'s pending bit set? False for ports out of range. */
bool evtchn_port_pending(unsigned port);

/* Does a back end inside perch hold a port (something outside the guest
 * that may raise an event while it waits)? */
bool evtchn_backends_bound(void);

/*
 * upcall_pending && !upcall_mask: the return-to-guest path (after every
 * hypercall, trap and interrupt) must then bounce to the event callback,
 * setting upcall_mask as it does (CALLBACKF_mask_events).
 */
bool evtchn_upcall_due(void);

/* VCPUOP_register_vcpu_info's work for vCPU 0: move vcpu_info to machine
 * frame `mfn` (the guest's own) at `offset`. The caller refreshes the time
 * info (time_update_guest()), as Xen does, whatever this returns. */
long evtchn_register_vcpu_info(uint64_t mfn, uint64_t offset);

/* Hypercalls 32 and 16. */
long do_event_channel_op(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_event_channel_op_compat(uint64_t arg, uint64_t, uint64_t, uint64_t, uint64_t);

/* ---- Provided by the environment (host/vm/ inside the VM) ----------------- */

/* The guest sent on a port bound with evtchn_bind_backend(). */
void env_notify_backend(unsigned port);

/* Halt the vCPU until an interrupt has been handled: the timer interrupt
 * calls time_timer_fired(), a back end's interrupt evtchn_raise(), before
 * this returns. It may return early; callers re-check and call it again. */
void env_idle(void);

#endif
