/*
 * Unit tests of the xenstore server (launcher/xenbus/xenstore.c, and its tree):
 * each drives xenstore_serve() through a page in plain memory as Linux's
 * xenbus would, writing requests into req[] and reading rsp[], and proves
 * one thing: the operations, relative paths, permissions, transactions,
 * watches, a full rsp[], and what a hostile guest may try.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "../../launcher/xenbus/xenstore.h"

static struct xenstore *xs;
static struct xenstore_domain_interface *page;
static char why[160];

struct msg {
    struct xsd_sockmsg h;
    char p[XENSTORE_PAYLOAD_MAX + 1];  /* NUL after the payload */
};

static int serve(void)
{
    return xenstore_serve(xs, page, why, sizeof(why));
}

static void setup(void)
{
    const struct xenstore_guest g = { 1, "perch", 262144, "00000000-0000-0000-0000-000000000001" };

    if (xs)
        xenstore_free(xs);
    free(xs);
    free(page);
    xs = malloc(sizeof(*xs));
    page = calloc(1, sizeof(*page));
    xenstore_ring_init(page);
    why[0] = '\0';
    if (xenstore_init(xs, &g))
        abort();
}

/* The guest writes bytes into req[] (no more than there is room for). */
static void put(const void *bytes, uint32_t n)
{
    const char *b = bytes;

    for (uint32_t i = 0; i < n; i++)
        page->req[MASK_XENSTORE_IDX(page->req_prod + i)] = b[i];
    page->req_prod += n;
}

static void send_msg(uint32_t type, uint32_t tx, uint32_t req_id,
                     const void *payload, uint32_t len)
{
    struct xsd_sockmsg h = { type, req_id, tx, len };

    put(&h, sizeof(h));
    put(payload, len);
}

static int serve(void);

/* A message longer than req[]: in pieces, the server taking each, as
 * xenbus waits for room. */
static void send_long(uint32_t type, uint32_t tx, uint32_t req_id,
                      const void *payload, uint32_t len)
{
    struct xsd_sockmsg h = { type, req_id, tx, len };
    const char *p = payload;

    put(&h, sizeof(h));
    while (len) {
        uint32_t room = XENSTORE_RING_SIZE - (page->req_prod - page->req_cons);
        uint32_t n = len < room ? len : room;

        put(p, n);
        p += n;
        len -= n;
        if (len && serve() < 0)
            return;
    }
}

/* One whole message from rsp[], if there is one. */
static int recv_msg(struct msg *m)
{
    uint32_t avail = page->rsp_prod - page->rsp_cons;
    uint8_t *d = (uint8_t *)m;

    if (avail < sizeof(m->h))
        return 0;
    for (uint32_t i = 0; i < sizeof(m->h); i++)
        d[i] = page->rsp[MASK_XENSTORE_IDX(page->rsp_cons + i)];
    if (avail < sizeof(m->h) + m->h.len)
        return 0;
    for (uint32_t i = 0; i < m->h.len; i++)
        m->p[i] = page->rsp[MASK_XENSTORE_IDX(page->rsp_cons + sizeof(m->h) + i)];
    m->p[m->h.len] = '\0';
    page->rsp_cons += sizeof(m->h) + m->h.len;
    return 1;
}

static struct msg events[8];
static unsigned nevents;

/* A request and its reply; watch events on the way are kept in events[]. */
static struct msg *request(uint32_t type, uint32_t tx, const void *payload,
                           uint32_t len)
{
    static struct msg m;
    static uint32_t req_id = 100;

    send_long(type, tx, ++req_id, payload, len);
    if (serve() < 0)
        return NULL;
    while (recv_msg(&m)) {
        if (m.h.type != XS_WATCH_EVENT)
            return m.h.req_id == req_id && m.h.tx_id == tx ? &m : NULL;
        if (nevents < 8)
            events[nevents++] = m;
    }
    return NULL;
}

/* A request whose payload is a C string and its NUL. */
static struct msg *req_str(uint32_t type, uint32_t tx, const char *s)
{
    return request(type, tx, s, strlen(s) + 1);
}

