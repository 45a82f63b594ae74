/*
 * The xenstore server's state as bytes and back (see xenstore_save.h).
 *
 * The layout, version 1 (docs/snapshot.md says it too). Integers are
 * little-endian; a string is its length and its bytes, with no NUL.
 *
 *   "XSv1"                    magic, its last byte the version
 *   u16 domid                 the guest's: the restoring store's too
 *   u32 req_cons, u32 rsp_prod    the server's copies of its ring indices
 *   u32 next_txn_id
 *   u64 events_dropped
 *   u32 reserve               0 or XS_MSG_MAX
 *   u32 in_used, in_used bytes    the request gathered so far
 *   u32 out_head, u32 out_len, out_len bytes    the queue, from its head
 *   u64 generation            the tree's
 *   u32 nodes, then per node:
 *       u16 path length, path     absolute
 *       u64 gen, u16 owner, u8 others (XS_ACCESS_* bits)
 *       u32 value length, value
 *   u32 watches, then per watch:
 *       u16 path length, path     absolute, or an "@" name
 *       u16 token length, token
 *       u8 relative               0 or 1
 *
 * and nothing after. The first node is "/", and every other comes after
 * its parent; siblings come in the order they were made, which is the
 * order DIRECTORY lists them in, so a loaded tree lists as the saved one.
 */
#include "xenstore_save.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "XSv1"

/* --- Saving ------------------------------------------------------------------ */

static void put(FILE *f, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        fputc((int)((v >> (8 * i)) & 0xff), f);
}

/* A string (or value): its length in len_bytes, then its bytes. */
static void put_bytes(FILE *f, const void *p, size_t n, unsigned len_bytes)
{
    put(f, n, len_bytes);
    if (n)
        fwrite(p, 1, n, f);
}

static void save_ring(FILE *f, const struct xenstore *xs)
{
    fwrite(MAGIC, 1, 4, f);
    put(f, xs->domid, 2);
    put(f, xs->req_cons, 4);
    put(f, xs->rsp_prod, 4);
    put(f, xs->next_txn_id, 4);
    put(f, xs->events_dropped, 8);
    put(f, xs->reserve, 4);
    put_bytes(f, xs->in, xs->in_used, 4);
    put(f, xs->out_head, 4);
    put(f, xs->out_len, 4);
    for (uint32_t i = 0; i < xs->out_len; i++)
        fputc(xs->out[(xs->out_head + i) % XS_OUT_BYTES], f);
}

static uint32_t count_nodes(const struct xs_node *n)
{
    uint32_t count = 1;

    for (const struct xs_node *c = n->children; c; c = c->next)
        count += count_nodes(c);
    return count;
}

/* The node whose path is path[0, len), then the nodes below it, parents
 * first. path has room for any path the tree holds. */
static void save_nodes(FILE *f, const struct xs_node *n, char *path, size_t len)
{
    put_bytes(f, path, len, 2);
    put(f, n->gen, 8);
    put(f, n->owner, 2);
    put(f, n->others, 1);
    put_bytes(f, n->value, n->len, 4);
    for (const struct xs_node *c = n->children; c; c = c->next) {
        size_t at = len > 1 ? len : 0;     /* under "/", no second '/' */
        size_t name = strlen(c->name);

        path[at] = '/';
        memcpy(path + at + 1, c->name, name);
        save_nodes(f, c, path, at + 1 + name);
    }
}

static void save_watches(FILE *f, const struct xenstore *xs)
{
    put(f, xs->nwatches, 4);
    for (unsigned i = 0; i < xs->nwatches; i++) {
        put_bytes(f, xs->watches[i].path, strlen(xs->watches[i].path), 2);
        put_bytes(f, xs->watches[i].token, strlen(xs->watches[i].token), 2);
        put(f, xs->watches[i].relative, 1);
    }
}

/* rc (fail()'s -1) with errno set after fail() ran. */
static int with_errno(int rc, int err)
{
    errno = err;
    return rc;
}

int xenstore_save(const struct xenstore *xs, uint8_t **out, size_t *len,
                  struct error *e)
{
    char path[XENSTORE_ABS_PATH_MAX + 1] = "/";
    char *buf = NULL;
    size_t size = 0;
    bool bad;
    FILE *f;

    for (unsigned i = 0; i < XS_TRANSACTIONS_MAX; i++)
        if (xs->txn[i])
            return with_errno(fail(e, "xenstore: not saved while the guest "
                                      "has a transaction open"), EBUSY);
    if (xs->broken)
        return with_errno(fail(e, "xenstore: not saved: %s", xs->broken_why), EIO);
    if (!(f = open_memstream(&buf, &size)))
        return with_errno(fail(e, "xenstore: not saved: out of memory"), ENOMEM);
    save_ring(f, xs);
    put(f, xs->tree.generation, 8);
    put(f, count_nodes(xs->tree.root), 4);
    save_nodes(f, xs->tree.root, path, 1);
    save_watches(f, xs);
    bad = ferror(f);
    if (fclose(f) || bad) {
        free(buf);
        return with_errno(fail(e, "xenstore: not saved: out of memory"), ENOMEM);
    }
    *out = (uint8_t *)buf;
    *len = size;
    return 0;
}

