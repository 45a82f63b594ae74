/* The xenstore server: the guest's ring, its requests, transactions and watches (see xenstore.h). */
#include "xenstore.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A request is taken only when its reply and one event (XS_WATCH's
 * first) are sure to fit in out[]. */
#define XS_TAKE_ROOM (2 * XS_MSG_MAX)
/* Back-end callbacks that keep firing each other wait for the next call
 * after this many rounds. */
#define XS_LOCAL_ROUNDS 8

typedef char xs_path[XENSTORE_ABS_PATH_MAX + 1];

struct xs_req {
    struct xsd_sockmsg h;
    const char *p;             /* the payload, in xs->in */
    uint32_t len;
};

const char *xenstore_error_name(int err)
{
    switch (err) {
#define XS_ERROR_CASE(e) case e: return #e;
    XSD_ERROR_NAMES(XS_ERROR_CASE)
#undef XS_ERROR_CASE
    }
    return "EIO";
}

/* --- The queue of what goes to rsp[] --------------------------------------- */

static uint32_t out_room(const struct xenstore *xs)
{
    return XS_OUT_BYTES - xs->out_len;
}

static void out_put(struct xenstore *xs, const void *bytes, uint32_t n)
{
    const uint8_t *b = bytes;

    for (uint32_t i = 0; i < n; i++)
        xs->out[(xs->out_head + xs->out_len + i) % XS_OUT_BYTES] = b[i];
    xs->out_len += n;
}

/* One message, if it fits with `keep` bytes to spare. */
static bool queue_msg(struct xenstore *xs, uint32_t keep, uint32_t type,
                      uint32_t req_id, uint32_t tx_id, const void *payload,
                      uint32_t len)
{
    struct xsd_sockmsg h = { type, req_id, tx_id, len };

    if (out_room(xs) < sizeof(h) + len + keep)
        return false;
    out_put(xs, &h, sizeof(h));
    out_put(xs, payload, len);
    return true;
}

/* Replies always fit: a request is taken only with room for them. */
static void reply(struct xenstore *xs, const struct xs_req *r, uint32_t type,
                  const void *payload, uint32_t len)
{
    queue_msg(xs, 0, type, r->h.req_id, r->h.tx_id, payload, len);
}

static void reply_ok(struct xenstore *xs, const struct xs_req *r)
{
    reply(xs, r, r->h.type, "OK", 3);
}

static void reply_error(struct xenstore *xs, const struct xs_req *r, int err)
{
    const char *name = xenstore_error_name(err);

    reply(xs, r, XS_ERROR, name, strlen(name) + 1);
}

/* --- Watches ---------------------------------------------------------------- */