static struct msg *req_write(uint32_t tx, const char *path, const char *value)
{
    char buf[XENSTORE_PAYLOAD_MAX];
    size_t n = strlen(path) + 1;

    memcpy(buf, path, n);
    memcpy(buf + n, value, strlen(value));
    return request(XS_WRITE, tx, buf, n + strlen(value));
}

static int is_error(const struct msg *m, const char *name)
{
    return m && m->h.type == XS_ERROR && strcmp(m->p, name) == 0;
}

static int is_ok(const struct msg *m, uint32_t type)
{
    return m && m->h.type == type && m->h.len == 3 && strcmp(m->p, "OK") == 0;
}

static int is_value(const struct msg *m, const char *value)
{
    return m && m->h.type == XS_READ && m->h.len == strlen(value) &&
           memcmp(m->p, value, m->h.len) == 0;
}

static void toolstack_nodes_are_there(void)
{
    char buf[64];
    size_t len;

    setup();
    CHECK(is_value(req_str(XS_READ, 0, "name"), "perch"));
    CHECK(is_value(req_str(XS_READ, 0, "/local/domain/1/domid"), "1"));
    CHECK(is_value(req_str(XS_READ, 0, "memory/target"), "262144"));
    CHECK(is_value(req_str(XS_READ, 0, "vm"), "/vm/00000000-0000-0000-0000-000000000001"));
    CHECK(is_value(req_str(XS_READ, 0, "control/platform-feature-xs_reset_watches"), "1"));
    CHECK(xenstore_read(xs, "/local/domain/0/name", buf, sizeof(buf), &len) == 0);
    CHECK(len == 8 && strcmp(buf, "Domain-0") == 0);
}

/* A relative path is under /local/domain/<domid>; the value is the bytes
 * after the path's NUL, with no NUL of its own. */
static void write_relative_read_absolute(void)
{
    struct msg *m;

    setup();
    CHECK(is_ok(req_write(0, "data/greeting", "hello"), XS_WRITE));
    m = req_str(XS_READ, 0, "/local/domain/1/data/greeting");
    CHECK(is_value(m, "hello"));
    CHECK(is_ok(req_write(0, "data/greeting", ""), XS_WRITE));
    CHECK(is_value(req_str(XS_READ, 0, "data/greeting"), ""));
}

static void mkdir_directory_rm(void)
{
    struct msg *m;

    setup();
    CHECK(is_ok(req_str(XS_MKDIR, 0, "data/d"), XS_MKDIR));
    CHECK(is_ok(req_str(XS_MKDIR, 0, "data/d"), XS_MKDIR));   /* exists: fine */
    CHECK(is_ok(req_write(0, "data/d/b/deep", "1"), XS_WRITE)); /* parents made */
    CHECK(is_ok(req_write(0, "data/d/a", "2"), XS_WRITE));
    m = req_str(XS_DIRECTORY, 0, "data/d");
    CHECK(m && m->h.type == XS_DIRECTORY && m->h.len == 4 && memcmp(m->p, "b\0a\0", 4) == 0);
    CHECK(is_value(req_str(XS_READ, 0, "data/d/b"), ""));
    CHECK(is_ok(req_str(XS_RM, 0, "data/d"), XS_RM));
    CHECK(is_error(req_str(XS_READ, 0, "data/d/b/deep"), "ENOENT"));
    CHECK(is_ok(req_str(XS_RM, 0, "data/d"), XS_RM));          /* absent: fine */
    CHECK(is_error(req_str(XS_RM, 0, "data/d/x"), "ENOENT"));  /* no parent */
    CHECK(is_error(req_str(XS_RM, 0, "/"), "EINVAL"));
}

