/* Times as nanoseconds, the unit perch keeps them in. */
#ifndef PERCH_CLOCK_H
#define PERCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t timespec_ns(struct timespec t)
{
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Clock c now. */
static inline uint64_t clock_ns(clockid_t c)
{
    struct timespec t;

    clock_gettime(c, &t);
    return timespec_ns(t);
}

#endif
