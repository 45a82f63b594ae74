/* libFuzzer harness of the xenstore snapshot loader: any bytes are refused with one line and the store untouched, or load to a store that serves a request and saves to a snapshot that loads again. */
#include "fuzz.h"

#include "../../launcher/xenbus/xenstore_save.h"

static const struct xenstore_guest guest = { 1, "fuzz", 131072, NULL };
static struct xenstore xs, again;
static struct xenstore_domain_interface page;
static uint8_t *fresh;                 /* a fresh store's snapshot */
static size_t fresh_len;

static void told(void *arg, const char *path)
{
    (void)arg;
    FUZZ_ASSERT(path[0] == '/');
}

/* Does the store save to exactly the given bytes? */
static bool saves_as(const struct xenstore *s, const uint8_t *buf, size_t len)
{
    struct error e;
    uint8_t *now;
    size_t n;
    bool same;

    FUZZ_ASSERT(xenstore_save(s, &now, &n, &e) == 0);
    same = n == len && memcmp(now, buf, len) == 0;
    free(now);
    return same;
}

/* The guest, whose page comes back with the store, asks for its name. */
static void serve_one(void)
{
    static const char name[] = "name";
    struct xsd_sockmsg h = { XS_READ, 1, 0, sizeof(name) };
    char why[160] = "";
    int rc;

    memset(&page, 0, sizeof(page));
    xenstore_ring_init(&page);
    page.req_cons = page.req_prod = xs.req_cons;
    page.rsp_cons = page.rsp_prod = xs.rsp_prod;
    for (size_t i = 0; i < sizeof(h) + sizeof(name); i++)
        page.req[MASK_XENSTORE_IDX(page.req_prod + i)] =
            i < sizeof(h) ? ((const char *)&h)[i] : name[i - sizeof(h)];
    page.req_prod += sizeof(h) + sizeof(name);
    rc = xenstore_serve(&xs, &page, why, sizeof(why));
    FUZZ_ASSERT(rc == -1 || rc == 0 || rc == XENSTORE_NOTIFY);
    FUZZ_ASSERT(rc != -1 || (xs.broken && fuzz_one_line(why)));
    FUZZ_ASSERT(xs.out_len <= XS_OUT_BYTES && xs.in_used <= XS_MSG_MAX);
}

/* A loaded store's own snapshot loads into another fresh store as it was. */
static void saves_and_loads_again(void)
{
    struct error e;
    uint8_t *buf;
    size_t len;

    FUZZ_ASSERT(xenstore_save(&xs, &buf, &len, &e) == 0);
    FUZZ_ASSERT(xenstore_init(&again, &guest) == 0);
    FUZZ_ASSERT(xenstore_load(&again, buf, len, &e) == 0);
    FUZZ_ASSERT(saves_as(&again, buf, len));
    xenstore_free(&again);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct error e = { "" };

    FUZZ_ASSERT(xenstore_init(&xs, &guest) == 0);
    FUZZ_ASSERT(xenstore_watch_local(&xs, "/local/domain/1", told, NULL) == 0);
    if (!fresh) {
        struct error fe;

        FUZZ_ASSERT(xenstore_save(&xs, &fresh, &fresh_len, &fe) == 0);
    }
    if (xenstore_load(&xs, data, size, &e) == 0) {
        FUZZ_ASSERT(xs.tree.guest_nodes <= xs.tree.max_guest_nodes);
        saves_and_loads_again();
        serve_one();
    } else {
        FUZZ_ASSERT(fuzz_one_line(e.msg) && !strncmp(e.msg, "xenstore: ", 10));
        FUZZ_ASSERT(saves_as(&xs, fresh, fresh_len));
    }
    xenstore_free(&xs);
    return 0;
}