/* The guest writes only what it owns, reads only what it was given. */
static void permissions(void)
{
    setup();
    CHECK(is_error(req_write(0, "/local/domain/0/x", "1"), "EACCES"));
    CHECK(is_error(req_write(0, "name", "evil"), "EACCES"));
    CHECK(is_error(req_write(0, "newdir/x", "1"), "EACCES"));    /* home is dom0's */
    CHECK(is_error(req_str(XS_MKDIR, 0, "memory/x"), "EACCES"));
    CHECK(is_error(req_str(XS_RM, 0, "memory"), "EACCES"));
    CHECK(is_error(req_str(XS_READ, 0, "/local/domain/0/name"), "EACCES"));
    CHECK(is_error(req_str(XS_READ, 0, "/local/domain/0/nothing"), "EACCES"));
    CHECK(is_error(req_str(XS_READ, 0, "data/nothing"), "ENOENT"));
    CHECK(is_ok(req_write(0, "control/shutdown", ""), XS_WRITE));
    CHECK(is_error(req_str(XS_SET_PERMS, 0, "data"), "EACCES"));
}

/* A back end's directory, given to the guest to read. */
static void backend_dir_given(void)
{
    struct msg *m;

    setup();
    CHECK(xenstore_write(xs, "/local/domain/0/backend/vbd/1/51712/state", "2", 1) == 0);
    CHECK(is_error(req_str(XS_READ, 0, "/local/domain/0/backend/vbd/1/51712/state"), "EACCES"));
    CHECK(xenstore_set_perms(xs, "/local/domain/0/backend/vbd/1/51712", 0, XS_ACCESS_READ) == 0);
    CHECK(xenstore_set_perms(xs, "/local/domain/0/backend/vbd/1/51712/state", 0, XS_ACCESS_READ) == 0);
    CHECK(is_value(req_str(XS_READ, 0, "/local/domain/0/backend/vbd/1/51712/state"), "2"));
    CHECK(is_error(req_write(0, "/local/domain/0/backend/vbd/1/51712/state", "6"), "EACCES"));
    m = req_str(XS_GET_PERMS, 0, "/local/domain/0/backend/vbd/1/51712");
    CHECK(m && m->h.type == XS_GET_PERMS && m->h.len == 6 && memcmp(m->p, "n0\0r1\0", 6) == 0);
    m = req_str(XS_GET_PERMS, 0, "data");
    CHECK(m && m->h.len == 3 && memcmp(m->p, "n1\0", 3) == 0);
}

static void get_domain_path(void)
{
    struct msg *m;

    setup();
    m = req_str(XS_GET_DOMAIN_PATH, 0, "7");
    CHECK(m && m->h.type == XS_GET_DOMAIN_PATH && strcmp(m->p, "/local/domain/7") == 0);
    CHECK(m->h.len == sizeof("/local/domain/7"));
    CHECK(is_error(req_str(XS_GET_DOMAIN_PATH, 0, "x"), "EINVAL"));
    CHECK(is_error(req_str(XS_GET_DOMAIN_PATH, 0, "70000"), "EINVAL"));
}

static uint32_t start(void)
{
    struct msg *m = req_str(XS_TRANSACTION_START, 0, "");

    return m && m->h.type == XS_TRANSACTION_START ? (uint32_t)strtoul(m->p, NULL, 10) : 0;
}

/* Inside, the transaction sees its own changes; outside nobody does
 * until "T". */
static void transaction_commit(void)
{
    uint32_t tx;

    setup();
    CHECK((tx = start()) != 0);
    CHECK(is_ok(req_write(tx, "data/t", "1"), XS_WRITE));
    CHECK(is_value(req_str(XS_READ, tx, "data/t"), "1"));
    CHECK(is_error(req_str(XS_READ, 0, "data/t"), "ENOENT"));
    CHECK(is_error(req_str(XS_TRANSACTION_START, tx, ""), "EBUSY"));
    CHECK(is_ok(req_str(XS_TRANSACTION_END, tx, "T"), XS_TRANSACTION_END));
    CHECK(is_value(req_str(XS_READ, 0, "data/t"), "1"));
    CHECK(is_error(req_str(XS_READ, tx, "data/t"), "ENOENT"));  /* tx gone */
}

static void transaction_abort(void)
{
    uint32_t tx;

    setup();
    CHECK((tx = start()) != 0);
    CHECK(is_ok(req_write(tx, "data/t", "1"), XS_WRITE));
    CHECK(is_error(req_str(XS_TRANSACTION_END, tx, "X"), "EINVAL"));
    CHECK(is_ok(req_str(XS_TRANSACTION_END, tx, "F"), XS_TRANSACTION_END));
    CHECK(is_error(req_str(XS_READ, 0, "data/t"), "ENOENT"));
    CHECK(is_error(req_str(XS_TRANSACTION_END, 0, "T"), "ENOENT"));
}