/* Is path at or below top? */
static bool is_under(const char *path, const char *top)
{
    size_t n = strlen(top);

    if (strcmp(top, "/") == 0)
        return true;
    return strncmp(path, top, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/*
 * An event the queue has no room for is dropped and counted: the guest
 * that does not read its ring, or sets up a storm of watches, must not
 * make the Launcher's memory grow. Watches promise "something changed
 * here at least once", and a guest that reads its ring gets every event.
 */
static void queue_event(struct xenstore *xs, const struct xs_watch *w,
                        const char *path)
{
    char payload[XENSTORE_PAYLOAD_MAX];
    size_t plen, tlen = strlen(w->token);

    if (w->relative && is_under(path, xs->home)) {
        path += strlen(xs->home);
        if (*path == '/')
            path++;
    }
    plen = strlen(path);
    /* watch_guest() bounded the token so that any path fits */
    memcpy(payload, path, plen + 1);
    memcpy(payload + plen + 1, w->token, tlen + 1);
    if (!queue_msg(xs, xs->reserve, XS_WATCH_EVENT, 0, 0, payload,
                   plen + tlen + 2))
        xs->events_dropped++;
}

/* A change at path: every watch at or above it fires, and, for a removal,
 * every watch below it too (with its own path: what it watched is gone).
 * The guest hears only of paths it may read, or, for a removal, of a
 * subtree it could read before. */
static void fire(struct xenstore *xs, const char *path, bool removed,
                 bool readable)
{
    for (unsigned i = 0; i < xs->nwatches; i++) {
        const struct xs_watch *w = &xs->watches[i];
        const char *at = is_under(path, w->path) ? path
                       : removed && is_under(w->path, path) ? w->path : NULL;

        if (at && (readable || xs_tree_may_read(&xs->tree, xs->domid, at)))
            queue_event(xs, w, at);
    }
    for (unsigned i = 0; i < xs->nlocal; i++) {
        struct xs_local_watch *l = &xs->local[i];

        if (is_under(path, l->path) || (removed && is_under(l->path, path)))
            l->pending = true;
    }
}

static void run_local_watches(struct xenstore *xs)
{
    for (int round = 0; round < XS_LOCAL_ROUNDS; round++) {
        bool any = false;

        /* by index: a callback may add watches */
        for (unsigned i = 0; i < xs->nlocal; i++) {
            if (!xs->local[i].pending)
                continue;
            xs->local[i].pending = false;
            any = true;
            xs->local[i].fn(xs->local[i].arg, xs->local[i].path);
        }
        if (!any)
            return;
    }
}

/* --- Transactions ------------------------------------------------------------- */

static struct xs_transaction *find_txn(struct xenstore *xs, uint32_t id)
{
    for (unsigned i = 0; id && i < XS_TRANSACTIONS_MAX; i++)
        if (xs->txn[i] && xs->txn[i]->id == id)
            return xs->txn[i];
    return NULL;
}

static void end_txn(struct xenstore *xs, struct xs_transaction *t)
{
    for (unsigned i = 0; i < XS_TRANSACTIONS_MAX; i++)
        if (xs->txn[i] == t)
            xs->txn[i] = NULL;
    for (unsigned i = 0; i < t->nchanges; i++)
        free(t->changes[i].path);
    xs_tree_free(&t->tree);
    free(t);
}

static int start_txn(struct xenstore *xs, uint32_t *id)
{
    unsigned slot = 0;
    struct xs_transaction *t;

    while (slot < XS_TRANSACTIONS_MAX && xs->txn[slot])
        slot++;
    if (slot == XS_TRANSACTIONS_MAX)
        return ENOSPC;
    t = calloc(1, sizeof(*t));
    if (!t)
        return ENOMEM;
    if (xs_tree_copy(&t->tree, &xs->tree)) {
        free(t);
        return ENOMEM;
    }
    do
        t->id = ++xs->next_txn_id;
    while (t->id == 0 || find_txn(xs, t->id));
    t->base = xs->tree.generation;
    xs->txn[slot] = t;
    *id = t->id;
    return 0;
}

/* Commit: the copy becomes the store, unless the store changed since the
 * start (EAGAIN: the guest runs it again). Coarser than Xen, which looks
 * at the nodes the transaction used, but the same contract. */
static int commit_txn(struct xenstore *xs, struct xs_transaction *t)
{
    struct xs_tree old = xs->tree;

    if (xs->tree.generation != t->base)
        return EAGAIN;
    xs->tree = t->tree;
    t->tree = old;
    return 0;
}

/* --- Changes, in a transaction or not ----------------------------------------- */

enum change_op { OP_WRITE, OP_MKDIR, OP_RM };

/* Apply one change as dom; outside a transaction fire its watches, inside
 * one keep it for the commit (ENOSPC past XS_TXN_CHANGES_MAX). */
static int change(struct xenstore *xs, struct xs_transaction *txn,
                  uint16_t dom, enum change_op op, const char *path,
                  const void *value, uint32_t len)
{
    struct xs_tree *t = txn ? &txn->tree : &xs->tree;
    uint64_t before = t->generation;
    bool readable = op == OP_RM && xs_tree_may_read(t, xs->domid, path);
    char *copy = NULL;
    int rc;

    if (txn && txn->nchanges == XS_TXN_CHANGES_MAX)
        return ENOSPC;
    if (txn && !(copy = strdup(path)))
        return ENOMEM;
    rc = op == OP_WRITE ? xs_tree_write(t, dom, path, value, len)
       : op == OP_MKDIR ? xs_tree_mkdir(t, dom, path)
       : xs_tree_rm(t, dom, path);
    if (rc || t->generation == before) {
        free(copy);
        return rc;
    }
    if (txn)
        txn->changes[txn->nchanges++] = (struct xs_change){ copy, op == OP_RM, readable };
    else
        fire(xs, path, op == OP_RM, readable);
    return 0;
}

/* --- The guest's requests ------------------------------------------------------- */

/* The payload as exactly one string. */
static const char *one_arg(const struct xs_req *r)
{
    if (r->len == 0 || memchr(r->p, '\0', r->len) != r->p + r->len - 1)
        return NULL;
    return r->p;
}

/* The payload as exactly two strings. */
static bool two_args(const struct xs_req *r, const char **a, const char **b)
{
    const char *nul = r->len ? memchr(r->p, '\0', r->len) : NULL;

    if (!nul || nul == r->p + r->len - 1)
        return false;
    *a = r->p;
    *b = nul + 1;
    return memchr(*b, '\0', r->p + r->len - *b) == r->p + r->len - 1;
}

/* The tree a request works on, its transaction's or the store. */
static struct xs_tree *tree_of(struct xenstore *xs, struct xs_transaction *t)
{
    return t ? &t->tree : &xs->tree;
}

static int do_read(struct xenstore *xs, const struct xs_req *r,
                   struct xs_transaction *t)
{
    const char *arg = one_arg(r);
    const uint8_t *value;
    uint32_t len;
    xs_path path;
    int rc;

    if (!arg || (rc = xs_path_canonical(path, arg, xs->domid)))
        return EINVAL;
    if ((rc = xs_tree_read(tree_of(xs, t), xs->domid, path, &value, &len)))
        return rc;
    reply(xs, r, XS_READ, value, len);
    return 0;
}

static int do_directory(struct xenstore *xs, const struct xs_req *r,
                        struct xs_transaction *t)
{
    const char *arg = one_arg(r);
    char names[XENSTORE_PAYLOAD_MAX];
    uint32_t total;
    uint64_t gen;
    xs_path path;
    int rc;

    if (!arg || xs_path_canonical(path, arg, xs->domid))
        return EINVAL;
    rc = xs_tree_children(tree_of(xs, t), xs->domid, path, 0, names,
                          sizeof(names), &total, &gen);
    if (rc)
        return rc;
    if (total > sizeof(names))
        return E2BIG;          /* the guest asks in parts instead */
    reply(xs, r, XS_DIRECTORY, names, total);
    return 0;
}

/* DIRECTORY_PART: the node's generation, then whole names from the given
 * offset into the list, and an empty name once the list is complete. */
static int do_directory_part(struct xenstore *xs, const struct xs_req *r,
                             struct xs_transaction *t)
{
    char out[XENSTORE_PAYLOAD_MAX];
    const char *arg, *offset;
    uint32_t total, chunk, max, off;
    uint64_t gen;
    xs_path path;
    char *end;
    int glen, rc;

    if (!two_args(r, &arg, &offset) || xs_path_canonical(path, arg, xs->domid))
        return EINVAL;
    off = (uint32_t)strtoul(offset, &end, 10);
    if (*end || end == offset)
        return EINVAL;
    rc = xs_tree_children(tree_of(xs, t), xs->domid, path, 0, out, 0, &total, &gen);
    if (rc)
        return rc;
    glen = snprintf(out, sizeof(out), "%" PRIu64, gen) + 1;
    max = sizeof(out) - glen - 1;
    chunk = off < total ? total - off : 0;
    if (chunk > max)
        chunk = max;
    xs_tree_children(tree_of(xs, t), xs->domid, path, off, out + glen, chunk,
                     &total, &gen);
    if (off + chunk >= total) {
        out[glen + chunk] = '\0';
        chunk++;
    } else {
        while (chunk && out[glen + chunk - 1] != '\0')
            chunk--;           /* whole names only */
        if (!chunk)
            return E2BIG;
    }
    reply(xs, r, XS_DIRECTORY_PART, out, glen + chunk);
    return 0;
}

/* Permissions as Xen writes them: the owner's entry (with what everybody
 * else gets), then the guest's own if it is not the owner. */
static int do_get_perms(struct xenstore *xs, const struct xs_req *r,
                        struct xs_transaction *t)
{
    static const char letter[] = "nrwb";
    const char *arg = one_arg(r);
    char out[32];
    uint16_t owner;
    uint8_t others;
    xs_path path;
    int n, rc;

    if (!arg || xs_path_canonical(path, arg, xs->domid))
        return EINVAL;
    rc = xs_tree_get_perms(tree_of(xs, t), xs->domid, path, &owner, &others);
    if (rc)
        return rc;
    n = snprintf(out, sizeof(out), "n%u", owner) + 1;
    if (owner != xs->domid && others)
        n += snprintf(out + n, sizeof(out) - n, "%c%u", letter[others], xs->domid) + 1;
    reply(xs, r, XS_GET_PERMS, out, n);
    return 0;
}

static int do_change(struct xenstore *xs, const struct xs_req *r,
                     struct xs_transaction *t, enum change_op op)
{
    const char *arg = op == OP_WRITE ? r->p : one_arg(r);
    const char *nul = r->len ? memchr(r->p, '\0', r->len) : NULL;
    xs_path path;
    int rc;

    if (!arg || !nul || xs_path_canonical(path, arg, xs->domid))
        return EINVAL;
    rc = change(xs, t, xs->domid, op, path, nul + 1,
                r->p + r->len - (nul + 1));
    if (!rc)
        reply_ok(xs, r);
    return rc;
}

/* A watch's path: an "@" name as it is, or a node's absolute path. */
static int watch_path(struct xenstore *xs, const char *arg, char *path)
{
    if (arg[0] == '@') {
        if (strlen(arg) > XENSTORE_REL_PATH_MAX)
            return EINVAL;
        strcpy(path, arg);
        return 0;
    }
    return xs_path_canonical(path, arg, xs->domid);
}

static int find_watch(const struct xenstore *xs, const char *path,
                      const char *token)
{
    for (unsigned i = 0; i < xs->nwatches; i++)
        if (!strcmp(xs->watches[i].path, path) &&
            !strcmp(xs->watches[i].token, token))
            return (int)i;
    return -1;
}

/* WATCH: replied to, then fired once at once, as xenstored does. */
static int do_watch(struct xenstore *xs, const struct xs_req *r)
{
    const char *arg, *token;
    struct xs_watch *w;
    xs_path path;

    if (!two_args(r, &arg, &token) || watch_path(xs, arg, path) ||
        strlen(token) > XS_TOKEN_MAX)
        return EINVAL;
    if (find_watch(xs, path, token) >= 0)
        return EEXIST;
    if (xs->nwatches == XS_WATCHES_MAX)
        return E2BIG;
    w = &xs->watches[xs->nwatches];
    w->path = strdup(path);
    w->token = strdup(token);
    if (!w->path || !w->token) {
        free(w->path);
        free(w->token);
        return ENOMEM;
    }
    w->relative = arg[0] != '/' && arg[0] != '@';
    xs->nwatches++;
    reply_ok(xs, r);
    xs->reserve = 0;
    queue_event(xs, w, w->path);
    return 0;
}

static void drop_watch(struct xenstore *xs, unsigned i)
{
    free(xs->watches[i].path);
    free(xs->watches[i].token);
    memmove(&xs->watches[i], &xs->watches[i + 1],
            (xs->nwatches - i - 1) * sizeof(xs->watches[0]));
    xs->nwatches--;
}

static int do_unwatch(struct xenstore *xs, const struct xs_req *r)
{
    const char *arg, *token;
    xs_path path;
    int i;

    if (!two_args(r, &arg, &token) || watch_path(xs, arg, path))
        return EINVAL;
    if ((i = find_watch(xs, path, token)) < 0)
        return ENOENT;
    drop_watch(xs, (unsigned)i);
    reply_ok(xs, r);
    return 0;
}

/* Every watch and every transaction of the guest goes. */
static void drop_guest(struct xenstore *xs)
{
    while (xs->nwatches)
        drop_watch(xs, xs->nwatches - 1);
    for (unsigned i = 0; i < XS_TRANSACTIONS_MAX; i++)
        if (xs->txn[i])
            end_txn(xs, xs->txn[i]);
}

static int do_reset_watches(struct xenstore *xs, const struct xs_req *r)
{
    drop_guest(xs);
    reply_ok(xs, r);
    return 0;
}

static int do_transaction_start(struct xenstore *xs, const struct xs_req *r,
                                struct xs_transaction *t)
{
    char out[16];
    uint32_t id;
    int rc;

    if (t)
        return EBUSY;          /* no nesting */
    if ((rc = start_txn(xs, &id)))
        return rc;
    reply(xs, r, XS_TRANSACTION_START, out,
          snprintf(out, sizeof(out), "%u", id) + 1);
    return 0;
}

static int do_transaction_end(struct xenstore *xs, const struct xs_req *r,
                              struct xs_transaction *t)
{
    const char *arg = one_arg(r);
    int rc = 0;

    if (!t)
        return ENOENT;
    if (!arg || (strcmp(arg, "T") && strcmp(arg, "F")))
        return EINVAL;
    if (arg[0] == 'T' && (rc = commit_txn(xs, t))) {
        end_txn(xs, t);
        return rc;
    }
    reply_ok(xs, r);
    if (arg[0] == 'T')
        for (unsigned i = 0; i < t->nchanges; i++)
            fire(xs, t->changes[i].path, t->changes[i].removed,
                 t->changes[i].readable);
    end_txn(xs, t);
    return 0;
}

static int do_get_domain_path(struct xenstore *xs, const struct xs_req *r)
{
    const char *arg = one_arg(r);
    char out[32];
    unsigned long id;
    char *end;

    if (!arg || arg[0] < '0' || arg[0] > '9')
        return EINVAL;
    id = strtoul(arg, &end, 10);
    if (*end || id > UINT16_MAX)
        return EINVAL;
    reply(xs, r, XS_GET_DOMAIN_PATH, out,
          snprintf(out, sizeof(out), "/local/domain/%lu", id) + 1);
    return 0;
}

/* One request: its reply (and events) queued. What a domU may not do
 * (the toolstack's messages) is EACCES, what nobody may, ENOSYS, as
 * xenstored says. Every message but the watch ones names a transaction
 * or 0; an unknown one is ENOENT. */
static void handle(struct xenstore *xs, const struct xs_req *r)
{
    struct xs_transaction *t = NULL;
    int rc;

    xs->reserve = XS_MSG_MAX;  /* events leave the reply its room */
    switch (r->h.type) {
    case XS_CONTROL: case XS_INTRODUCE: case XS_RELEASE:
    case XS_IS_DOMAIN_INTRODUCED: case XS_RESUME: case XS_SET_TARGET:
        rc = EACCES;
        goto out;
    case XS_WATCH:
        rc = do_watch(xs, r);
        goto out;
    case XS_UNWATCH:
        rc = do_unwatch(xs, r);
        goto out;
    }
    if (r->h.tx_id && !(t = find_txn(xs, r->h.tx_id))) {
        rc = ENOENT;
        goto out;
    }
    switch (r->h.type) {
    case XS_READ:              rc = do_read(xs, r, t); break;
    case XS_DIRECTORY:         rc = do_directory(xs, r, t); break;
    case XS_DIRECTORY_PART:    rc = do_directory_part(xs, r, t); break;
    case XS_GET_PERMS:         rc = do_get_perms(xs, r, t); break;
    case XS_WRITE:             rc = do_change(xs, r, t, OP_WRITE); break;
    case XS_MKDIR:             rc = do_change(xs, r, t, OP_MKDIR); break;
    case XS_RM:                rc = do_change(xs, r, t, OP_RM); break;
    case XS_SET_PERMS:         rc = EACCES; break;  /* the toolstack's job */
    case XS_TRANSACTION_START: rc = do_transaction_start(xs, r, t); break;
    case XS_TRANSACTION_END:   rc = do_transaction_end(xs, r, t); break;
    case XS_GET_DOMAIN_PATH:   rc = do_get_domain_path(xs, r); break;
    case XS_RESET_WATCHES:     rc = do_reset_watches(xs, r); break;
    default:                   rc = ENOSYS; break;
    }
out:
    if (rc)
        reply_error(xs, r, rc);
    xs->reserve = 0;
}

/* --- The ring ------------------------------------------------------------------ */

static uint32_t load_index(volatile uint32_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_index(volatile uint32_t *p, uint32_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static int broken(struct xenstore *xs,
                  volatile struct xenstore_domain_interface *ring,
                  uint32_t error, const char *what, uint32_t a, uint32_t b)
{
    snprintf(xs->broken_why, sizeof(xs->broken_why),
             "xenstore ring broken: %s (%u, %u)", what, a, b);
    xs->broken = true;
    ring->error = error;
    return -1;
}

/* Give rsp[] what it has room for. */
static int flush(struct xenstore *xs,
                 volatile struct xenstore_domain_interface *ring)
{
    uint32_t cons = load_index(&ring->rsp_cons);
    uint32_t used = xs->rsp_prod - cons, n;

    if (used > XENSTORE_RING_SIZE)
        return broken(xs, ring, XENSTORE_ERROR_RINGIDX,
                      "rsp_cons not within a ring of rsp_prod", cons, xs->rsp_prod);
    n = XENSTORE_RING_SIZE - used;
    if (n > xs->out_len)
        n = xs->out_len;
    for (uint32_t i = 0; i < n; i++)
        ring->rsp[MASK_XENSTORE_IDX(xs->rsp_prod + i)] =
            (char)xs->out[(xs->out_head + i) % XS_OUT_BYTES];
    xs->out_head = (xs->out_head + n) % XS_OUT_BYTES;
    xs->out_len -= n;
    xs->rsp_prod += n;
    store_index(&ring->rsp_prod, xs->rsp_prod);
    return 0;
}

/* Copy what req[] holds of the request being gathered. Returns 1 once it
 * is whole, 0 if more is to come, -1 for a broken ring. */
static int gather(struct xenstore *xs,
                  volatile struct xenstore_domain_interface *ring)
{
    const uint32_t hsize = sizeof(struct xsd_sockmsg);
    uint32_t prod = load_index(&ring->req_prod);
    uint32_t avail = prod - xs->req_cons;

    if (avail > XENSTORE_RING_SIZE)
        return broken(xs, ring, XENSTORE_ERROR_RINGIDX,
                      "req_prod more than a ring ahead of req_cons", prod, xs->req_cons);
    for (;;) {
        uint32_t len = 0, want, n;

        if (xs->in_used >= hsize)
            memcpy(&len, xs->in + offsetof(struct xsd_sockmsg, len), sizeof(len));
        if (len > XENSTORE_PAYLOAD_MAX)
            return broken(xs, ring, XENSTORE_ERROR_PROTO,
                          "payload longer than 4096 bytes", len,
                          XENSTORE_PAYLOAD_MAX);
        want = hsize + len;
        n = want - xs->in_used;
        if (n == 0)
            return 1;
        if (avail == 0)
            return 0;
        if (n > avail)
            n = avail;
        for (uint32_t i = 0; i < n; i++)
            xs->in[xs->in_used + i] = (uint8_t)ring->req[MASK_XENSTORE_IDX(xs->req_cons + i)];
        xs->in_used += n;
        xs->req_cons += n;
        avail -= n;
        store_index(&ring->req_cons, xs->req_cons);
    }
}

int xenstore_serve(struct xenstore *xs,
                   volatile struct xenstore_domain_interface *ring,
                   char *why, size_t why_size)
{
    uint32_t cons0 = xs->req_cons, prod0 = xs->rsp_prod;

    run_local_watches(xs);     /* what back ends changed since last time */
    while (!xs->broken && flush(xs, ring) == 0) {
        struct xs_req r;

        if (out_room(xs) < XS_TAKE_ROOM || gather(xs, ring) <= 0)
            break;
        memcpy(&r.h, xs->in, sizeof(r.h));
        r.p = (const char *)xs->in + sizeof(r.h);
        r.len = r.h.len;
        handle(xs, &r);
        xs->in_used = 0;
        run_local_watches(xs);
    }
    if (xs->broken) {
        snprintf(why, why_size, "%s", xs->broken_why);
        return -1;
    }
    return xs->req_cons != cons0 || xs->rsp_prod != prod0 ? XENSTORE_NOTIFY : 0;
}

void xenstore_ring_init(volatile struct xenstore_domain_interface *ring)
{
    ring->req_cons = ring->req_prod = 0;
    ring->rsp_cons = ring->rsp_prod = 0;
    ring->server_features = XENSTORE_SERVER_FEATURE_ERROR;
    ring->connection = XENSTORE_CONNECTED;
    ring->error = XENSTORE_ERROR_NONE;
}

/* --- The back ends' store ----------------------------------------------------- */

static int local_change(struct xenstore *xs, enum change_op op,
                        const char *path, const void *value, size_t len)
{
    xs_path abs;

    if (len > XENSTORE_PAYLOAD_MAX)
        return E2BIG;
    if (xs_path_canonical(abs, path, 0))
        return EINVAL;
    return change(xs, NULL, 0, op, abs, value, (uint32_t)len);
}

int xenstore_write(struct xenstore *xs, const char *path, const void *value,
                   size_t len)
{
    return local_change(xs, OP_WRITE, path, value, len);
}

int xenstore_mkdir(struct xenstore *xs, const char *path)
{
    return local_change(xs, OP_MKDIR, path, NULL, 0);
}

int xenstore_rm(struct xenstore *xs, const char *path)
{
    return local_change(xs, OP_RM, path, NULL, 0);
}

int xenstore_read(struct xenstore *xs, const char *path, char *buf,
                  size_t size, size_t *len)
{
    const uint8_t *value;
    uint32_t n;
    xs_path abs;
    int rc;

    if (xs_path_canonical(abs, path, 0) || size == 0)
        return EINVAL;
    if ((rc = xs_tree_read(&xs->tree, 0, abs, &value, &n)))
        return rc;
    *len = n;
    if (n > size - 1) {
        memcpy(buf, value, size - 1);
        buf[size - 1] = '\0';
        return E2BIG;
    }
    memcpy(buf, value, n);
    buf[n] = '\0';
    return 0;
}

int xenstore_set_perms(struct xenstore *xs, const char *path, uint16_t owner,
                       uint8_t others)
{
    xs_path abs;

    if (xs_path_canonical(abs, path, 0))
        return EINVAL;
    return xs_tree_set_perms(&xs->tree, abs, owner, others);
}

int xenstore_watch_local(struct xenstore *xs, const char *path,
                         xenstore_watch_fn *fn, void *arg)
{
    struct xs_local_watch *l = &xs->local[xs->nlocal];
    xs_path abs;

    if (xs_path_canonical(abs, path, 0))
        return EINVAL;
    if (xs->nlocal == XS_LOCAL_WATCHES_MAX)
        return ENOSPC;
    if (!(l->path = strdup(abs)))
        return ENOMEM;
    l->fn = fn;
    l->arg = arg;
    l->pending = true;         /* once soon, as a guest's watch fires */
    xs->nlocal++;
    return 0;
}

/* --- The store at boot -------------------------------------------------------- */

/* Who may do what with a node the toolstack makes. */
enum boot_perm {
    INHERIT,                   /* as its parent */
    GUEST_READS,               /* domain 0's; the guest reads it */
    GUEST_OWNS,                /* the guest's */
};

static int boot_node(struct xenstore *xs, const char *path,
                     const char *value, enum boot_perm perm)
{
    int rc = value ? xs_tree_write(&xs->tree, 0, path, value, strlen(value))
                   : xs_tree_mkdir(&xs->tree, 0, path);

    if (rc || perm == INHERIT)
        return rc;
    return perm == GUEST_OWNS ? xs_tree_set_perms(&xs->tree, path, xs->domid, 0)
                              : xs_tree_set_perms(&xs->tree, path, 0, XS_ACCESS_READ);
}

/* What libxl makes for a PV domU, relative to its home. */
static const struct {
    const char *path, *value;
    enum boot_perm perm;
} boot_nodes[] = {
    { "cpu",                               NULL, GUEST_READS },
    { "cpu/0/availability",                "online", INHERIT },
    { "memory",                            NULL, GUEST_READS },
    { "device",                            NULL, GUEST_READS },
    { "device/suspend/event-channel",      NULL, GUEST_OWNS },
    { "control",                           NULL, GUEST_READS },
    { "control/shutdown",                  NULL, GUEST_OWNS },
    { "control/feature-poweroff",          NULL, GUEST_OWNS },
    { "control/feature-reboot",            NULL, GUEST_OWNS },
    { "control/feature-suspend",           NULL, GUEST_OWNS },
    { "control/sysrq",                     NULL, GUEST_OWNS },
    { "control/platform-feature-multiprocessor-suspend", "1", INHERIT },
    { "control/platform-feature-xs_reset_watches",       "1", INHERIT },
    { "data",                              NULL, GUEST_OWNS },
    { "drivers",                           NULL, GUEST_OWNS },
    { "feature",                           NULL, GUEST_OWNS },
    { "attr",                              NULL, GUEST_OWNS },
    { "error",                             NULL, GUEST_OWNS },
};

static int boot_tree(struct xenstore *xs, const struct xenstore_guest *g)
{
    char path[256], value[64];
    int rc = 0;

#define NODE(perm, val, ...) \
    (snprintf(path, sizeof(path), __VA_ARGS__), boot_node(xs, path, val, perm))
    rc = rc ? rc : NODE(INHERIT, "Domain-0", "/local/domain/0/name");
    rc = rc ? rc : NODE(INHERIT, "0", "/local/domain/0/domid");
    rc = rc ? rc : NODE(GUEST_READS, NULL, "%s", xs->home);
    rc = rc ? rc : NODE(INHERIT, g->name, "%s/name", xs->home);
    snprintf(value, sizeof(value), "%u", g->domid);
    rc = rc ? rc : NODE(INHERIT, value, "%s/domid", xs->home);
    for (size_t i = 0; !rc && i < sizeof(boot_nodes) / sizeof(boot_nodes[0]); i++)
        rc = NODE(boot_nodes[i].perm, boot_nodes[i].value, "%s/%s", xs->home,
                  boot_nodes[i].path);
    snprintf(value, sizeof(value), "%" PRIu64, g->memory_kib);
    rc = rc ? rc : NODE(INHERIT, value, "%s/memory/static-max", xs->home);
    rc = rc ? rc : NODE(INHERIT, value, "%s/memory/target", xs->home);
    if (g->uuid) {
        snprintf(value, sizeof(value), "/vm/%s", g->uuid);
        rc = rc ? rc : NODE(GUEST_READS, NULL, "%s", value);
        rc = rc ? rc : NODE(INHERIT, g->uuid, "%s/uuid", value);
        rc = rc ? rc : NODE(INHERIT, g->name, "%s/name", value);
        rc = rc ? rc : NODE(INHERIT, value, "%s/vm", xs->home);
    }
#undef NODE
    return rc;
}

int xenstore_init(struct xenstore *xs, const struct xenstore_guest *g)
{
    int rc;

    memset(xs, 0, sizeof(*xs));
    if (g->domid == 0 || g->domid >= DOMID_FIRST_RESERVED ||
        (g->uuid && (strlen(g->uuid) > 36 || g->uuid[0] == '\0' ||
                     strspn(g->uuid, "0123456789abcdef-") != strlen(g->uuid))) ||
        strlen(g->name) > 128)
        return EINVAL;
    xs->domid = g->domid;
    snprintf(xs->home, sizeof(xs->home), "/local/domain/%u", g->domid);
    if ((rc = xs_tree_init(&xs->tree, g->domid)))
        return rc;
    if ((rc = boot_tree(xs, g)))
        xenstore_free(xs);
    return rc;
}

void xenstore_forget_guest(struct xenstore *xs)
{
    drop_guest(xs);
    for (unsigned i = 0; i < xs->nlocal; i++)
        xs->local[i].pending = true;
}

void xenstore_free(struct xenstore *xs)
{
    drop_guest(xs);
    for (unsigned i = 0; i < xs->nlocal; i++)
        free(xs->local[i].path);
    xs->nlocal = 0;
    xs_tree_free(&xs->tree);
}
