/* libFuzzer harness of the OSC sequence filter (launcher/console/osc_filter.c), fed in pieces. */
#include "fuzz.h"

#include "../../launcher/console/osc_filter.h"

#define MAX_BYTES 1024
#define MAX_TAKEN 256

/* One run of the filter over the same bytes: what came out, and the
 * sequences taken, as they stood in the input. */
struct run {
    struct osc_guest_said said;
    uint8_t out[MAX_BYTES + OSC_HELD_MAX];
    size_t nout;
    char taken[MAX_TAKEN][OSC_HELD_MAX + 2];
    size_t ntaken, taken_bytes;
};

static struct run runs[3];

/* osc_guest_kinds' take, recording what it took. */
static bool record(struct run *r, size_t k, const char *payload)
{
    char *t;

    if (!osc_guest_kinds[k].take(&r->said, payload))
        return false;
    FUZZ_ASSERT(strlen(payload) <= osc_guest_kinds[k].payload_max);
    FUZZ_ASSERT(r->ntaken < MAX_TAKEN);
    t = r->taken[r->ntaken++];
    snprintf(t, OSC_HELD_MAX + 2, "%s%s;%s%c", OSC_PREFIX,
             osc_guest_kinds[k].name, payload, OSC_END);
    r->taken_bytes += strlen(t);
    return true;
}

static bool take0(void *arg, const char *payload) { return record(arg, 0, payload); }
static bool take1(void *arg, const char *payload) { return record(arg, 1, payload); }

static void run(struct run *r, const uint8_t *bytes, size_t n,
                const uint8_t *cuts, size_t ncuts)
{
    const struct osc_kind kinds[OSC_GUEST_KINDS] = {
        { osc_guest_kinds[0].name, osc_guest_kinds[0].payload_max, take0 },
        { osc_guest_kinds[1].name, osc_guest_kinds[1].payload_max, take1 },
    };
    struct osc_filter f;
    size_t at = 0;

    r->said = (struct osc_guest_said){ -1, NULL, NULL };
    r->nout = r->ntaken = r->taken_bytes = 0;
    osc_filter_init(&f, kinds, OSC_GUEST_KINDS, r);
    for (size_t i = 0; at < n; i++) {
        size_t piece = ncuts ? 1 + cuts[i % ncuts] % 32 : n - at;

        if (piece > n - at)
            piece = n - at;
        r->nout += osc_filter_feed(&f, bytes + at, piece, r->out + r->nout);
        FUZZ_ASSERT(r->nout <= at + piece);
        at += piece;
    }
    r->nout += osc_filter_flush(&f, r->out + r->nout);
}

static bool same(const struct run *a, const struct run *b)
{
    if (a->nout != b->nout || memcmp(a->out, b->out, a->nout) ||
        a->ntaken != b->ntaken || a->said.exit_status != b->said.exit_status)
        return false;
    for (size_t i = 0; i < a->ntaken; i++)
        if (strcmp(a->taken[i], b->taken[i]))
            return false;
    return true;
}

/* The input: a length byte, that many piece sizes, the output bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    size_t ncuts = fuzz_uint(&in, 1) % 16, n;
    const uint8_t *cuts = fuzz_bytes(&in, ncuts, &ncuts);
    const uint8_t *bytes = fuzz_bytes(&in, MAX_BYTES, &n);
    static const uint8_t one = 0;

    run(&runs[0], bytes, n, cuts, ncuts);
    run(&runs[1], bytes, n, NULL, 0);        /* all at once */
    run(&runs[2], bytes, n, &one, 1);        /* a byte at a time */
    /* Every byte is either passed through or part of a taken sequence. */
    FUZZ_ASSERT(runs[0].nout + runs[0].taken_bytes == n);
    if (!runs[0].ntaken)
        FUZZ_ASSERT(!memcmp(runs[0].out, bytes, n));
    /* Where the pieces were cut changes nothing. */
    FUZZ_ASSERT(same(&runs[0], &runs[1]) && same(&runs[0], &runs[2]));
    return 0;
}
