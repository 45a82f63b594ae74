/*
 * The xenstore server: what xenstored is to a domU, as a library of the
 * Launcher with no thread of its own. The caller hands it the guest's
 * xenstore page (struct xenstore_domain_interface) whenever the guest may
 * have written a request, and after a back end changed the store;
 * xenstore_serve() answers what it can and says whether to raise the
 * guest's xenstore event channel.
 *
 * The page is guest memory, so the server keeps its own copies of the two
 * indices it owns (req_cons, rsp_prod), checks the two the guest owns at
 * every call, and copies every byte out before looking at it. A request
 * longer than req[] arrives in pieces; the server gathers it in its own
 * buffer. Replies, and watch events after them, go into rsp[] as far as
 * the guest has made room; the rest waits in a bounded queue, and while
 * that queue is full the server takes no more requests, so a guest that
 * never reads its replies costs nothing but its own stall.
 *
 * The Launcher's back ends use the same store as domain 0, with every
 * permission, and watch it through callbacks that xenstore_serve() calls
 * after the change that fired them has been committed.
 */
#ifndef PERCH_XENSTORE_H
#define PERCH_XENSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/xen/io/xs_wire.h"
#include "xenstore_tree.h"

/* Bounds: Xen's default quotas (128 watches, 10 transactions) and what
 * perch adds: the reply queue and the changes one transaction may hold. */
#define XS_WATCHES_MAX        128u
#define XS_TRANSACTIONS_MAX   10u
#define XS_TXN_CHANGES_MAX    256u
#define XS_LOCAL_WATCHES_MAX  32u
#define XS_MSG_MAX            (sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX)
#define XS_OUT_BYTES          (4 * XS_MSG_MAX)
/* A watch event carries a path of up to XENSTORE_ABS_PATH_MAX bytes and
 * the token in one payload, so tokens are at most this long. */
#define XS_TOKEN_MAX          (XENSTORE_PAYLOAD_MAX - XENSTORE_ABS_PATH_MAX - 2)

/* xenstore_serve()'s result: raise the guest's xenstore port. */
#define XENSTORE_NOTIFY 1

/* What the toolstack writes about a domU before it starts. */
struct xenstore_guest {
    uint16_t domid;            /* >= 1 */
    const char *name;
    uint64_t memory_kib;       /* memory/target and memory/static-max */
    const char *uuid;          /* NULL: no /vm/<uuid> */
};

typedef void xenstore_watch_fn(void *arg, const char *path);

struct xs_watch {
    char *path;                /* absolute, or an "@" name */
    char *token;
    bool relative;             /* events say paths relative to the domain's */
};

struct xs_local_watch {
    char *path;
    xenstore_watch_fn *fn;
    void *arg;
    bool pending;
};

/* A change a transaction made, to fire watches for once it commits. */
struct xs_change {
    char *path;
    bool removed;              /* watches below the path fire too */
    bool readable;             /* the guest could read it before */
};

struct xs_transaction {
    uint32_t id;               /* 0: the slot is free */
    uint64_t base;             /* the store's generation at the start */
    struct xs_tree tree;       /* the store as the transaction sees it */
    struct xs_change changes[XS_TXN_CHANGES_MAX];
    unsigned nchanges;
};

struct xenstore {
    struct xs_tree tree;
    uint16_t domid;
    char home[32];             /* /local/domain/<domid> */

    uint32_t req_cons;         /* ours: the guest cannot move them */
    uint32_t rsp_prod;
    uint8_t in[XS_MSG_MAX];    /* the request being gathered */
    uint32_t in_used;
    uint8_t out[XS_OUT_BYTES]; /* replies and events not yet in rsp[] */
    uint32_t out_head, out_len;

    struct xs_watch watches[XS_WATCHES_MAX];
    unsigned nwatches;
    struct xs_local_watch local[XS_LOCAL_WATCHES_MAX];
    unsigned nlocal;
    struct xs_transaction *txn[XS_TRANSACTIONS_MAX];
    uint32_t next_txn_id;

    uint32_t reserve;          /* out[] bytes events must leave free */
    bool broken;
    char broken_why[128];
    uint64_t events_dropped;   /* watch events the full queue turned away */
};

/* The store a domU finds at boot (heap-allocated: the struct is large):
 * /local/domain/<id> with name, domid, vm, memory/, control/ (shutdown,
 * sysrq and feature-* the guest's), device/, data/ and the other nodes
 * the guest owns, /local/domain/0/name "Domain-0", and /vm/<uuid>.
 * Returns 0 or an errno. */
int xenstore_init(struct xenstore *xs, const struct xenstore_guest *g);
void xenstore_free(struct xenstore *xs);

/* Before a saved state takes the guest's place (xenstore_load()): the
 * guest's watches and transactions go, and every back end's watch is
 * marked pending, so that it looks at the new tree at the next
 * xenstore_serve(). The tree and the ring's fields are the caller's to
 * replace. */
void xenstore_forget_guest(struct xenstore *xs);

/* The page as a server that reports errors finds it: features set,
 * connected, indices 0 (the guest has not run yet). */
void xenstore_ring_init(volatile struct xenstore_domain_interface *ring);

/* Take every request the guest has written, answer it, send what replies
 * and events fit, and call the back ends' watch callbacks that fired.
 * Returns XENSTORE_NOTIFY (the guest's indices moved), 0, or -1 with
 * `why` filled when the guest broke the ring (it stays broken). */
int xenstore_serve(struct xenstore *xs,
                   volatile struct xenstore_domain_interface *ring,
                   char *why, size_t why_size);

/* The back ends' store, as domain 0. Paths are absolute (or relative to
 * /local/domain/0). Each returns 0 or the errno (ENOENT, EINVAL, ENOSPC,
 * E2BIG, ENOMEM); guest watches fire at once, back-end ones at the next
 * xenstore_serve(). */
int xenstore_write(struct xenstore *xs, const char *path, const void *value,
                   size_t len);
/* Up to size - 1 bytes of the value into buf, NUL-terminated, and its
 * whole length in *len (E2BIG if it did not fit). */
int xenstore_read(struct xenstore *xs, const char *path, char *buf,
                  size_t size, size_t *len);
int xenstore_mkdir(struct xenstore *xs, const char *path);
int xenstore_rm(struct xenstore *xs, const char *path);
/* Whose the node is and what others get (XS_ACCESS_*): a back end gives
 * the guest its front-end directory, or lets it read the back end's. */
int xenstore_set_perms(struct xenstore *xs, const char *path, uint16_t owner,
                       uint8_t others);

/* Call fn(arg, path) once soon, and after every change at or below path
 * (several changes between two xenstore_serve() calls: one call; fn reads
 * what it needs). fn may use the store. ENOSPC past
 * XS_LOCAL_WATCHES_MAX. */
int xenstore_watch_local(struct xenstore *xs, const char *path,
                         xenstore_watch_fn *fn, void *arg);

/* The protocol's name of an errno ("ENOENT"), "EIO" for any other. */
const char *xenstore_error_name(int err);

#endif
