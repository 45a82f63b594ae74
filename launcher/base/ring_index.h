/*
 * The free-running 32-bit indices of the rings the Launcher shares with the
 * guest (the hvc0 console, Xen's split-driver rings): how they are read and
 * written, and the two rules every consumer checks them with.
 *
 * An index the guest owns is read once per use, with acquire ordering, so
 * the slots it covers are read only after it; one the Launcher owns is
 * kept in the Launcher and stored, with release ordering, after the slots
 * it covers. Everything else about a guest's index is checked, never
 * believed.
 */
#ifndef PERCH_RING_INDEX_H
#define PERCH_RING_INDEX_H

#include <stdbool.h>
#include <stdint.h>

static inline uint32_t ring_load_index(const volatile uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void ring_store_index(volatile uint32_t *p, uint32_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Between publishing an index and reading the other side's event index:
 * without it the other side could miss our update and we its request to
 * be told (the event-index handshake needs a store-load barrier). */
static inline void ring_full_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* A producer is sane when it is no more than `size` ahead of the oldest
 * slot still in use (wrapping arithmetic: "behind" is "far ahead"). */
static inline bool ring_span_ok(uint32_t prod, uint32_t oldest, uint32_t size)
{
    return prod - oldest <= size;
}

/* Xen's event-index rule: having moved our producer from old to new, the
 * other side wants a notification if its event index lies in (old, new]. */
static inline bool ring_event_due(uint32_t old, uint32_t new, uint32_t event)
{
    return (uint32_t)(new - event) < (uint32_t)(new - old);
}

#endif