/* The store changed underneath: EAGAIN, and nothing of it applied. */
static void transaction_eagain(void)
{
    uint32_t tx;

    setup();
    CHECK((tx = start()) != 0);
    CHECK(is_ok(req_write(tx, "data/t", "1"), XS_WRITE));
    CHECK(xenstore_write(xs, "/local/domain/0/other", "x", 1) == 0);
    CHECK(is_error(req_str(XS_TRANSACTION_END, tx, "T"), "EAGAIN"));
    CHECK(is_error(req_str(XS_READ, 0, "data/t"), "ENOENT"));
}

/* Xen's quota: ten transactions at once. */
static void transactions_bounded(void)
{
    setup();
    for (unsigned i = 0; i < XS_TRANSACTIONS_MAX; i++)
        CHECK(start() != 0);
    CHECK(is_error(req_str(XS_TRANSACTION_START, 0, ""), "ENOSPC"));
}

static int is_event(const struct msg *m, const char *path, const char *token)
{
    size_t n = strlen(path) + 1;

    return m->h.type == XS_WATCH_EVENT && m->h.len == n + strlen(token) + 1 &&
           strcmp(m->p, path) == 0 && strcmp(m->p + n, token) == 0;
}

static void watch_fires_now_and_below(void)
{
    char w[] = "device\0tok";
    struct msg m;

    setup();
    nevents = 0;
    CHECK(is_ok(request(XS_WATCH, 0, w, sizeof(w)), XS_WATCH));
    CHECK(recv_msg(&m) && is_event(&m, "device", "tok"));   /* at once */
    CHECK(xenstore_write(xs, "/local/domain/1/device/vbd/51712/state", "1", 1) == 0);
    CHECK(serve() == XENSTORE_NOTIFY);
    CHECK(recv_msg(&m) && is_event(&m, "device/vbd/51712/state", "tok"));
    CHECK(xenstore_write(xs, "/local/domain/1/data/x", "1", 1) == 0);  /* not below */
    CHECK(serve() == 0 && !recv_msg(&m));
    CHECK(is_ok(request(XS_UNWATCH, 0, w, sizeof(w)), XS_UNWATCH));
    CHECK(xenstore_write(xs, "/local/domain/1/device/y", "1", 1) == 0);
    CHECK(serve() == 0 && !recv_msg(&m));
    CHECK(is_error(request(XS_UNWATCH, 0, w, sizeof(w)), "ENOENT"));
    CHECK(nevents == 0);
}

/* A removal fires watches below it too; a transaction's changes fire at
 * commit, not before. */
static void watch_rm_and_transaction(void)
{
    char w[] = "/local/domain/1/data/a/b\0abs";
    uint32_t tx;
    struct msg m;

    setup();
    CHECK(is_ok(req_write(0, "data/a/b", "1"), XS_WRITE));
    CHECK(is_ok(request(XS_WATCH, 0, w, sizeof(w)), XS_WATCH));
    CHECK(recv_msg(&m) && is_event(&m, "/local/domain/1/data/a/b", "abs"));
    CHECK((tx = start()) != 0);
    CHECK(is_ok(req_str(XS_RM, tx, "data/a"), XS_RM));
    CHECK(!recv_msg(&m));
    nevents = 0;
    CHECK(is_ok(req_str(XS_TRANSACTION_END, tx, "T"), XS_TRANSACTION_END));
    CHECK((recv_msg(&m) && is_event(&m, "/local/domain/1/data/a/b", "abs")) ||
          (nevents == 1 && is_event(&events[0], "/local/domain/1/data/a/b", "abs")));
}

static int called;
static char called_path[128];

static void backend_told(void *arg, const char *path)
{
    (void)arg;
    called++;
    snprintf(called_path, sizeof(called_path), "%s", path);
}

/* A back end is told when the front end changes its state node, from
 * xenstore_serve(), once the change is made. */