/* --- Loading ----------------------------------------------------------------- */

struct cursor {
    const uint8_t *p;
    size_t n;
};

/* The next n bytes, or false if the snapshot ends first. */
static bool take(struct cursor *c, size_t n, const uint8_t **p)
{
    if (c->n < n)
        return false;
    *p = c->p;
    c->p += n;
    c->n -= n;
    return true;
}

static bool get(struct cursor *c, unsigned bytes, uint64_t *v)
{
    const uint8_t *p;

    if (!take(c, bytes, &p))
        return false;
    *v = 0;
    for (unsigned i = 0; i < bytes; i++)
        *v |= (uint64_t)p[i] << (8 * i);
    return true;
}

/* What the header and the two queues say, checked, before xs takes it. */
struct saved_ring {
    uint64_t req_cons, rsp_prod, next_txn_id, events_dropped, reserve;
    uint64_t in_used, out_head, out_len;
    const uint8_t *in, *out;
};

static int load_header(struct cursor *c, const struct xenstore *xs,
                       struct saved_ring *r, struct error *e)
{
    const uint8_t *magic;
    uint64_t domid;

    if (!take(c, 4, &magic) || memcmp(magic, MAGIC, 3))
        return fail(e, "xenstore: not a xenstore snapshot (no \"XSv\" at its start)");
    if (magic[3] != MAGIC[3])
        return fail(e, "xenstore: snapshot version %c, this perch reads %c only",
                    magic[3], MAGIC[3]);
    if (!get(c, 2, &domid) || !get(c, 4, &r->req_cons) ||
        !get(c, 4, &r->rsp_prod) || !get(c, 4, &r->next_txn_id) ||
        !get(c, 8, &r->events_dropped) || !get(c, 4, &r->reserve))
        return fail(e, "xenstore: the snapshot ends in its header");
    if (domid != xs->domid)
        return fail(e, "xenstore: the snapshot is of domain %" PRIu64 ", this "
                       "store of domain %u", domid, xs->domid);
    if (r->reserve != 0 && r->reserve != XS_MSG_MAX)
        return fail(e, "xenstore: reserve %" PRIu64 " is neither 0 nor %zu",
                    r->reserve, XS_MSG_MAX);
    return 0;
}

/* The request half gathered: a header that gather() would take, and not
 * yet the whole message (a whole one is answered at once). */
static int check_in(const struct saved_ring *r, struct error *e)
{
    const uint32_t hsize = sizeof(struct xsd_sockmsg);
    uint32_t plen;

    if (r->in_used < hsize)
        return 0;
    memcpy(&plen, r->in + offsetof(struct xsd_sockmsg, len), sizeof(plen));
    if (plen > XENSTORE_PAYLOAD_MAX)
        return fail(e, "xenstore: the request being gathered has a payload of "
                       "%u bytes, past %u", plen, XENSTORE_PAYLOAD_MAX);
    if (r->in_used >= hsize + plen)
        return fail(e, "xenstore: the request being gathered is whole already");
    return 0;
}

static int load_queues(struct cursor *c, struct saved_ring *r, struct error *e)
{
    if (!get(c, 4, &r->in_used))
        return fail(e, "xenstore: the snapshot ends in its header");
    if (r->in_used > XS_MSG_MAX)
        return fail(e, "xenstore: %" PRIu64 " bytes of request gathered, past %zu",
                    r->in_used, XS_MSG_MAX);
    if (!take(c, r->in_used, &r->in) || !get(c, 4, &r->out_head) ||
        !get(c, 4, &r->out_len))
        return fail(e, "xenstore: the snapshot ends in the request being gathered");
    if (r->out_head >= XS_OUT_BYTES || r->out_len > XS_OUT_BYTES)
        return fail(e, "xenstore: the reply queue's head %" PRIu64 " or length %"
                       PRIu64 " is past its %zu bytes", r->out_head, r->out_len,
                    XS_OUT_BYTES);
    if (!take(c, r->out_len, &r->out))
        return fail(e, "xenstore: the snapshot ends in the reply queue");
    return check_in(r, e);
}

/* A u16-counted string into out (size bytes with its NUL). who and field
 * name it in the error: "node 17", "path". */
