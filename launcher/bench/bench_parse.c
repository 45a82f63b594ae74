/* `perch bench`: its own words into the request (the benchmarks they
 * choose among those perchbench names), and perchbench's output
 * into what perch knows: `perchbench list`'s lines into the benchmarks,
 * and one run's output (perch's console or QEMU's serial port) into its
 * results, line by line and mark by mark, with progress shown. */
#include "bench_set.h"
#include "../base/clock.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- progress on stderr: in place on a terminal, lines otherwise ------- */

void bench_progress(const char *what, const char *detail)
{
    bool tty = isatty(STDERR_FILENO);

    fprintf(stderr, "%sperch bench: %s%s%s%s", tty ? "\r\033[K" : "", what,
            detail ? ": " : "", detail ? detail : "", tty ? "" : "\n");
    fflush(stderr);
}

void bench_progress_done(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}

/* ---- perch bench's command line ---------------------------------------- */

int bench_parse_args(int argc, char **argv, struct bench_set *set,
                     const char **names, int *nnames, struct error *e)
{
    bool cpus_given = false;

    set->out_dir = BENCH_DEFAULT_OUT;
    set->cpus = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--quick")) {
            set->quick = true;
        } else if (!strcmp(a, "--qemu")) {
            set->qemu = true;
        } else if (!strcmp(a, "--seeds")) {
            set->seeds = true;
        } else if (!strcmp(a, "--uml")) {
            if (set->use_uml)
                return fail(e, "--uml given twice");
            set->use_uml = true;
        } else if (!strcmp(a, "--vs") || !strcmp(a, "--out")) {
            if (i + 1 >= argc)
                return fail(e, "%s needs a value", a);
            *(a[2] == 'v' ? &set->vs : &set->out_dir) = argv[++i];
        } else if (!strcmp(a, "--cpus")) {
            /* perch run's count, and its messages */
            if (i + 1 >= argc)
                return fail(e, "--cpus needs a value");
            if (cpus_given)
                return fail(e, "--cpus given twice");
            if (cli_parse_cpus(argv[++i], "--cpus", &set->cpus, e))
                return -1;
            cpus_given = true;
        } else if (a[0] == '-') {
            return fail(e, "unknown bench option '%s'", a);
        } else if (*nnames < BENCH_MAX) {
            names[(*nnames)++] = a;
        } else {
            return fail(e, "too many benchmark names");
        }
    }
    if (set->seeds && (set->vs || *nnames))
        return fail(e, "--seeds runs its own benchmarks and switches: no --vs or "
                       "names with it");
    return 0;
}

/* ---- `perchbench list` -------------------------------------------------- */

const char *const bench_group_names[BENCH_GROUPS] = { "micro", "work", "disk",
                                                      "net", "smp" };

/* "ns" is time per operation (lower is better), the others are rates. */
static const char *const rate_units[] = { "MB/s", "IOPS", "trips/s", NULL };

int bench_parse_list_line(struct bench_set *set, const char *line,
                          struct error *e)
{
    char name[BENCH_NAME_MAX + 1], group[16], unit[BENCH_UNIT_MAX + 1];
    int k = set->n, g;
    bool rate = false;

    if (k >= BENCH_MAX)
        return fail(e, "perchbench list: more than %d benchmarks", BENCH_MAX);
    if (sscanf(line, "%32s %15s %7s", name, group, unit) != 3)
        return 0;   /* not a benchmark's line */
    for (g = 0; g < BENCH_GROUPS && strcmp(group, bench_group_names[g]); g++)
        ;
    if (g == BENCH_GROUPS)
        return fail(e, "perchbench list: %s has an unknown group '%s'", name,
                    group);
    for (int u = 0; rate_units[u]; u++)
        rate = rate || !strcmp(unit, rate_units[u]);
    if (!rate && strcmp(unit, "ns"))
        return fail(e, "perchbench list: %s has an unknown unit '%s'", name,
                    unit);
    strcpy(set->names[k], name);
    strcpy(set->unit[k], unit);
    set->group[k] = g;
    set->rate[k] = rate;
    set->n++;
    return 0;
}

/* ---- choosing by name ------------------------------------------------- */

/* What a plain `perch bench` (or `all`) runs: a group that makes the run
 * much longer (net) or is for several vCPUs (smp) is left for naming. */
static const bool group_by_default[BENCH_GROUPS] = {
    [BENCH_MICRO] = true, [BENCH_WORK] = true, [BENCH_DISK] = true,
};

/* "all micro work disk net smp pipe cow ...": what a wrong name could have
 * been. */
static void known_names(const struct bench_set *set, char *buf, size_t size)
{
    size_t len = snprintf(buf, size, "all");

    for (int g = 0; g < BENCH_GROUPS && len < size; g++)
        len += snprintf(buf + len, size - len, " %s", bench_group_names[g]);
    for (int i = 0; i < set->n && len < size; i++)
        len += snprintf(buf + len, size - len, " %s", set->names[i]);
}

/* Whether word chooses benchmark k: its name, its group or "all" (the
 * groups run by default). */
static bool chooses(const struct bench_set *set, const char *word, int k)
{
    return (!strcmp(word, "all") && group_by_default[set->group[k]]) ||
           !strcmp(word, set->names[k]) ||
           !strcmp(word, bench_group_names[set->group[k]]);
}

int bench_choose(struct bench_set *set, const char **names, int nnames,
                 struct error *e)
{
    char known[(BENCH_MAX + BENCH_GROUPS + 1) * (BENCH_NAME_MAX + 1) + 1];
    static const char *all[] = { "all" };