static void local_watch_callback(void)
{
    const char *fe = "/local/domain/1/device/vbd/51712";
    char buf[8];
    size_t len;

    setup();
    CHECK(xenstore_mkdir(xs, fe) == 0);
    CHECK(xenstore_set_perms(xs, fe, 1, 0) == 0);   /* the guest's */
    CHECK(xenstore_watch_local(xs, "/local/domain/1/device/vbd/51712/state",
                               backend_told, NULL) == 0);
    called = 0;
    CHECK(serve() == 0 && called == 1);              /* once at first */
    CHECK(is_ok(req_write(0, "device/vbd/51712/state", "3"), XS_WRITE));
    CHECK(called == 2 && strcmp(called_path, "/local/domain/1/device/vbd/51712/state") == 0);
    CHECK(xenstore_read(xs, called_path, buf, sizeof(buf), &len) == 0 && strcmp(buf, "3") == 0);
    CHECK(is_ok(req_write(0, "device/vbd/51712/other", "3"), XS_WRITE));
    CHECK(called == 2);
}

/* rsp[] full: the replies wait and come, in order, once the guest reads. */
static void full_rsp_held_back(void)
{
    char path[] = "data/big";
    char value[900];
    struct msg m;

    setup();
    memset(value, 'v', sizeof(value));
    value[sizeof(value) - 1] = '\0';
    CHECK(is_ok(req_write(0, path, value), XS_WRITE));
    for (uint32_t i = 0; i < 3; i++)
        send_msg(XS_READ, 0, 1 + i, path, sizeof(path));
    CHECK(serve() == XENSTORE_NOTIFY);
    CHECK(page->rsp_prod - page->rsp_cons == XENSTORE_RING_SIZE);
    CHECK(recv_msg(&m) && m.h.req_id == 1 && m.h.len == sizeof(value) - 1);
    CHECK(!recv_msg(&m));                            /* the second, cut */
    CHECK(serve() == XENSTORE_NOTIFY);
    CHECK(page->rsp_prod - page->rsp_cons <= XENSTORE_RING_SIZE);
    CHECK(recv_msg(&m) && m.h.req_id == 2);
    CHECK(serve() == XENSTORE_NOTIFY);
    CHECK(recv_msg(&m) && m.h.req_id == 3 && memcmp(m.p, value, m.h.len) == 0);
    CHECK(serve() == 0);
}

/* A request longer than req[] arrives in pieces. */
static void request_larger_than_ring(void)
{
    char buf[3000];
    struct msg m;

    setup();
    memset(buf, 'x', sizeof(buf));
    memcpy(buf, "data/long", 10);
    send_long(XS_WRITE, 0, 9, buf, sizeof(buf));
    CHECK(serve() == XENSTORE_NOTIFY);
    CHECK(recv_msg(&m) && is_ok(&m, XS_WRITE) && m.h.req_id == 9);
    CHECK(xenstore_read(xs, "/local/domain/1/data/long", buf, sizeof(buf), &(size_t){0}) == 0);
    CHECK(strlen(buf) == sizeof(buf) - 10);
}

static void unsupported_messages(void)
{
    setup();
    CHECK(is_error(req_str(XS_INTRODUCE, 0, "2"), "EACCES"));
    CHECK(is_error(req_str(XS_RELEASE, 0, "2"), "EACCES"));
    CHECK(is_error(req_str(XS_SET_TARGET, 0, "2"), "EACCES"));
    CHECK(is_error(req_str(XS_CONTROL, 0, "x"), "EACCES"));
    CHECK(is_error(req_str(XS_WATCH_EVENT, 0, "x"), "ENOSYS"));
    CHECK(is_error(req_str(20, 0, "x"), "ENOSYS"));
    CHECK(is_error(req_str(9999, 0, "x"), "ENOSYS"));
    CHECK(is_error(req_str(XS_READ, 77, "name"), "ENOENT"));  /* no such tx */
}

/* DIRECTORY_PART: generation, names from the offset, an empty name at
 * the end. */