static int get_string(struct cursor *c, char *out, size_t size,
                      const char *who, const char *field, struct error *e)
{
    const uint8_t *p;
    uint64_t n;

    if (!get(c, 2, &n) || !take(c, n, &p))
        return fail(e, "xenstore: the snapshot ends in %s's %s", who, field);
    if (n >= size)
        return fail(e, "xenstore: %s's %s is longer than %zu bytes", who, field,
                    size - 1);
    if (memchr(p, '\0', n))
        return fail(e, "xenstore: %s's %s holds a NUL", who, field);
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

/* A node's path as the tree's own rules have it. */
static int check_path(const char *path, const char *who, struct error *e)
{
    char canon[XENSTORE_ABS_PATH_MAX + 1];

    if (path[0] != '/')
        return fail(e, "xenstore: %s's path is not absolute", who);
    if (xs_path_canonical(canon, path, 0))
        return fail(e, "xenstore: %s's path is not a valid path", who);
    return 0;
}

struct saved_node {
    char path[XENSTORE_ABS_PATH_MAX + 1];
    uint64_t gen, owner, others, len;
    const uint8_t *value;
};

static int get_node(struct cursor *c, struct saved_node *n, const char *who,
                    struct error *e)
{
    if (get_string(c, n->path, sizeof(n->path), who, "path", e) ||
        check_path(n->path, who, e))
        return -1;
    if (!get(c, 8, &n->gen) || !get(c, 2, &n->owner) ||
        !get(c, 1, &n->others) || !get(c, 4, &n->len) ||
        !take(c, n->len, &n->value))
        return fail(e, "xenstore: the snapshot ends in %s", who);
    return 0;
}

/* The node's fields against the tree it goes into (before it does). */
static int check_node(const struct saved_node *n, const struct xs_tree *t,
                      uint64_t generation, bool first, const char *who,
                      struct error *e)
{
    if (first != (strcmp(n->path, "/") == 0))
        return fail(e, "xenstore: %s is %s", who,
                    first ? "not the root" : "a second root");
    if (n->gen == 0 || n->gen > generation)
        return fail(e, "xenstore: %s's generation %" PRIu64 " is not within 1 to "
                       "the tree's %" PRIu64, who, n->gen, generation);
    if (n->owner != 0 && n->owner != t->guest)
        return fail(e, "xenstore: %s's owner is domain %" PRIu64 ", neither 0 nor "
                       "%u", who, n->owner, t->guest);
    if (n->others & ~(uint64_t)(XS_ACCESS_READ | XS_ACCESS_WRITE))
        return fail(e, "xenstore: %s's permissions %#" PRIx64 " are not read and "
                       "write bits", who, n->others);
    if (n->len > XENSTORE_PAYLOAD_MAX)
        return fail(e, "xenstore: %s's value is %" PRIu64 " bytes, past %u", who,
                    n->len, XENSTORE_PAYLOAD_MAX);
    return 0;
}

/* Node i into t: checked, then made by the tree, whose quota counts it. */
static int load_node(struct cursor *c, struct xs_tree *t, uint32_t i,
                     uint64_t generation, struct error *e)
{
    struct saved_node n;
    char who[24];
    int rc;

    snprintf(who, sizeof(who), "node %u", i);
    if (get_node(c, &n, who, e) || check_node(&n, t, generation, i == 0, who, e))
        return -1;
    rc = xs_tree_restore_node(t, n.path, n.value, (uint32_t)n.len, n.gen,
                              (uint16_t)n.owner, (uint8_t)n.others);
    if (rc == EEXIST)
        return fail(e, "xenstore: %s (%s) is there twice", who, n.path);
    if (rc == ENOENT)
        return fail(e, "xenstore: %s (%s) comes before its parent", who, n.path);
    if (rc)
        return fail(e, "xenstore: out of memory for %s", who);
    if (t->guest_nodes > t->max_guest_nodes || t->guest_bytes > t->max_guest_bytes)
        return fail(e, "xenstore: %s takes the guest past its quota (%u nodes, "
                       "%zu bytes)", who, t->max_guest_nodes, t->max_guest_bytes);
    return 0;
}

/* The tree, into t (made here; the caller frees it once it succeeded). */
static int load_tree(struct cursor *c, uint16_t guest, struct xs_tree *t,
                     struct error *e)
{
    uint64_t generation, count;

    if (!get(c, 8, &generation) || !get(c, 4, &count))
        return fail(e, "xenstore: the snapshot ends before its nodes");
    if (count == 0 || count > XS_SAVE_NODES_MAX)
        return fail(e, "xenstore: %" PRIu64 " nodes, not within 1 to %u", count,
                    XS_SAVE_NODES_MAX);
    if (xs_tree_init(t, guest))
        return fail(e, "xenstore: out of memory for the tree");
    for (uint32_t i = 0; i < count; i++) {
        if (load_node(c, t, i, generation, e)) {
            xs_tree_free(t);
            return -1;
        }
    }
    t->generation = generation;
    return 0;
}

static void free_watches(struct xs_watch *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(w[i].path);
        free(w[i].token);
    }
}