    if (!nnames) {
        names = all;
        nnames = 1;
    }
    for (int i = 0; i < nnames; i++) {
        bool any = false;

        for (int k = 0; k < set->n; k++)
            if (chooses(set, names[i], k))
                any = set->chosen[k] = true;
        if (!any) {
            known_names(set, known, sizeof(known));
            return fail(e, "no benchmark called '%s' (perch bench knows: %s)",
                        names[i], known);
        }
    }
    return 0;
}

/* ---- perchbench's lines ------------------------------------------------ */

/* A lookup, so a name the guest made up can never select memory. */
int bench_find(const struct bench_set *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->names[i], name))
            return i;
    return -1;
}

bool bench_any_chosen(const struct bench_set *set, enum bench_group g)
{
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i] && set->group[i] == g)
            return true;
    return false;
}

bool bench_needs_busybox(const struct bench_set *set)
{
    return bench_any_chosen(set, BENCH_WORK) || bench_any_chosen(set, BENCH_SMP);
}

const char *bench_missing(const struct bench_set *set,
                          const struct bench_result *res, bool counted,
                          bool with_net)
{
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i] && (with_net || set->group[i] != BENCH_NET) &&
            (!res[i].have || (counted && !res[i].counted)))
            return set->names[i];
    return NULL;
}

/* "perchbench NAME MEDIAN MIN MAX samples S batch B [ops N]": without
 * ops (an older perchbench), S * B, which leaves out batch sizing. */
static void parse_result(struct bench_capture *c, const char *line)
{
    char name[BENCH_NAME_MAX + 1];
    double med, min, max;
    int samples, k;
    long batch, ops = 0;

    if (sscanf(line, "perchbench %32s %lf %lf %lf samples %d batch %ld ops %ld",
               name, &med, &min, &max, &samples, &batch, &ops) < 6)
        return;
    k = bench_find(c->set, name);
    if (k < 0)
        return;
    c->res[k].have = true;
    c->res[k].median = med;
    c->res[k].min = min;
    c->res[k].max = max;
    /* The guest's numbers: a product no long holds counts no operations
     * (found by tests/fuzz/fuzz_bench_parse.c: it overflowed). */
    if (ops <= 0 && __builtin_mul_overflow((long)samples, batch, &ops))
        ops = 0;
    c->res[k].ops = ops;
}

static void end_line(struct bench_capture *c)
{
    c->line[c->len] = '\0';
    if (c->len && c->line[c->len - 1] == '\r')
        c->line[--c->len] = '\0';
    if (c->len) {
        memcpy(c->last, c->line, c->len + 1);
        parse_result(c, c->line);
    }
    c->len = 0;
}

void bench_capture_start(struct bench_capture *c, struct bench_set *set,
                         struct bench_result *res, const char *progress)
{
    memset(c, 0, sizeof(*c));
    c->set = set;
    c->res = res;
    snprintf(c->progress, sizeof(c->progress), "%s", progress);
    c->start_ns = clock_ns(CLOCK_MONOTONIC);
}

void bench_capture_bytes(void *arg, const uint8_t *p, size_t n)
{
    struct bench_capture *c = arg;

    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n')
            end_line(c);
        else if (c->len < BENCH_LINE_MAX - 1)
            c->line[c->len++] = p[i];
    }
}

void bench_capture_end(struct bench_capture *c)
{
    end_line(c);
}

/* /init's first mark ends the boot: its time is the boot row's result. */
static void boot_done(struct bench_capture *c)
{
    struct bench_result *b = &c->res[BENCH_BOOT];

    if (b->have)
        return;
    b->have = true;
    b->median = b->min = b->max = (double)(clock_ns(CLOCK_MONOTONIC) - c->start_ns);
    b->ops = 1;
    bench_progress(c->progress, "booted");
}

void bench_capture_mark(void *arg, const char *name, bool end,
                        const struct perch_counters *now)
{
    struct bench_capture *c = arg;
    int k = bench_find(c->set, name);

    if (!strcmp(name, BENCH_BOOT_MARK)) {
        boot_done(c);
        return;
    }
    if (k < 0)
        return;
    if (!end)
        bench_progress(c->progress, name);
    if (!now)
        return;
    if (end) {
        c->res[k].end = *now;
        c->res[k].counted = true;
    } else {
        c->res[k].begin = *now;
    }
}

/* ---- a serial console: the filters perch's console has ---------------- */

/* A mark on the serial console: no counters to snapshot under TCG. */
static void serial_mark(void *arg, const char *name, bool end)
{
    bench_capture_mark(arg, name, end, NULL);
}

void bench_serial_start(struct bench_serial *s, struct bench_capture *c)
{
    s->capture = c;
    s->said = (struct osc_guest_said){ -1, serial_mark, c };
    osc_filter_init(&s->osc, osc_guest_kinds, OSC_GUEST_KINDS, &s->said);
}

void bench_serial_bytes(void *arg, const uint8_t *p, size_t n)
{
    struct bench_serial *s = arg;
    uint8_t out[4096 + OSC_HELD_MAX];

    while (n) {
        size_t chunk = n < 4096 ? n : 4096;

        bench_capture_bytes(s->capture, out, osc_filter_feed(&s->osc, p, chunk, out));
        p += chunk;
        n -= chunk;
    }
}

void bench_serial_end(struct bench_serial *s)
{
    uint8_t out[OSC_HELD_MAX];

    bench_capture_bytes(s->capture, out, osc_filter_flush(&s->osc, out));
    bench_capture_end(s->capture);
}
