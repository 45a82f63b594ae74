/*
 * Event channels and time for a test guest that talks to back ends: the
 * shared_info page mapped, an event callback that records which ports
 * fired, VIRQ_TIMER for naps, and waiting for a condition with events
 * off while looking and on while asleep (how a PV kernel idles).
 */
#ifndef PERCH_RT_EVENTS_H
#define PERCH_RT_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/event_channel.h"
#include "../../abi/xen/xen.h"

#define RT_NS_PER_MS 1000000ull

extern volatile struct shared_info *rt_shared_info;

/* The vcpu_info of the vCPU this runs on (guests/rt/cpu_id.h), in
 * shared_info. */
volatile struct vcpu_info *rt_vcpu_info(void);

/* Map shared_info, register the callback, bind and unmask VIRQ_TIMER.
 * Reports a FAIL line (and returns false) for the step that went wrong. */
bool rt_events_init(const struct start_info *si);

/* Bind and unmask VIRQ_TIMER for the vCPU this runs on (rt_events_init
 * does it for vCPU 0, guests/rt/smp.c for the others). */
bool rt_events_cpu_init(void);

long rt_evtchn_op(unsigned cmd, void *arg);
long rt_evtchn_send(uint32_t port);
long rt_evtchn_unmask(uint32_t port);
/* A port for `remote` to bind (EVTCHNOP_alloc_unbound, dom DOMID_SELF). */
long rt_evtchn_alloc_unbound(domid_t remote, uint32_t *port);

/* The port this vCPU's VIRQ_TIMER is bound to. */
uint32_t rt_timer_port(void);

/* True (and cleared) if `port` fired since the last look. */
bool rt_event_take(uint32_t port);

/* System time from vcpu_info's pvclock. */
uint64_t rt_now_ns(void);

/* Wait until cond(arg) holds or `ms` pass; true if it held. cond runs with
 * events off; the guest sleeps in SCHEDOP_block between looks. */
bool rt_wait(bool (*cond)(void *), void *arg, uint64_t ms);

/* Sleep `ms` (or until an event). */
void rt_nap(uint64_t ms);

/* For a guest that has just broken a rule perch stops guests for: wait
 * 5 s to be stopped (napping on the timer), then FAIL guest/name. */
void test_expect_stop(const char *name);

#endif