/* A watch's path and flag as do_watch() makes them: an "@" name, never
 * relative, or an absolute path, relative only below the guest's home. */
static int check_watch(const struct xenstore *xs, const char *path,
                       uint64_t relative, const char *who, struct error *e)
{
    size_t home = strlen(xs->home);

    if (relative > 1)
        return fail(e, "xenstore: %s's relative flag is %" PRIu64, who, relative);
    if (path[0] == '@') {
        if (strlen(path) > XENSTORE_REL_PATH_MAX || relative)
            return fail(e, "xenstore: %s's \"@\" name is too long or relative", who);
        return 0;
    }
    if (check_path(path, who, e))
        return -1;
    if (relative && (strncmp(path, xs->home, home) || path[home] != '/'))
        return fail(e, "xenstore: %s is relative but not below %s", who, xs->home);
    return 0;
}

/* Watch i into w[i], its strings malloc'd. */
static int load_watch(struct cursor *c, const struct xenstore *xs,
                      struct xs_watch *w, unsigned i, struct error *e)
{
    char path[XENSTORE_ABS_PATH_MAX + 1], token[XS_TOKEN_MAX + 1], who[24];
    uint64_t relative;

    snprintf(who, sizeof(who), "watch %u", i);
    if (get_string(c, path, sizeof(path), who, "path", e) ||
        get_string(c, token, sizeof(token), who, "token", e))
        return -1;
    if (!get(c, 1, &relative))
        return fail(e, "xenstore: the snapshot ends in %s", who);
    if (check_watch(xs, path, relative, who, e))
        return -1;
    for (unsigned j = 0; j < i; j++)
        if (!strcmp(w[j].path, path) && !strcmp(w[j].token, token))
            return fail(e, "xenstore: %s is watch %u again", who, j);
    w[i].path = strdup(path);
    w[i].token = strdup(token);
    w[i].relative = relative;
    if (!w[i].path || !w[i].token) {
        free(w[i].path);
        free(w[i].token);
        return fail(e, "xenstore: out of memory for %s", who);
    }
    return 0;
}

/* The watches into w[0, *n); on failure none is left allocated. */
static int load_watches(struct cursor *c, const struct xenstore *xs,
                        struct xs_watch *w, unsigned *n, struct error *e)
{
    uint64_t count;

    *n = 0;
    if (!get(c, 4, &count))
        return fail(e, "xenstore: the snapshot ends before its watches");
    if (count > XS_WATCHES_MAX)
        return fail(e, "xenstore: %" PRIu64 " watches, past %u", count,
                    XS_WATCHES_MAX);
    for (; *n < count; (*n)++) {
        if (load_watch(c, xs, w, *n, e)) {
            free_watches(w, *n);
            return -1;
        }
    }
    return 0;
}

/* Everything checked: xs becomes the saved store. Nothing here can fail. */
static void commit(struct xenstore *xs, const struct saved_ring *r,
                   const struct xs_tree *t, const struct xs_watch *w,
                   unsigned n)
{
    xenstore_forget_guest(xs);
    xs_tree_free(&xs->tree);
    xs->tree = *t;
    memcpy(xs->watches, w, n * sizeof(*w));
    xs->nwatches = n;
    xs->req_cons = (uint32_t)r->req_cons;
    xs->rsp_prod = (uint32_t)r->rsp_prod;
    memcpy(xs->in, r->in, r->in_used);
    xs->in_used = (uint32_t)r->in_used;
    for (uint64_t i = 0; i < r->out_len; i++)
        xs->out[(r->out_head + i) % XS_OUT_BYTES] = r->out[i];
    xs->out_head = (uint32_t)r->out_head;
    xs->out_len = (uint32_t)r->out_len;
    xs->reserve = (uint32_t)r->reserve;
    xs->next_txn_id = (uint32_t)r->next_txn_id;
    xs->events_dropped = r->events_dropped;
    xs->broken = false;
    xs->broken_why[0] = '\0';
}

int xenstore_load(struct xenstore *xs, const uint8_t *buf, size_t len,
                  struct error *e)
{
    struct cursor c = { buf, len };
    struct xs_watch w[XS_WATCHES_MAX];
    struct saved_ring r = { 0 };
    struct xs_tree t;
    unsigned n;

    if (load_header(&c, xs, &r, e) || load_queues(&c, &r, e) ||
        load_tree(&c, xs->domid, &t, e))
        return -1;
    if (load_watches(&c, xs, w, &n, e)) {
        xs_tree_free(&t);
        return -1;
    }
    if (c.n) {
        free_watches(w, n);
        xs_tree_free(&t);
        return fail(e, "xenstore: %zu bytes after the snapshot's end", c.n);
    }
    commit(xs, &r, &t, w, n);
    return 0;
}
