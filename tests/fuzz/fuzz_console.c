/* libFuzzer harness of the console's ring consumers, early and hvc0, without the console thread. */
#include "fuzz.h"

#include "../../launcher/console/console.h"

#define MAX_STEPS 64
#define MAX_OUT   (MAX_STEPS * (PERCH_CONSOLE_RING_BYTES + XENCONS_OUT_BYTES))

static struct perch_shared shared;
static struct xencons_interface page;
static struct console con;
/* What the guest made available, in the order perch must take it, and
 * what perch's output got. */
static uint8_t expected[MAX_OUT], output[MAX_OUT];
static size_t nexpected, noutput;
static bool broken;

static void sink(void *arg, const uint8_t *bytes, size_t n)
{
    (void)arg;
    FUZZ_ASSERT(noutput + n <= MAX_OUT);
    memcpy(output + noutput, bytes, n);
    noutput += n;
}

/* console_start() without the thread: the state console_drain() uses. */
static void start(void)
{
    memset(&shared, 0, sizeof(shared));
    memset(&page, 0, sizeof(page));
    memset(&con, 0, sizeof(con));
    con.cfg.shared = &shared;
    con.cfg.hvc_page = &page;
    con.cfg.output = sink;
    con.stop_fd = -1;
    con.said = (struct osc_guest_said){ -1, NULL, NULL };
    osc_filter_init(&con.osc_early, osc_guest_kinds, OSC_GUEST_KINDS, &con.said);
    osc_filter_init(&con.osc_hvc, osc_guest_kinds, OSC_GUEST_KINDS, &con.said);
    hvc_ring_init(&con.hvc, &page);
    pthread_mutex_init(&con.lock, NULL);
    nexpected = noutput = 0;
    broken = false;
}

/* The model of one ring: its bytes from cons to prod, or false if the
 * producer is more than a ring ahead. */
static bool take(const volatile uint8_t *ring, uint32_t size, uint32_t cons,
                 uint32_t prod)
{
    if (prod - cons > size)
        return false;
    for (uint32_t i = cons; i != prod; i++)
        expected[nexpected++] = ring[i % size];
    return true;
}

/* What the next drain must do: take both rings, the early one first, or
 * fail at the first corrupted one (or at once, once broken). */
static bool model_drain(void)
{
    bool ok = !broken &&
              take(shared.console_ring, PERCH_CONSOLE_RING_BYTES, con.cons,
                   shared.console_prod) &&
              take((const volatile uint8_t *)page.out, XENCONS_OUT_BYTES,
                   con.hvc.out_cons, page.out_prod);

    broken |= !ok;
    return ok;
}

static void drain(void)
{
    bool ok = model_drain();   /* before the indices move */

    FUZZ_ASSERT(console_drain(&con) == (ok ? 0 : -1));
    FUZZ_ASSERT(!broken || con.problem[0]);
    if (ok)
        FUZZ_ASSERT(con.cons == shared.console_prod &&
                    shared.console_cons == con.cons &&
                    con.hvc.out_cons == page.out_prod &&
                    page.out_cons == page.out_prod);
}

/* Input into in[]: never more than there is room for, never past a
 * corrupted in_cons. */
static void input(const uint8_t *p, size_t n)
{
    uint32_t queued = con.hvc.in_prod - page.in_cons;
    char problem[128];
    long rc = hvc_ring_write(&con.hvc, p, n, problem, sizeof(problem));

    if (queued > XENCONS_IN_BYTES) {
        FUZZ_ASSERT(rc == -1);
        return;
    }
    FUZZ_ASSERT(rc >= 0 && (size_t)rc <= n && rc <= XENCONS_IN_BYTES - queued);
    FUZZ_ASSERT(page.in_prod == con.hvc.in_prod);
    for (long i = 0; i < rc; i++)
        FUZZ_ASSERT((uint8_t)page.in[(page.in_prod - rc + i) % XENCONS_IN_BYTES] == p[i]);
}

static void step(struct fuzz_in *in)
{
    unsigned op = (unsigned)fuzz_uint(in, 1);
    size_t n;
    const uint8_t *p;

    switch (op % 8) {
    case 0:                                /* the Host writes early output */
        p = fuzz_bytes(in, fuzz_uint(in, 2) % (PERCH_CONSOLE_RING_BYTES + 1), &n);
        for (size_t i = 0; i < n; i++)
            shared.console_ring[(shared.console_prod + i) % PERCH_CONSOLE_RING_BYTES] = p[i];
        shared.console_prod += (uint32_t)n;
        break;
    case 1:                                /* the guest writes hvc0 output */
        p = fuzz_bytes(in, fuzz_uint(in, 2) % (XENCONS_OUT_BYTES + 1), &n);
        for (size_t i = 0; i < n; i++)
            page.out[(page.out_prod + i) % XENCONS_OUT_BYTES] = (char)p[i];
        page.out_prod += (uint32_t)n;
        break;
    case 2:                                /* any index, as the guest may */
        shared.console_prod = (uint32_t)fuzz_uint(in, 4);
        break;
    case 3:
        page.out_prod = (uint32_t)fuzz_uint(in, 4);
        break;
    case 4:                                /* the consumers' copies: ignored */
        shared.console_cons = (uint32_t)fuzz_uint(in, 4);
        page.out_cons = (uint32_t)fuzz_uint(in, 4);
        break;
    case 5:
        drain();
        break;
    case 6:
        p = fuzz_bytes(in, fuzz_uint(in, 2) % (2 * XENCONS_IN_BYTES), &n);
        input(p, n);
        break;
    default:                               /* the guest takes input, or lies */
        page.in_cons = op & 0x80 ? (uint32_t)fuzz_uint(in, 4)
                                 : page.in_cons + (uint32_t)fuzz_uint(in, 1);
        break;
    }
    FUZZ_ASSERT(hvc_ring_input_queued(&con.hvc) <= XENCONS_IN_BYTES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    bool ok;

    start();
    for (int i = 0; i < MAX_STEPS && in.n; i++)
        step(&in);
    /* console_stop(): the last drain, then what the filters hold. */
    ok = model_drain();
    FUZZ_ASSERT(console_stop(&con) == (ok ? 0 : -1));
    /* Only the sequences perch takes out may be missing. */
    FUZZ_ASSERT(noutput <= nexpected);
    if (!memchr(expected, '\033', nexpected))
        FUZZ_ASSERT(noutput == nexpected && !memcmp(output, expected, noutput));
    pthread_mutex_destroy(&con.lock);
    return 0;
}