static void directory_part(void)
{
    struct msg *m;
    char *names;

    setup();
    CHECK(is_ok(req_write(0, "data/p/aa", ""), XS_WRITE));
    CHECK(is_ok(req_write(0, "data/p/b", ""), XS_WRITE));
    m = request(XS_DIRECTORY_PART, 0, "data/p\0" "0", 9);
    CHECK(m && m->h.type == XS_DIRECTORY_PART);
    names = m->p + strlen(m->p) + 1;
    CHECK(m->h.len == strlen(m->p) + 1 + 6 && memcmp(names, "aa\0b\0\0", 6) == 0);
    m = request(XS_DIRECTORY_PART, 0, "data/p\0" "3", 9);
    CHECK(m && memcmp(m->p + strlen(m->p) + 1, "b\0\0", 3) == 0);
    m = request(XS_DIRECTORY_PART, 0, "data/p\0" "99", 10);
    CHECK(m && m->h.len == strlen(m->p) + 2);
    CHECK(is_error(request(XS_DIRECTORY_PART, 0, "data/p\0" "z", 9), "EINVAL"));
}

static void reset_watches(void)
{
    char w[] = "data\0t";
    struct msg m;
    uint32_t tx;

    setup();
    CHECK(is_ok(request(XS_WATCH, 0, w, sizeof(w)), XS_WATCH));
    CHECK(recv_msg(&m));
    CHECK((tx = start()) != 0);
    CHECK(is_ok(req_str(XS_RESET_WATCHES, 0, ""), XS_RESET_WATCHES));
    CHECK(xs->nwatches == 0);
    CHECK(is_error(req_str(XS_TRANSACTION_END, tx, "T"), "ENOENT"));
}

/* --- What a hostile guest may try ------------------------------------------- */

static void req_prod_far_ahead_breaks_ring(void)
{
    setup();
    page->req_prod = page->req_cons + XENSTORE_RING_SIZE + 1;
    CHECK(serve() == -1);
    CHECK_CONTAINS(why, "req_prod");
    CHECK(page->error == XENSTORE_ERROR_RINGIDX);
    CHECK(serve() == -1);                            /* stays broken */
}

static void full_req_ring_is_valid(void)
{
    char path[] = "name";
    struct msg m;

    setup();
    for (int i = 0; i < 48; i++)                     /* 48 * 21 bytes */
        send_msg(XS_READ, 0, i, path, sizeof(path));
    send_msg(XS_READ, 0, 48, NULL, 0);               /* 16: exactly full */
    CHECK(page->req_prod - page->req_cons == XENSTORE_RING_SIZE);
    CHECK(serve() == XENSTORE_NOTIFY);
    CHECK(recv_msg(&m) && m.h.req_id == 0 && is_value(&m, "perch"));
}

static void rsp_cons_lie_breaks_ring(void)
{
    setup();
    page->rsp_cons = 5;                              /* ahead of rsp_prod */
    CHECK(serve() == -1);
    CHECK_CONTAINS(why, "rsp_cons");
}

static void payload_over_4096_breaks_ring(void)
{
    struct xsd_sockmsg h = { XS_WRITE, 1, 0, XENSTORE_PAYLOAD_MAX + 1 };

    setup();
    put(&h, sizeof(h));
    CHECK(serve() == -1);
    CHECK_CONTAINS(why, "payload");
    CHECK(page->error == XENSTORE_ERROR_PROTO);
}

static void bad_paths_are_einval(void)
{
    char longpath[XENSTORE_ABS_PATH_MAX + 8];

    setup();
    CHECK(is_error(request(XS_READ, 0, "name", 4), "EINVAL"));       /* no NUL */
    CHECK(is_error(request(XS_READ, 0, "na\0me", 6), "EINVAL"));     /* two */
    CHECK(is_error(request(XS_WRITE, 0, "name", 4), "EINVAL"));
    CHECK(is_error(req_str(XS_READ, 0, "data//x"), "EINVAL"));
    CHECK(is_error(req_str(XS_READ, 0, "data/"), "EINVAL"));
    CHECK(is_error(req_str(XS_READ, 0, "data/a b"), "EINVAL"));
    CHECK(is_error(req_str(XS_READ, 0, ""), "EINVAL"));
    memset(longpath, 'a', sizeof(longpath));
    longpath[0] = '/';
    longpath[XENSTORE_ABS_PATH_MAX + 1] = '\0';
    CHECK(is_error(req_str(XS_READ, 0, longpath), "EINVAL"));
    longpath[XENSTORE_ABS_PATH_MAX] = '\0';          /* 3072: the limit */
    CHECK(is_error(req_str(XS_READ, 0, longpath), "EACCES"));
}

