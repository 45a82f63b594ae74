/*
 * The xenstore server's state as bytes and back, for `perch save` and
 * `perch restore` (the layout: xenstore_save.c's top and docs/snapshot.md).
 *
 * What is saved is the store as the guest sees it: the tree (every node's
 * path, value, owner, permissions and generation) and the tree's
 * generation, the guest's watches, the ring indices the server owns
 * (req_cons, rsp_prod), the request half gathered, the replies and events
 * queued for rsp[], the next transaction id and the count of dropped
 * events. Not saved: the back ends' watches (callbacks of the Launcher
 * that restores, which registers its own), and the xenstore page itself,
 * which is guest memory and restored with it.
 *
 * A store with an open transaction is not saved (errno EBUSY: its copy of
 * the tree would have to go too; let the guest run until it commits), nor
 * a broken one (EIO: the guest has lost its store already).
 */
#ifndef PERCH_XENSTORE_SAVE_H
#define PERCH_XENSTORE_SAVE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "xenstore.h"

/* Nodes a saved tree may hold: the guest's quota and room for far more
 * than the Launcher's back ends make. */
#define XS_SAVE_NODES_MAX (XS_GUEST_NODES_MAX + 4096u)

/* The state into a malloc'd buffer (*out, *len): 0, or -1 with errno
 * (EBUSY, EIO, ENOMEM) and one line in e. */
int xenstore_save(const struct xenstore *xs, uint8_t **out, size_t *len,
                  struct error *e);

/* Replace xs's state with a saved one. xs is an initialised store
 * (xenstore_init()) for the same domain; the back ends' watches it has
 * are kept, and each is marked pending so that it looks at the restored
 * tree at the next xenstore_serve(). Every field is checked before xs
 * changes: on any problem, -1 with one line in e, and xs as it was. */
int xenstore_load(struct xenstore *xs, const uint8_t *buf, size_t len,
                  struct error *e);

#endif
