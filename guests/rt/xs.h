/*
 * A xenstore client on the ring start_info names (store_mfn,
 * store_evtchn), as Linux's xenbus speaks it: a request written into
 * req[] as room appears, the event channel, the reply read out of rsp[]
 * as it arrives; watch events in between are counted and skipped.
 *
 * Each call returns NULL on success or the error's name: the server's
 * ("ENOENT", "E2BIG", ...) or the client's ("timeout", "ring").
 */
#ifndef PERCH_RT_XS_H
#define PERCH_RT_XS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/io/xs_wire.h"

extern volatile struct xenstore_domain_interface *rt_xs_ring;
extern uint32_t rt_xs_port;
extern volatile unsigned rt_xs_watch_events;   /* XS_WATCH_EVENTs seen */

/* Find the page, unmask the port; needs rt_events_init() first. */
bool rt_xs_init(const struct start_info *si);

/* One request and its reply (NUL-terminated in reply, *reply_len bytes
 * before the NUL; reply may be NULL). */
const char *rt_xs_request(uint32_t type, const void *payload, uint32_t len,
                          char *reply, uint32_t size, uint32_t *reply_len);

const char *rt_xs_read(const char *path, char *buf, uint32_t size);
const char *rt_xs_write(const char *path, const char *value);
const char *rt_xs_watch(const char *path, const char *token);

/* Read what the server sends unasked (watch events) for up to `ms`;
 * true if a watch event came. */
bool rt_xs_wait_event(uint64_t ms);

/* Raw bytes into req[] and the event, for the hostile cases. */
bool rt_xs_send_raw(const void *bytes, uint32_t n);

#endif
