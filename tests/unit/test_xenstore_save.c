/*
 * Unit tests of the xenstore server's state as bytes and back
 * (launcher/xenbus/xenstore_save.c): a store saved mid-conversation loads
 * into a fresh one that carries on where it stopped, back ends' watches
 * are kept and look again, and a snapshot that is cut, flipped, of another
 * version or made to hurt is refused with one line, the store untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "../../launcher/xenbus/xenstore_save.h"

static const struct xenstore_guest guest = {
    1, "perch", 262144, "00000000-0000-0000-0000-000000000001"
};

struct msg {
    struct xsd_sockmsg h;
    char p[XENSTORE_PAYLOAD_MAX + 1];
};

static struct xenstore *new_store(uint16_t domid)
{
    struct xenstore_guest g = guest;
    struct xenstore *xs = malloc(sizeof(*xs));

    g.domid = domid;
    if (!xs || xenstore_init(xs, &g))
        abort();
    return xs;
}

static void drop_store(struct xenstore *xs)
{
    xenstore_free(xs);
    free(xs);
}

static struct xenstore_domain_interface *new_page(void)
{
    struct xenstore_domain_interface *page = calloc(1, sizeof(*page));

    if (!page)
        abort();
    xenstore_ring_init(page);
    return page;
}

static int serve(struct xenstore *xs, struct xenstore_domain_interface *page)
{
    char why[160];

    return xenstore_serve(xs, page, why, sizeof(why));
}

/* The guest writes bytes into req[]. */
static void put(struct xenstore_domain_interface *page, const void *bytes,
                uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        page->req[MASK_XENSTORE_IDX(page->req_prod + i)] = ((const char *)bytes)[i];
    page->req_prod += n;
}

/* A request's header and the first `part` bytes of its payload. */
static void send_part(struct xenstore_domain_interface *page, uint32_t type,
                      uint32_t req_id, const void *payload, uint32_t len,
                      uint32_t part)
{
    struct xsd_sockmsg h = { type, req_id, 0, len };

    put(page, &h, sizeof(h));
    put(page, payload, part);
}

/* n bytes of rsp[] into d, as xenbus reads them: what is there, then
 * serving for more. */
static bool read_rsp(struct xenstore *xs, struct xenstore_domain_interface *page,
                     void *d, uint32_t n)
{
    uint8_t *p = d;
    bool served = false;

    while (n) {
        if (page->rsp_prod == page->rsp_cons) {
            if (served || serve(xs, page) < 0)
                return false;
            served = true;
            continue;
        }
        *p++ = (uint8_t)page->rsp[MASK_XENSTORE_IDX(page->rsp_cons++)];
        n--;
        served = false;
    }
    return true;
}

/* The next whole message from rsp[]. */
static bool next_msg(struct xenstore *xs, struct xenstore_domain_interface *page,
                     struct msg *m)
{
    if (!read_rsp(xs, page, &m->h, sizeof(m->h)) || m->h.len > XENSTORE_PAYLOAD_MAX ||
        !read_rsp(xs, page, m->p, m->h.len))
        return false;
    m->p[m->h.len] = '\0';
    return true;
}

/* A request whose payload is strings, answered; events before it skipped. */
static bool ask(struct xenstore *xs, struct xenstore_domain_interface *page,
                uint32_t type, const void *payload, uint32_t len, struct msg *m)
{
    send_part(page, type, 7, payload, len, len);
    while (next_msg(xs, page, m))
        if (m->h.type != XS_WATCH_EVENT)
            return true;
    return false;
}

static uint8_t *saved(const struct xenstore *xs, size_t *len)
{
    struct error e;
    uint8_t *buf;

    if (xenstore_save(xs, &buf, len, &e))
        abort();
    return buf;
}

/* Does xs save to exactly these bytes? */
static bool saves_as(const struct xenstore *xs, const uint8_t *buf, size_t len)
{
    size_t n;
    uint8_t *now = saved(xs, &n);
    bool same = n == len && memcmp(now, buf, len) == 0;

    free(now);
    return same;
}

static bool is_event(const struct msg *m, const char *path, const char *token)
{
    size_t n = strlen(path) + 1;

    return m->h.type == XS_WATCH_EVENT && m->h.len == n + strlen(token) + 1 &&
           strcmp(m->p, path) == 0 && strcmp(m->p + n, token) == 0;
}

static char big[1030];

/* A store mid-conversation: a back end's directory the guest may read, a
 * guest watch, a reply that did not fit in rsp[] (the guest has not read
 * it), and a request of which only a part has arrived. */
