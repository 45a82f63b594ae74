/*
 * The Host lock: with several vCPUs, one at a time runs the Host's logic.
 *
 * The rule every file of host/ relies on: state the vCPUs share (the frame
 * table and page types of mm.c, the M2P, the grant table, event-channel
 * bindings and bits, the console ring, the back-end lines, the patch
 * table, the statistics in perch_shared) is read and written with the
 * Host lock held. A vCPU's own state (its struct vcpu, its IST pages and
 * Host stacks, its local APIC) is its own; another vCPU changes it only
 * with the lock held, and only fields its owner also reads under the
 * lock. The exceptions, each word accessed atomically: in_guest, set and
 * cleared by its vCPU alone, read by any (host/mm/tlb.c's shootdowns);
 * must_serialize (host_sync_others); idle_spinning and wake_seq, which a
 * vCPU watches while it spins before sleeping, the lock let go
 * (host/events/evtchn.c).
 *
 * Every entry into the Host's C code takes the lock (host_enter) and every
 * way out lets it go (host_leave). An interrupt may enter the Host on top
 * of a hypercall of the same vCPU, which then already holds the lock, or
 * spins for it: each entry takes it only if its vCPU does not hold it, and
 * its way out lets go only what it took (a bit per level: nested entries
 * leave in the opposite order). The lock is let go while a vCPU sleeps
 * (host_sleep_until) or is stopped for gdb, and kept across an exit to the
 * Launcher otherwise, which therefore serves one request at a time. With one vCPU there is nothing to lock.
 */
#ifndef PERCH_HOST_LOCK_H
#define PERCH_HOST_LOCK_H

#include <stdbool.h>
#include <stdint.h>

/* At every entry: the vCPU left the guest (or the Host it interrupted)
 * and holds the lock when this returns. */
void host_enter(void);

/* On every way out: to the guest (its TLB may from now on hold what
 * host/mm/tlb.c must shoot down) or back into the Host code the entry
 * interrupted. */
void host_leave(bool to_guest);

/* Each vCPU of mask (bit i: vCPU i) that runs guest code is sent an IPI
 * and waited for until it has left the guest; others are not waited for.
 * With the lock held: what they must do on their way back is set first. */
void host_kick_out_of_guest(uint64_t mask);

/* Kernel text was rewritten: every other vCPU executes a serializing
 * instruction before it runs guest code again (Linux's sync_core of
 * text_poke_bp). One in the guest is kicked out of it (the interrupt
 * serializes); one in the Host serializes on its way out. */
void host_sync_others(void);

/* In an entry that interrupted Host code: does that code hold the lock
 * (with one vCPU: always taken as yes)? */
bool host_holds_lock_below(void);

/* Around a wait (a sleep, or a stop for gdb that lasts while the others
 * reach theirs): the lock let go if this vCPU holds it, whether it did
 * (host_lock_let_go), and taken again after if so (host_lock_take_back). */
bool host_lock_let_go(void);
void host_lock_take_back(bool held);

/* Sleep (env_idle) until done(arg), which is asked first and after every
 * interrupt, with the lock let go while asleep. */
void host_sleep_until(bool (*done)(void *arg), void *arg);

#endif
