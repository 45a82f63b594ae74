/*
 * The xenbus half of a split device, on top of the xenstore client
 * (xs.h): numbers read from a directory, keys written into one, and
 * waiting for the other end's state node (a watch on it wakes the wait).
 */
#ifndef PERCH_RT_XENBUS_H
#define PERCH_RT_XENBUS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/xen.h"
#include "lib.h"

/* What every front end needs first: events, the xenstore client and a
 * grant table of one frame; a FAIL line names the step that failed. */
bool rt_xenbus_init(const struct start_info *si);

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

/* A front end's connect begins so: the back end in InitWait (its
 * features written) and *port a port for domain 0 (allocated the first
 * time), unmasked. XenbusStateInitWait, or after a FAIL line the state
 * seen or -1. */
int rt_xenbus_frontend_start(const char *be, uint32_t *port);

#endif