static struct xenstore *busy_store(struct xenstore_domain_interface *page)
{
    struct xenstore *xs = new_store(1);
    static const char watch[] = "data\0tok", write[] = "data/a\0" "1";
    static const char read_big[] = "data/big", partial[] = "data/c\0" "3";
    struct msg m;

    memset(big, 'x', sizeof(big));
    if (xenstore_write(xs, "/local/domain/0/backend/vbd/1/51712/state", "4", 1) ||
        xenstore_set_perms(xs, "/local/domain/0/backend/vbd/1/51712", 0, XS_ACCESS_READ) ||
        xenstore_write(xs, "/local/domain/1/data/big", big, sizeof(big)) ||
        !ask(xs, page, XS_WATCH, watch, sizeof(watch), &m) ||
        !ask(xs, page, XS_WRITE, write, sizeof(write) - 1, &m))
        abort();
    while (next_msg(xs, page, &m))
        ;                                  /* the events: rsp[] empty */
    send_part(page, XS_READ, 8, read_big, sizeof(read_big), sizeof(read_big));
    send_part(page, XS_WRITE, 9, partial, sizeof(partial) - 1, 4);
    if (serve(xs, page) < 0)
        abort();
    return xs;
}

static void round_trip(void)
{
    struct xenstore_domain_interface *page = new_page(), *page2 = new_page();
    struct xenstore *a = busy_store(page), *b = new_store(1);
    static const char rest[] = "/c\0" "3";
    static const char backend[] = "/local/domain/0/backend/vbd/1/51712";
    char value[8];
    struct error e;
    struct msg m;
    size_t len, n;
    uint8_t *buf;

    CHECK(a->out_len > 0 && a->in_used == sizeof(struct xsd_sockmsg) + 4);
    CHECK(xenstore_save(a, &buf, &len, &e) == 0);
    *page2 = *page;                        /* guest memory comes back with it */
    CHECK(xenstore_load(b, buf, len, &e) == 0);
    CHECK(saves_as(b, buf, len));
    CHECK(xenstore_read(b, "/local/domain/1/data/a", value, sizeof(value), &n) == 0);
    CHECK(n == 1 && value[0] == '1');
    /* the READ's reply, part in rsp[] and part queued, comes first */
    CHECK(next_msg(b, page2, &m) && m.h.type == XS_READ && m.h.req_id == 8);
    CHECK(m.h.len == sizeof(big) && memcmp(m.p, big, sizeof(big)) == 0);
    put(page2, rest, sizeof(rest) - 1);    /* the partial WRITE's rest */
    CHECK(next_msg(b, page2, &m) && is_event(&m, "data/c", "tok"));
    CHECK(next_msg(b, page2, &m) && m.h.type == XS_WRITE && m.h.req_id == 9);
    CHECK(xenstore_read(b, "/local/domain/1/data/c", value, sizeof(value), &n) == 0);
    CHECK(ask(b, page2, XS_GET_PERMS, backend, sizeof(backend), &m));
    CHECK(m.h.len == 6 && memcmp(m.p, "n0\0r1\0", 6) == 0);
    CHECK(xenstore_write(b, "/local/domain/1/data/a", "2", 1) == 0);
    CHECK(next_msg(b, page2, &m) && is_event(&m, "data/a", "tok"));
    free(buf);
    drop_store(a);
    drop_store(b);
    free(page);
    free(page2);
}

static unsigned calls;

static void count_call(void *arg, const char *path)
{
    (void)arg;
    (void)path;
    calls++;
}

/* The restoring Launcher's back-end watch stays, and looks once more. */
static void local_watch_kept(void)
{
    struct xenstore_domain_interface *page = new_page(), *page2 = new_page();
    struct xenstore *a = busy_store(page), *b = new_store(1);
    struct error e;
    size_t len;
    uint8_t *buf = saved(a, &len);

    calls = 0;
    CHECK(xenstore_watch_local(b, "/local/domain/1/data", count_call, NULL) == 0);
    CHECK(serve(b, page2) >= 0 && calls == 1);
    *page2 = *page;
    CHECK(xenstore_load(b, buf, len, &e) == 0);
    CHECK(b->nlocal == 1 && strcmp(b->local[0].path, "/local/domain/1/data") == 0);
    CHECK(serve(b, page2) >= 0 && calls == 2);
    CHECK(xenstore_write(b, "/local/domain/1/data/z", "1", 1) == 0);
    CHECK(serve(b, page2) >= 0 && calls == 3);
    free(buf);
    drop_store(a);
    drop_store(b);
    free(page);
    free(page2);
}

