/*
 * Event channels with Xen's 2-level ABI (host/events/evtchn.c): 4096 ports whose
 * pending and mask bitmaps live in shared_info, and the vCPU's vcpu_info
 * (upcall_pending, upcall_mask, pending_sel), which starts as
 * shared_info->vcpu_info[0] and moves when the guest registers its own.
 * The Host reaches both through the alias of machine memory, never through
 * a guest virtual address.
 *
 * Each port notifies one vCPU (its notify_vcpu): a raise sets that
 * vCPU's selector bits and, when it is not the vCPU the Host serves,
 * sends it PERCH_IPI_VECTOR so that it looks. All of this is under the
 * Host lock (host_lock.h); the guest's other vCPUs run while the Host
 * does, and the timer interrupt may raise VIRQ_TIMER in the middle of the
 * Host's work, so the shared bits change by locked instructions.
 * Bindings are made and undone only by hypercalls and at start, never from
 * an interrupt.
 */
#ifndef PERCH_HOST_EVTCHN_H
#define PERCH_HOST_EVTCHN_H

#include "../../abi/xen/event_channel.h"
#include "../../abi/xen/sched.h"
#include "../core/host.h"
#include "../core/vcpu.h"

/* ---- perch's event-channel state ---------------------------------------- */

enum evtchn_port_state {
    EVTCHN_FREE = 0,   /* port 0 is never bound: Xen reserves it */
    EVTCHN_VIRQ,       /* bound to a virtual IRQ */
    EVTCHN_IPI,        /* bound to an IPI (a send raises it locally) */
    EVTCHN_BACKEND,    /* interdomain to a back end inside perch */
    EVTCHN_UNBOUND,    /* allocated for domain 0 to connect (alloc_unbound) */
};

struct evtchn_port {
    uint8_t state;         /* enum evtchn_port_state */
    uint8_t virq;          /* EVTCHN_VIRQ: which */
    uint8_t notify_vcpu;   /* the vCPU it raises events on */
    uint8_t line;          /* EVTCHN_BACKEND: its PERCH_LINE_* */
};

struct evtchn_state {
    struct evtchn_port port[EVTCHN_2L_NR_CHANNELS];
    uint16_t virq_port[PERCH_MAX_VCPUS][XEN_NR_VIRQS];  /* 0: none */
    /* Each vCPU's vcpu_info where it registered one (machine address),
     * 0: still in shared_info (vcpu_info[id]). */
    uint64_t vcpu_info_maddr[PERCH_MAX_VCPUS];
    unsigned nr_backends;       /* ports in EVTCHN_BACKEND */
    uint64_t kicks;             /* counts new pending bits: wakes pollers */
};

/* Read it, do not write it, outside host/events/evtchn.c. */
extern struct evtchn_state evtchn_state;

/* Machine frame of shared_info (perch-private), set at start before the
 * guest runs (0 until then, like perch_shared.boot.shared_info_mfn in the
 * unit tests). A frame outside machine memory (INVALID_MFN) means none:
 * no event can be raised, nothing is due. */
extern uint64_t evtchn_shared_info_mfn;

/* Forget every binding and registration: all ports free, vcpu_info back in
 * shared_info. Leaves shared_info's contents and evtchn_shared_info_mfn. */
void evtchn_init(void);

/* shared_info and the current vCPU's vcpu_info (or vCPU id's) through
 * the alias; NULL while evtchn_shared_info_mfn is not a frame of machine
 * memory, or for a vCPU past shared_info's legacy ones that registered
 * none. */
volatile struct shared_info *evtchn_shared_info(void);
volatile struct vcpu_info *evtchn_vcpu_info(void);
volatile struct vcpu_info *evtchn_vcpu_info_of(unsigned id);

/* Bind `port` (1..4095, free) as interdomain to back-end line `line`
 * (< PERCH_LINES): the guest's EVTCHNOP_send on it calls
 * env_notify_backend(line). 0, -XEN_EINVAL (out of range) or -XEN_EBUSY
 * (already bound). */
int evtchn_bind_backend(unsigned port, unsigned line);

/* Connect a port the guest allocated for domain 0 (EVTCHNOP_alloc_unbound)
 * to back-end line `line`, as a back end's bind_interdomain does. Safe from
 * an interrupt: the only change is unbound -> back end, in one store after
 * the line, so a hypercall it interrupts sees one state or the other.
 * 0, or -XEN_EINVAL if the port is not such a port. */
int evtchn_connect_backend(unsigned port, unsigned line);

/* Raise a bound port as Xen's 2-level ABI does: set its pending bit; if it
 * was not pending and is not masked, set its word's bit in pending_sel and
 * upcall_pending. A free or out-of-range port is ignored. */
void evtchn_raise(unsigned port);

/* Raise the current vCPU's binding of `virq`, if it has one. */
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

/*
 * A vCPU about to sleep (block, poll) first spins a while, the Host lock
 * let go, watching for another vCPU's event: one sent meanwhile costs no
 * IPI and no wake-up from the HALT gate. Called with the lock held, after
 * the look that found nothing to do; the caller looks again after it.
 * Only with several vCPUs, and not with --no-idle-spin.
 */
void evtchn_spin_before_sleep(void);

/* VCPUOP_register_vcpu_info's work for vCPU id: move its vcpu_info to
 * machine frame `mfn` (the guest's own) at `offset`. The caller refreshes
 * the time info, as Xen does, whatever this returns. */
long evtchn_register_vcpu_info(unsigned id, uint64_t mfn, uint64_t offset);

/* Hypercalls 32 and 16. */
long do_event_channel_op(uint64_t cmd, uint64_t arg, uint64_t, uint64_t, uint64_t);
long do_event_channel_op_compat(uint64_t arg, uint64_t, uint64_t, uint64_t, uint64_t);

#endif