/* 128 watches and no more; a storm of events with nobody reading rsp[]
 * drops events and holds the queue to its bound. */
static void watch_storm_bounded(void)
{
    char w[32];
    int n;

    setup();
    for (unsigned i = 0; i < XS_WATCHES_MAX; i++) {
        n = snprintf(w, sizeof(w), "data%c%u", '\0', i) + 1;
        send_msg(XS_WATCH, 0, i, w, n);
        CHECK(serve() >= 0);
        page->rsp_cons = page->rsp_prod;             /* read and ignore */
    }
    CHECK(xs->nwatches == XS_WATCHES_MAX);
    CHECK(is_error(request(XS_WATCH, 0, "data\0x", 7), "E2BIG"));
    for (int i = 0; i < 50; i++)
        CHECK(xenstore_write(xs, "/local/domain/1/data/x", "1", 1) == 0);
    CHECK(xs->events_dropped > 0);
    CHECK(xs->out_len <= XS_OUT_BYTES);
    CHECK(serve() >= 0);
    CHECK(page->rsp_prod - page->rsp_cons <= XENSTORE_RING_SIZE);
}

/* A guest that never reads rsp[] stalls itself, not the Launcher: no
 * request is taken while the queue cannot hold its reply. */
static void unread_replies_stop_intake(void)
{
    char path[] = "name";

    setup();
    for (int round = 0; round < 200; round++) {
        while (XENSTORE_RING_SIZE - (page->req_prod - page->req_cons) >= 21)
            send_msg(XS_READ, 0, round, path, sizeof(path));
        CHECK(serve() >= 0);
    }
    CHECK(page->req_prod - page->req_cons > 0);
    CHECK(xs->out_len <= XS_OUT_BYTES);
}

static void guest_quota(void)
{
    setup();
    xs->tree.max_guest_nodes = xs->tree.guest_nodes + 2;
    CHECK(is_ok(req_write(0, "data/q1", "1"), XS_WRITE));
    CHECK(is_error(req_write(0, "data/q2/q3", "1"), "ENOSPC"));   /* 2 more */
    CHECK(is_error(req_str(XS_READ, 0, "data/q2"), "ENOENT"));    /* none made */
    CHECK(is_ok(req_write(0, "data/q2", "1"), XS_WRITE));
    xs->tree.max_guest_bytes = xs->tree.guest_bytes + 3;
    CHECK(is_error(req_write(0, "data/q2", "12345"), "ENOSPC"));
    CHECK(is_ok(req_write(0, "data/q2", "1234"), XS_WRITE));
}

int main(void)
{
    RUN(toolstack_nodes_are_there);
    RUN(write_relative_read_absolute);
    RUN(mkdir_directory_rm);
    RUN(permissions);
    RUN(backend_dir_given);
    RUN(get_domain_path);
    RUN(transaction_commit);
    RUN(transaction_abort);
    RUN(transaction_eagain);
    RUN(transactions_bounded);
    RUN(watch_fires_now_and_below);
    RUN(watch_rm_and_transaction);
    RUN(local_watch_callback);
    RUN(full_rsp_held_back);
    RUN(request_larger_than_ring);
    RUN(unsupported_messages);
    RUN(directory_part);
    RUN(reset_watches);
    RUN(req_prod_far_ahead_breaks_ring);
    RUN(full_req_ring_is_valid);
    RUN(rsp_cons_lie_breaks_ring);
    RUN(payload_over_4096_breaks_ring);
    RUN(bad_paths_are_einval);
    RUN(watch_storm_bounded);
    RUN(unread_replies_stop_intake);
    RUN(guest_quota);
    xenstore_free(xs);
    free(xs);
    free(page);
    return check_exit_status();
}
