/*
 * The xenbus half of a split device, on top of the xenstore client
 * (xs.h): numbers read from a directory, keys written into one, and
 * waiting for the other end's state node (a watch on it wakes the wait).
 */
#ifndef PERCH_RT_XENBUS_H
#define PERCH_RT_XENBUS_H

#include <stdint.h>

#include "lib.h"

/* dir/key as a decimal number; `dflt` if it is absent or not one. */
uint64_t rt_xenbus_read_u64(const char *dir, const char *key, uint64_t dflt);

/* dir/key = the formatted value; NULL or the error's name. */
const char *rt_xenbus_printf(const char *dir, const char *key, const char *fmt, ...)
    RT_PRINTF(3, 4);

/* dir/state, 0 if unreadable. */
int rt_xenbus_state(const char *dir);

/* Until dir/state is want_a or want_b or `ms` pass; the state last seen.
 * The caller watches dir/state so that each change ends a nap early. */
int rt_xenbus_wait_state(const char *dir, int want_a, int want_b, uint64_t ms);

#endif
