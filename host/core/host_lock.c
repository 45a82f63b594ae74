/* The Host lock and each vCPU's in_guest (see host_lock.h). */
#include "host_lock.h"

#include "env.h"
#include "stats.h"
#include "vcpu.h"

/* Which vCPU holds the lock: its id + 1, or 0. */
static volatile unsigned holder;

/* Counted when it had to wait: how often, and for how long (in the TSC's
 * cycles), for --stats' per-vCPU lines. */
static void spin_for_lock(unsigned me)
{
    unsigned free = 0;
    uint64_t since;

    if (__atomic_compare_exchange_n(&holder, &free, me + 1, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    since = env_rdtsc();
    do {
        free = 0;
        __builtin_ia32_pause();
    } while (!__atomic_compare_exchange_n(&holder, &free, me + 1, false,
                                          __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
    vcpu_stats()->lock_waits++;
    vcpu_stats()->lock_wait_cycles += env_rdtsc() - since;
}

/*
 * lock_levels is a stack of bits, one per Host entry in progress on this
 * vCPU: 1 where that entry took the lock. An interrupt between any two
 * steps here pushes and pops its own bit before the steps go on, so the
 * word is the same when they do.
 */
void host_enter(void)
{
    struct vcpu *me = current;
    bool took;

    __atomic_store_n(&me->in_guest, false, __ATOMIC_SEQ_CST);
    if (host_nr_vcpus == 1)
        return;
    took = holder != me->id + 1;
    if (took)
        spin_for_lock(me->id);
    me->lock_levels = me->lock_levels << 1 | took;
}

bool host_holds_lock_below(void)
{
    return host_nr_vcpus == 1 || (current->lock_levels >> 1) != 0;
}

void host_leave(bool to_guest)
{
    struct vcpu *me = current;
    bool took;

    if (host_nr_vcpus == 1)
        return;
    took = me->lock_levels & 1;
    me->lock_levels >>= 1;
    if (to_guest)
        __atomic_store_n(&me->in_guest, true, __ATOMIC_SEQ_CST);
    if (took)
        __atomic_store_n(&holder, 0, __ATOMIC_RELEASE);
}

/* The wake slot is cleared before each look at done(): an interrupt
 * after the look makes the HALT gate return at once (switcher.S). */
void host_sleep_until(bool (*done)(void *arg), void *arg)
{
    struct vcpu *me = current;
    bool held = host_nr_vcpus > 1 && holder == me->id + 1;

    for (;;) {
        env_wake_clear();
        if (done(arg))
            return;
        if (held)
            __atomic_store_n(&holder, 0, __ATOMIC_RELEASE);
        env_idle();
        if (held)
            spin_for_lock(me->id);
    }
}
