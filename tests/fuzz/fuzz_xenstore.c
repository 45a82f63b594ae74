/* libFuzzer harness of the xenstore server: a guest writing whatever it likes into its xenstore page, a back end using the store meanwhile. */
#include "fuzz.h"

#include "../../launcher/xenbus/xenstore.h"

#define MAX_STEPS 96

static struct xenstore xs;
static struct xenstore_domain_interface page;

static void put(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        page.req[MASK_XENSTORE_IDX(page.req_prod + i)] = (char)p[i];
    page.req_prod += (uint32_t)n;
}

/* Room the guest's own view leaves in req[] (a lying guest may have none). */
static uint32_t req_room(void)
{
    uint32_t used = page.req_prod - page.req_cons;

    return used > XENSTORE_RING_SIZE ? 0 : XENSTORE_RING_SIZE - used;
}

/* A well-formed message of any type: header, then a payload of strings
 * picked from a few that reach the tree, or raw bytes. */
static void request(struct fuzz_in *in)
{
    static const char *const words[] = {
        "data", "data/a", "device/vbd/51712/state", "/local/domain/0/backend",
        "name", "/", "@releaseDomain", "control/shutdown", "T", "F", "0", "1",
        "tok", "",
    };
    uint8_t payload[XENSTORE_PAYLOAD_MAX];
    struct xsd_sockmsg h;
    size_t len = 0, got;
    unsigned nwords = (unsigned)fuzz_uint(in, 1) % 4;

    for (unsigned i = 0; i < nwords; i++) {
        const char *w = words[fuzz_uint(in, 1) % (sizeof(words) / sizeof(words[0]))];

        memcpy(payload + len, w, strlen(w) + 1);
        len += strlen(w) + 1;
    }
    const uint8_t *raw = fuzz_bytes(in, fuzz_uint(in, 1) % 64, &got);
    memcpy(payload + len, raw, got);
    len += got;
    h.type = (uint32_t)fuzz_uint(in, 1) % 24;
    h.req_id = 7;
    h.tx_id = (uint32_t)fuzz_uint(in, 1) % 4;
    h.len = (uint32_t)len;
    if (req_room() < sizeof(h) + len)
        return;
    put((const uint8_t *)&h, sizeof(h));
    put(payload, len);
}

static void step(struct fuzz_in *in)
{
    unsigned op = (unsigned)fuzz_uint(in, 1);
    char why[160] = "";
    size_t n;
    const uint8_t *p;
    int rc;

    switch (op % 8) {
    case 0: case 1:
        request(in);
        break;
    case 2:                                /* raw bytes into req[] */
        p = fuzz_bytes(in, fuzz_uint(in, 1) % 64, &n);
        if (req_room() >= n)
            put(p, n);
        break;
    case 3:                                /* the guest reads rsp[], or lies */
        if (op & 0x80)
            page.rsp_cons = (uint32_t)fuzz_uint(in, 4);
        else
            page.rsp_cons = page.rsp_prod;
        break;
    case 4:
        page.req_prod += (uint32_t)fuzz_uint(in, 2);
        break;
    case 5:                                /* a back end at work */
        xenstore_write(&xs, op & 0x80 ? "/local/domain/1/device/vbd/51712/state"
                                      : "/local/domain/1/data/a", "4", 1);
        break;
    default:
        rc = xenstore_serve(&xs, &page, why, sizeof(why));
        FUZZ_ASSERT(rc == -1 || rc == 0 || rc == XENSTORE_NOTIFY);
        FUZZ_ASSERT(rc != -1 || (xs.broken && fuzz_one_line(why)));
        FUZZ_ASSERT(rc == -1 || xs.rsp_prod - page.rsp_cons <= XENSTORE_RING_SIZE);
        FUZZ_ASSERT(page.rsp_prod == xs.rsp_prod && page.req_cons == xs.req_cons);
        break;
    }
    FUZZ_ASSERT(xs.out_len <= XS_OUT_BYTES && xs.nwatches <= XS_WATCHES_MAX);
    FUZZ_ASSERT(xs.tree.guest_nodes <= xs.tree.max_guest_nodes);
}

static void told(void *arg, const char *path)
{
    (void)arg;
    FUZZ_ASSERT(path[0] == '/');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct xenstore_guest g = { 1, "fuzz", 131072, NULL };
    struct fuzz_in in = { data, size };

    memset(&page, 0, sizeof(page));
    xenstore_ring_init(&page);
    FUZZ_ASSERT(xenstore_init(&xs, &g) == 0);
    FUZZ_ASSERT(xenstore_mkdir(&xs, "/local/domain/1/device/vbd/51712") == 0);
    FUZZ_ASSERT(xenstore_set_perms(&xs, "/local/domain/1/device/vbd/51712", 1, 0) == 0);
    FUZZ_ASSERT(xenstore_watch_local(&xs, "/local/domain/1/device", told, NULL) == 0);
    for (int i = 0; i < MAX_STEPS && in.n; i++)
        step(&in);
    xenstore_free(&xs);
    return 0;
}