static void open_transaction_or_broken_ring_not_saved(void)
{
    struct xenstore_domain_interface *page = new_page();
    struct xenstore *xs = new_store(1);
    struct error e;
    struct msg m;
    size_t len;
    uint8_t *buf;

    CHECK(ask(xs, page, XS_TRANSACTION_START, "", 1, &m));
    CHECK(m.h.type == XS_TRANSACTION_START);
    CHECK(xenstore_save(xs, &buf, &len, &e) == -1 && errno == EBUSY);
    CHECK_CONTAINS(e.msg, "transaction open");
    drop_store(xs);
    xs = new_store(1);
    xenstore_ring_init(page);
    page->req_prod = 5000;
    CHECK(serve(xs, page) == -1);
    CHECK(xenstore_save(xs, &buf, &len, &e) == -1 && errno == EIO);
    CHECK_CONTAINS(e.msg, "ring broken");
    drop_store(xs);
    free(page);
}

/* --- Hostile snapshots ------------------------------------------------------ */

static struct xenstore *target;

/* The message if loading buf into target is refused with one line and
 * leaves it as it was; NULL if not. */
static const char *refused(const uint8_t *buf, size_t len)
{
    static struct error e;
    size_t before_len;
    uint8_t *before = saved(target, &before_len);
    bool ok;

    e.msg[0] = '\0';
    ok = xenstore_load(target, buf, len, &e) == -1 &&
         strncmp(e.msg, "xenstore: ", 10) == 0 && !strchr(e.msg, '\n') &&
         saves_as(target, before, before_len);
    free(before);
    return ok ? e.msg : NULL;
}

/* A busy store's snapshot, and the target a fresh store with a watch. */
static uint8_t *hostile_setup(size_t *len)
{
    struct xenstore_domain_interface *page = new_page();
    struct xenstore *xs = busy_store(page);
    uint8_t *buf = saved(xs, len);

    drop_store(xs);
    free(page);
    if (target)
        drop_store(target);
    target = new_store(1);
    if (xenstore_watch_local(target, "/local", count_call, NULL))
        abort();
    return buf;
}

static void truncated_at_every_length(void)
{
    size_t len;
    uint8_t *buf = hostile_setup(&len);

    for (size_t n = 0; n < len; n++)
        CHECK(refused(buf, n));
    free(buf);
}

/* Loaded, a flipped snapshot is a store whose own snapshot loads back to
 * the same bytes. */
static bool loads_to_valid_store(void)
{
    struct error e;
    size_t len;
    uint8_t *again = saved(target, &len);
    bool ok = xenstore_load(target, again, len, &e) == 0 &&
              saves_as(target, again, len);

    free(again);
    return ok;
}

static void every_bit_flip_loads_or_is_refused(void)
{
    struct error e;
    size_t len;
    uint8_t *buf = hostile_setup(&len);
    unsigned loaded = 0;

    for (size_t bit = 0; bit < 8 * len; bit++) {
        buf[bit / 8] ^= 1u << (bit % 8);
        if (!refused(buf, len)) {
            CHECK(loads_to_valid_store());
            loaded++;
        }
        buf[bit / 8] ^= 1u << (bit % 8);
    }
    CHECK(loaded > 0 && xenstore_load(target, buf, len, &e) == 0);
    free(buf);
}

static void wrong_magic_version_domain_or_trailing_bytes(void)
{
    size_t len;
    uint8_t *buf = hostile_setup(&len), *longer = malloc(len + 1);

    buf[0] = 'Y';
    CHECK_CONTAINS(refused(buf, len) ?: "", "not a xenstore snapshot");
    buf[0] = 'X';
    buf[3] = '2';
    CHECK_CONTAINS(refused(buf, len) ?: "", "version 2, this perch reads 1 only");
    buf[3] = '1';
    buf[4] = 2;                            /* domid */
    CHECK_CONTAINS(refused(buf, len) ?: "", "of domain 2, this store of domain 1");
    buf[4] = 1;
    memcpy(longer, buf, len);
    longer[len] = 0;
    CHECK_CONTAINS(refused(longer, len + 1) ?: "", "1 bytes after the snapshot's end");
    free(longer);
    free(buf);
}

/* A snapshot made by hand, with generation 100 and nothing queued. */
struct built {
    uint8_t b[1 << 16];
    size_t n;
};

static void b_put(struct built *b, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        b->b[b->n++] = (uint8_t)(v >> (8 * i));
}

static void b_string(struct built *b, const char *s, unsigned len_bytes)
{
    b_put(b, strlen(s), len_bytes);
    memcpy(b->b + b->n, s, strlen(s));
    b->n += strlen(s);
}

