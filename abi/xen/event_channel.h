/*
 * Event channels (Xen 4.17's public/event_channel.h): the EVTCHNOP_*
 * commands of event_channel_op and their arguments. The 2-level ABI's
 * bitmaps themselves live in shared_info (xen.h).
 */
#ifndef PERCH_ABI_XEN_EVENT_CHANNEL_H
#define PERCH_ABI_XEN_EVENT_CHANNEL_H

#include "xen.h"

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

/* What EVTCHNOP_status says a port is. */
#define EVTCHNSTAT_closed      0
#define EVTCHNSTAT_unbound     1
#define EVTCHNSTAT_interdomain 2
#define EVTCHNSTAT_pirq        3
#define EVTCHNSTAT_virq        4
#define EVTCHNSTAT_ipi         5

/* The 2-level ABI's ports: 64 words of 64 bits. */
#define EVTCHN_2L_NR_CHANNELS 4096u

/* The legacy hypercall 16 passes { uint32_t cmd; union of the arguments }:
 * every argument is 4-byte aligned, so the union starts at offset 4. */
#define EVTCHN_OP_COMPAT_ARG_OFFSET 4

#ifndef __ASSEMBLER__

typedef uint32_t evtchn_port_t;

struct evtchn_bind_virq {
    uint32_t virq;             /* VIRQ_* */
    uint32_t vcpu;
    evtchn_port_t port;        /* out */
};
_Static_assert(sizeof(struct evtchn_bind_virq) == 12, "evtchn_bind_virq");
_Static_assert(offsetof(struct evtchn_bind_virq, port) == 8, "bind_virq.port");

struct evtchn_bind_ipi {
    uint32_t vcpu;
    evtchn_port_t port;        /* out */
};
_Static_assert(sizeof(struct evtchn_bind_ipi) == 8, "evtchn_bind_ipi");

/* close, send and unmask take only the port. */
struct evtchn_close { evtchn_port_t port; };
struct evtchn_send { evtchn_port_t port; };
struct evtchn_unmask { evtchn_port_t port; };
_Static_assert(sizeof(struct evtchn_send) == 4, "evtchn_send");

struct evtchn_bind_vcpu {
    evtchn_port_t port;
    uint32_t vcpu;
};
_Static_assert(sizeof(struct evtchn_bind_vcpu) == 8, "evtchn_bind_vcpu");

/* A port for another domain (remote_dom) to bind: a back end's. */
struct evtchn_alloc_unbound {
    domid_t dom;               /* DOMID_SELF */
    domid_t remote_dom;
    evtchn_port_t port;        /* out */
};
_Static_assert(sizeof(struct evtchn_alloc_unbound) == 8, "evtchn_alloc_unbound");
_Static_assert(offsetof(struct evtchn_alloc_unbound, port) == 4, "alloc_unbound.port");

struct evtchn_reset { domid_t dom; };
_Static_assert(sizeof(struct evtchn_reset) == 2, "evtchn_reset");

struct evtchn_status {
    domid_t dom;               /* in */
    evtchn_port_t port;        /* in */
    uint32_t status;           /* out: EVTCHNSTAT_* */
    uint32_t vcpu;             /* out: the vCPU it notifies */
    union {
        struct { domid_t dom; } unbound;
        struct { domid_t dom; evtchn_port_t port; } interdomain;
        uint32_t pirq;
        uint32_t virq;
    } u;
};
_Static_assert(sizeof(struct evtchn_status) == 24, "evtchn_status");
_Static_assert(offsetof(struct evtchn_status, port) == 4, "status.port");
_Static_assert(offsetof(struct evtchn_status, status) == 8, "status.status");
_Static_assert(offsetof(struct evtchn_status, u) == 16, "status.u");
_Static_assert(offsetof(struct evtchn_status, u.interdomain.port) == 20, "status.u.port");

#endif /* !__ASSEMBLER__ */

#endif
