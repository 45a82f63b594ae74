/* The Host lock and each vCPU's in_guest (see host_lock.h). */
#include "host_lock.h"

#include "env.h"
#include "stats.h"
#include "vcpu.h"

/* Which vCPU holds the lock: its id + 1, or 0. */
static volatile unsigned holder;

/* For --stats' per-vCPU lines: when it had to wait, how often and for
 * how long, and how long it held the lock (in the TSC's cycles). */
static void spin_for_lock(unsigned me)
{
    unsigned free = 0;
    uint64_t since;

    if (__atomic_compare_exchange_n(&holder, &free, me + 1, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        current->lock_taken_at = env_rdtsc();
        return;
    }
    since = env_rdtsc();
    do {
        free = 0;
        __builtin_ia32_pause();
    } while (!__atomic_compare_exchange_n(&holder, &free, me + 1, false,
                                          __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
    current->lock_taken_at = env_rdtsc();
    vcpu_stats()->lock_waits++;
    vcpu_stats()->lock_wait_cycles += current->lock_taken_at - since;
}

static void release_lock(void)
{
    vcpu_stats()->lock_held_cycles += env_rdtsc() - current->lock_taken_at;
    __atomic_store_n(&holder, 0, __ATOMIC_RELEASE);
}

/*
 * lock_levels is a stack of bits, one per Host entry in progress on this
 * vCPU: 1 where that entry took the lock; guest_levels beside it holds the
 * in_guest each entry found. An interrupt between any two steps here
 * pushes and pops its own bits before the steps go on, so the words are
 * the same when they do.
 */
void host_enter(void)
{
    struct vcpu *me = current;
    bool took, was_in_guest;

    was_in_guest = __atomic_exchange_n(&me->in_guest, false, __ATOMIC_SEQ_CST);
    if (host_nr_vcpus == 1)
        return;
    took = holder != me->id + 1;
    if (took)
        spin_for_lock(me->id);
    me->lock_levels = me->lock_levels << 1 | took;
    me->guest_levels = me->guest_levels << 1 | was_in_guest;
}

bool host_holds_lock_below(void)
{
    return host_nr_vcpus == 1 || (current->lock_levels >> 1) != 0;
}

/*
 * Back into the Host code it interrupted, an entry gives back the in_guest
 * it found: an interrupt may come after the way out set it and let the
 * lock go, and that code goes on into the guest with no further look at
 * what it owes. Left false, it would run guest code while every other
 * vCPU's shootdown took it for out of the guest and neither interrupted
 * it nor waited: a stale TLB entry used after the kernel freed its page.
 */
void host_leave(bool to_guest)
{
    struct vcpu *me = current;
    bool took, was_in_guest;

    if (host_nr_vcpus == 1)
        return;
    took = me->lock_levels & 1;
    me->lock_levels >>= 1;
    was_in_guest = me->guest_levels & 1;
    me->guest_levels >>= 1;
    if (__atomic_exchange_n(&me->must_serialize, false, __ATOMIC_SEQ_CST))
        env_serialize();
    if (to_guest || was_in_guest)
        __atomic_store_n(&me->in_guest, true, __ATOMIC_SEQ_CST);
    if (took)
        release_lock();
}

bool host_lock_let_go(void)
{
    bool held = host_nr_vcpus > 1 && holder == current->id + 1;

    if (held)
        release_lock();
    return held;
}

void host_lock_take_back(bool held)
{
    if (held)
        spin_for_lock(current->id);
}

/* The wake slot is cleared before each look at done(): an interrupt
 * after the look makes the HALT gate return at once (switcher.S). */
void host_sleep_until(bool (*done)(void *arg), void *arg)
{
    for (;;) {
        bool held;
        uint64_t since;

        env_wake_clear();
        if (done(arg))
            return;
        held = host_lock_let_go();
        since = env_rdtsc();
        env_idle();
        vcpu_stats()->asleep_cycles += env_rdtsc() - since;
        host_lock_take_back(held);
    }
}

void host_kick_out_of_guest(uint64_t mask)
{
    uint64_t waiting = 0;

    for (unsigned i = 0; i < host_nr_vcpus; i++)
        if ((mask >> i & 1) && __atomic_load_n(&vcpu_of(i)->in_guest, __ATOMIC_SEQ_CST)) {
            env_send_ipi(i, PERCH_IPI_VECTOR);
            waiting |= 1ull << i;
        }
    while (waiting) {
        for (unsigned i = 0; i < host_nr_vcpus; i++)
            if ((waiting >> i & 1) &&
                !__atomic_load_n(&vcpu_of(i)->in_guest, __ATOMIC_SEQ_CST))
                waiting &= ~(1ull << i);
        __builtin_ia32_pause();
    }
}

void host_sync_others(void)
{
    uint64_t others = 0;

    for (unsigned i = 0; i < host_nr_vcpus; i++)
        if (i != current->id) {
            __atomic_store_n(&vcpu_of(i)->must_serialize, true, __ATOMIC_SEQ_CST);
            others |= 1ull << i;
        }
    host_kick_out_of_guest(others);
}