static void b_start(struct built *b, uint32_t nodes)
{
    b->n = 0;
    memcpy(b->b, "XSv1", 4);
    b->n = 4;
    b_put(b, 1, 2);                        /* domid */
    for (int i = 0; i < 3; i++)
        b_put(b, 0, 4);                    /* req_cons, rsp_prod, next_txn_id */
    b_put(b, 0, 8);                        /* events_dropped */
    for (int i = 0; i < 4; i++)
        b_put(b, 0, 4);                    /* reserve, in_used, out_head, out_len */
    b_put(b, 100, 8);
    b_put(b, nodes, 4);
}

static void b_node(struct built *b, const char *path, uint16_t owner,
                   const char *value)
{
    b_string(b, path, 2);
    b_put(b, 5, 8);
    b_put(b, owner, 2);
    b_put(b, XS_ACCESS_READ, 1);
    b_string(b, value, 4);
}

static void b_watches(struct built *b, uint32_t n)
{
    b_put(b, n, 4);
    for (uint32_t i = 0; i < n; i++) {
        char token[16];

        snprintf(token, sizeof(token), "%u", i);
        b_string(b, "/local/domain/1/data", 2);
        b_string(b, token, 2);
        b_put(b, 0, 1);
    }
}

static void hand_made_snapshot_loads(void)
{
    static struct built b;
    char value[8];
    size_t n;
    struct error e;

    free(hostile_setup(&n));
    b_start(&b, 3);
    b_node(&b, "/", 0, "");
    b_node(&b, "/a", 1, "v");
    b_node(&b, "/a/b", 0, "");
    b_watches(&b, 2);
    CHECK(xenstore_load(target, b.b, b.n, &e) == 0);
    CHECK(xenstore_read(target, "/a", value, sizeof(value), &n) == 0 && n == 1);
    CHECK(target->tree.guest_nodes == 1 && target->nwatches == 2);
}

static void counts_past_bounds(void)
{
    static struct built b;

    free(hostile_setup(&b.n));
    b_start(&b, 1);
    b_node(&b, "/", 0, "");
    b_watches(&b, XS_WATCHES_MAX + 1);
    CHECK_CONTAINS(refused(b.b, b.n) ?: "", "129 watches, past 128");
    b_start(&b, XS_SAVE_NODES_MAX + 1);
    CHECK_CONTAINS(refused(b.b, b.n) ?: "", "5097 nodes, not within 1 to 5096");
}

/* Trees of "/" and a node or two, each wrong in one way. */
static void bad_trees(void)
{
    static const struct {
        const char *paths[2];
        uint16_t owner;
        const char *want;
    } cases[] = {
        { { "/a/b" }, 0, "node 1 (/a/b) comes before its parent" },
        { { "/a", "/a" }, 0, "node 2 (/a) is there twice" },
        { { "a" }, 0, "node 1's path is not absolute" },
        { { "/a//b" }, 0, "node 1's path is not a valid path" },
        { { "/a" }, 7, "node 1's owner is domain 7" },
    };
    static struct built b;

    free(hostile_setup(&b.n));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned n = cases[i].paths[1] ? 2 : 1;

        b_start(&b, 1 + n);
        b_node(&b, "/", 0, "");
        for (unsigned j = 0; j < n; j++)
            b_node(&b, cases[i].paths[j], cases[i].owner, "");
        b_watches(&b, 0);
        CHECK_CONTAINS(refused(b.b, b.n) ?: "", cases[i].want);
    }
}

/* 1001 nodes of the guest's: one past Xen's quota. */
static void over_node_quota(void)
{
    static struct built b;
    char path[32];

    free(hostile_setup(&b.n));
    b_start(&b, 2 + XS_GUEST_NODES_MAX);
    b_node(&b, "/", 0, "");
    b_node(&b, "/g", 1, "");
    for (unsigned i = 0; i < XS_GUEST_NODES_MAX; i++) {
        snprintf(path, sizeof(path), "/g/%u", i);
        b_node(&b, path, 1, "");
    }
    b_watches(&b, 0);
    CHECK_CONTAINS(refused(b.b, b.n) ?: "", "node 1001 takes the guest past its quota");
}

int main(void)
{
    RUN(round_trip);
    RUN(local_watch_kept);
    RUN(open_transaction_or_broken_ring_not_saved);
    RUN(truncated_at_every_length);
    RUN(every_bit_flip_loads_or_is_refused);
    RUN(wrong_magic_version_domain_or_trailing_bytes);
    RUN(hand_made_snapshot_loads);
    RUN(counts_past_bounds);
    RUN(bad_trees);
    RUN(over_node_quota);
    drop_store(target);
    return check_exit_status();
}
