/*
 * Time (host/events/time.c): the system time the guest reads through pvclock, the
 * wallclock, the guest's single-shot timer and the vCPU's runstate; and the
 * vcpu_op and set_timer_op hypercalls (host/xen/vcpu_op.c).
 *
 * System time is nanoseconds since the vCPU's TSC read 0, computed exactly
 * from the TSC rate (time_now_ns()). The guest computes it with pvclock's
 * 32-bit multiplier, which is rounded down and so runs a little slow (at
 * most 2^-31 relative); every refresh of its vcpu_time_info
 * (time_update_guest()) brings it back to the exact value, never backwards.
 * The Host refreshes it whenever it raises VIRQ_TIMER, so the guest never
 * sees its timer fire before the deadline by its own clock.
 */
#ifndef PERCH_HOST_TIME_H
#define PERCH_HOST_TIME_H

#include "../../abi/xen/vcpu.h"
#include "../core/host.h"

/* ---- Clock ----------------------------------------------------------------- */

/* The vCPU's TSC rate; set it before time_init(). */
extern uint32_t time_tsc_khz;

/* Start afresh from time_tsc_khz (a Host stop if it is 0): the pvclock
 * scale, no timer, runstate "running" from now, and the guest's time info
 * filled in. Call it after evtchn_shared_info_mfn is set. */
void time_init(void);

/* The current vCPU's own part of that, alone: what a vCPU brought up
 * later starts with (timers off, runstate running, its time record). */
void time_vcpu_init(void);

/* pvclock's scale for `khz` (nonzero): ns = ((ticks << shift, or >> -shift)
 * * mul) >> 32, with mul in [2^31, 2^32) rounded down. */
void time_scale(uint32_t khz, uint32_t *mul, int8_t *shift);

/* System time now; 0 before time_init(). */
uint64_t time_now_ns(void);

/* Fill a pvclock record for now: version odd while it changes, even after;
 * TSC_STABLE. Does nothing before time_init(). */
void time_fill(volatile struct vcpu_time_info *t);

/* time_fill() the current vcpu_info's time. */
void time_update_guest(void);
/* The same for vCPU id's record. */
void time_update_vcpu(unsigned id);

/* shared_info's wallclock: Unix time (ns) at system time 0, i.e. when the
 * TSC read 0 (perch_shared.boot.wallclock_ns). */
void time_set_wallclock(uint64_t unix_ns_at_boot);

/* ---- Timers -------------------------------------------------------------- */

/* The guest's single-shot timer (VCPUOP_set_singleshot_timer, set_timer_op):
 * raises VIRQ_TIMER at `deadline_ns`; at once if that is not in the future. */
void time_set_guest_timer(uint64_t deadline_ns);
void time_stop_guest_timer(void);
bool time_guest_timer_armed(void);

/* A wake-up for the Host itself (SCHEDOP_poll's timeout): the device fires
 * by then, raising nothing. */
void time_wake_at(uint64_t deadline_ns);
void time_wake_cancel(void);

/* The timer device fired: raise VIRQ_TIMER if the guest's deadline has
 * come, and arm the device for what remains. Called by the interrupt path,
 * whatever it interrupted: if that was this file's own work (a refresh, a
 * re-arming), the firing waits until that work is done. */
void time_timer_fired(void);

/* ---- Runstate ------------------------------------------------------------ */

/* The vCPU enters RUNSTATE_*: account the time of the old state and copy
 * the whole record to the guest's registered area, if any. */
void time_runstate_enter(int state);
/* The time KVM says this vCPU's thread waited for a host CPU since the
 * last look becomes runnable time, and the record is copied out if it
 * changed (each firing of the timer does this). */
void time_runstate_steal(void);

/* Where the guest wants vCPU v's runstate (a guest VA; 0: nowhere).
 * Copies the record there now: -XEN_EFAULT if it cannot. */
struct vcpu;
long time_runstate_register(struct vcpu *v, uint64_t va);

/* v's record with the current state's time counted up to now. */
void time_runstate_get(const struct vcpu *v, struct vcpu_runstate_info *out);

/* ---- Hypercalls (host/xen/vcpu_op.c) ---------------------------------------- */

long do_vcpu_op(uint64_t cmd, uint64_t vcpuid, uint64_t arg, uint64_t, uint64_t);
long do_set_timer_op(uint64_t deadline, uint64_t, uint64_t, uint64_t, uint64_t);

#endif
