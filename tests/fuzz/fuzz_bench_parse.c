/* libFuzzer harness of perch bench's output parser (launcher/bench/bench_parse.c), console and serial. */
#include "fuzz.h"

#include "../../launcher/bench/bench_set.h"

static struct bench_set set;
static struct bench_result res[BENCH_SLOTS];
static struct bench_capture cap;
static struct bench_serial serial;

/* bench_progress() writes a line on stdio's stderr for every mark: to
 * /dev/null here. libFuzzer and the sanitizers write to fd 2 themselves. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    FILE *null = fopen("/dev/null", "w");

    (void)argc, (void)argv;
    if (null)
        stderr = null;
    return 0;
}

static void start(void)
{
    static const char *const names[] = { "syscall", "gzip", "pipe" };

    memset(&set, 0, sizeof(set));
    memset(res, 0, sizeof(res));
    set.n = 3;
    for (int i = 0; i < set.n; i++) {
        strcpy(set.names[i], names[i]);
        set.chosen[i] = true;
    }
    set.group[1] = BENCH_WORK;
    bench_capture_start(&cap, &set, res, "fuzz run");
    bench_serial_start(&serial, &cap);
}

/* One step: a piece of output either way, a mark, or the end of a line. */
static void step(struct fuzz_in *in)
{
    unsigned op = (unsigned)fuzz_uint(in, 1);
    size_t n;
    const uint8_t *p = fuzz_bytes(in, fuzz_uint(in, 1), &n);
    struct perch_counters now;
    char name[64];

    switch (op % 4) {
    case 0:
        bench_capture_bytes(&cap, p, n);
        break;
    case 1:
        memset(&now, 0, sizeof(now));
        memcpy(&now, p, n < sizeof(now) ? n : sizeof(now));
        snprintf(name, sizeof(name), "%.*s", (int)n, (const char *)p);
        bench_capture_mark(&cap, name, op & 0x10, op & 0x20 ? &now : NULL);
        break;
    case 2:
        bench_serial_bytes(&serial, p, n);
        break;
    default:
        bench_capture_end(&cap);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    const char *missing;

    start();
    while (in.n)
        step(&in);
    bench_serial_end(&serial);
    FUZZ_ASSERT(cap.len < BENCH_LINE_MAX);
    FUZZ_ASSERT(memchr(cap.last, 0, sizeof(cap.last)));
    /* Names the guest makes up select nothing. */
    for (int k = set.n; k < BENCH_BOOT; k++)
        FUZZ_ASSERT(!res[k].have && !res[k].counted);
    missing = bench_missing(&set, res, true, true);
    FUZZ_ASSERT(!missing || bench_find(&set, missing) >= 0);
    return 0;
}
