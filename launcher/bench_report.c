/*
 * `perch bench`'s results: the median across rounds, the table on stdout,
 * DIR/bench.csv, DIR/bench.json and, when gnuplot is installed,
 * DIR/bench.svg (guest/native ratios as bars).
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, n, sizeof(v[0]), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Counter difference over the bracket, per operation. The counters are
 * the guest's to write: a difference that went backwards is shown as it is
 * (negative), never used for anything but printing. */
static double per_op(uint64_t begin, uint64_t end, long ops)
{
    return (double)(int64_t)(end - begin) / (double)ops;
}

/* The median of one per-run value across the runs that counted. */
#define ACROSS(field_expr)                                            \
    do {                                                              \
        for (int r = 0; r < m; r++) {                                 \
            const struct bench_result *x = &side->r[runs[r]][k];      \
            v[r] = (field_expr);                                      \
        }                                                             \
    } while (0)

static void summarize_counts(struct bench_side *side, int k, const int *runs,
                             int m)
{
    struct bench_summary *s = &side->s[k];
    double v[BENCH_ROUNDS_MAX];

    ACROSS(per_op(x->begin.visits, x->end.visits, x->ops));
    s->visits = median_of(v, m);
    ACROSS(per_op(x->begin.exits, x->end.exits, x->ops));
    s->exits = median_of(v, m);
    ACROSS(per_op(x->begin.hypercalls, x->end.hypercalls, x->ops));
    s->hypercalls = median_of(v, m);
    for (unsigned reason = 0; reason < PERCH_VISIT_COUNT; reason++) {
        ACROSS(per_op(x->begin.visit[reason], x->end.visit[reason], x->ops));
        s->visit[reason] = median_of(v, m);
    }
    s->counted = true;
}

/* One benchmark: median of the runs' medians, the extremes of all. */
static void summarize_one(struct bench_side *side, int k)
{
    struct bench_summary *s = &side->s[k];
    double med[BENCH_ROUNDS_MAX];
    int runs[BENCH_ROUNDS_MAX], m = 0, counted = 0;

    memset(s, 0, sizeof(*s));
    for (int r = 0; r < side->runs; r++) {
        const struct bench_result *x = &side->r[r][k];

        if (!x->have)
            continue;
        med[m] = x->median;
        s->min = m == 0 || x->min < s->min ? x->min : s->min;
        s->max = m == 0 || x->max > s->max ? x->max : s->max;
        m++;
        if (x->counted && x->ops > 0)
            runs[counted++] = r;
    }
    if (!m)
        return;
    s->have = true;
    s->median = median_of(med, m);
    if (counted)
        summarize_counts(side, k, runs, counted);
}

void bench_summarize(struct bench_side *side, int n)
{
    for (int k = 0; k < n; k++)
        summarize_one(side, k);
}

/* ---- the table ----------------------------------------------------------- */

static double ratio(const struct bench_summary *a, const struct bench_summary *b)
{
    return b->median > 0 ? a->median / b->median : 0;
}

static void cell_ns(FILE *out, const struct bench_summary *s)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%.0f (%.0f - %.0f)", s->median, s->min, s->max);
    fprintf(out, " %-30s", buf);
}

static void row_plain(FILE *out, const struct bench_set *set, int k)
{
    const struct bench_summary *n = &set->native.s[k], *g = &set->base.s[k];

    fprintf(out, "%-10s", set->names[k]);
    cell_ns(out, n);
    cell_ns(out, g);
    fprintf(out, " %9.1fx %10.2f %10.3f %12.2f\n", ratio(g, n), g->visits,
            g->exits, g->hypercalls);
}

/* With --vs: both guest columns, vs/default, and each count as D -> V. */
static void row_vs(FILE *out, const struct bench_set *set, int k)
{
    const struct bench_summary *n = &set->native.s[k], *g = &set->base.s[k],
                               *v = &set->other.s[k];
    char c[3][48];

    snprintf(c[0], sizeof(c[0]), "%.2f -> %.2f", g->visits, v->visits);
    snprintf(c[1], sizeof(c[1]), "%.3f -> %.3f", g->exits, v->exits);
    snprintf(c[2], sizeof(c[2]), "%.2f -> %.2f", g->hypercalls, v->hypercalls);
    fprintf(out, "%-10s", set->names[k]);
    cell_ns(out, n);
    cell_ns(out, g);
    cell_ns(out, v);
    fprintf(out, " %9.1fx %9.2fx %-22s %-18s %s\n", ratio(g, n), ratio(v, g),
            c[0], c[1], c[2]);
}

void bench_print_table(FILE *out, const struct bench_set *set)
{
    fprintf(out, "perch bench%s: ns per operation, median (min - max)%s; "
                 "per operation in the guest: Switcher visits, exits to the "
                 "Launcher, Host hypercalls\n", set->quick ? " --quick" : "",
            set->vs ? ", guest: median of the rounds" : "");
    if (set->vs) {
        fprintf(out, "default = perch's defaults, vs = %s (%d rounds, "
                     "interleaved)\n", set->vs, set->rounds);
        fprintf(out, "%-10s %-30s %-30s %-30s %10s %10s %-22s %-18s %s\n",
                "benchmark", "native", "guest default", "guest vs",
                "def/native", "vs/def", "visits/op def->vs", "exits/op def->vs",
                "hypercalls/op def->vs");
    } else {
        fprintf(out, "%-10s %-30s %-30s %10s %10s %10s %12s\n", "benchmark",
                "native", "guest", "guest/nat", "visits/op", "exits/op",
                "hcalls/op");
    }
    for (int k = 0; k < set->n; k++) {
        if (!set->chosen[k])
            continue;
        if (set->vs)
            row_vs(out, set, k);
        else
            row_plain(out, set, k);
    }
}

/* ---- bench.csv ----------------------------------------------------------- */

static void csv_side(FILE *f, const struct bench_summary *s, bool counts)
{
    fprintf(f, ",%.1f,%.1f,%.1f", s->median, s->min, s->max);
    if (counts)
        fprintf(f, ",%.4f,%.4f,%.4f", s->visits, s->exits, s->hypercalls);
}

static void write_csv(FILE *f, const struct bench_set *set)
{
    fprintf(f, "benchmark,native_median_ns,native_min_ns,native_max_ns,"
               "guest_median_ns,guest_min_ns,guest_max_ns,visits_per_op,"
               "exits_per_op,hypercalls_per_op,guest_native_ratio%s\n",
            set->vs ? ",vs_median_ns,vs_min_ns,vs_max_ns,vs_visits_per_op,"
                      "vs_exits_per_op,vs_hypercalls_per_op,vs_default_ratio"
                    : "");
    for (int k = 0; k < set->n; k++) {
        if (!set->chosen[k])
            continue;
        fprintf(f, "%s", set->names[k]);
        csv_side(f, &set->native.s[k], false);
        csv_side(f, &set->base.s[k], true);
        fprintf(f, ",%.4f", ratio(&set->base.s[k], &set->native.s[k]));
        if (set->vs) {
            csv_side(f, &set->other.s[k], true);
            fprintf(f, ",%.4f", ratio(&set->other.s[k], &set->base.s[k]));
        }
        fputc('\n', f);
    }
}

/* ---- bench.json ---------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = *s;

        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_side(FILE *f, const char *key, const struct bench_summary *s,
                      bool counts)
{
    fprintf(f, ", \"%s\": {\"median_ns\": %.1f, \"min_ns\": %.1f, "
               "\"max_ns\": %.1f", key, s->median, s->min, s->max);
    if (counts) {
        fprintf(f, ", \"per_op\": {\"visits\": %.4f, \"exits\": %.4f, "
                   "\"hypercalls\": %.4f, \"visits_by_reason\": {",
                s->visits, s->exits, s->hypercalls);
        for (unsigned v = 0; v < PERCH_VISIT_COUNT; v++) {
            fprintf(f, "%s", v ? ", " : "");
            json_string(f, stats_visit_name(v));
            fprintf(f, ": %.4f", s->visit[v]);
        }
        fprintf(f, "}}");
    }
    fprintf(f, "}");
}

static void json_bench(FILE *f, const struct bench_set *set, int k, bool first)
{
    fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
    json_string(f, set->names[k]);
    json_side(f, "native", &set->native.s[k], false);
    json_side(f, "guest", &set->base.s[k], true);
    fprintf(f, ", \"guest_native_ratio\": %.4f",
            ratio(&set->base.s[k], &set->native.s[k]));
    if (set->vs) {
        json_side(f, "vs", &set->other.s[k], true);
        fprintf(f, ", \"vs_default_ratio\": %.4f",
                ratio(&set->other.s[k], &set->base.s[k]));
    }
    fprintf(f, "}");
}

static void write_json(FILE *f, const struct bench_set *set)
{
    char date[32];
    time_t now = time(NULL);
    bool first = true;

    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\"tool\": \"perch bench\", \"date\": \"%s\", \"quick\": %s, "
               "\"rounds\": %d, \"unit\": \"ns per operation\", \"vs\": ",
            date, set->quick ? "true" : "false", set->rounds);
    if (set->vs)
        json_string(f, set->vs);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"benchmarks\": [");
    for (int k = 0; k < set->n; k++) {
        if (!set->chosen[k])
            continue;
        json_bench(f, set, k, first);
        first = false;
    }
    fprintf(f, "\n  ]\n}\n");
}

/* ---- bench.svg, through gnuplot ------------------------------------------ */

static bool have_program(const char *name)
{
    const char *path = getenv("PATH");
    char dir[4096];

    while (path && *path) {
        size_t len = strcspn(path, ":");

        snprintf(dir, sizeof(dir), "%.*s/%s", (int)len, path, name);
        if (len && access(dir, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* Bars of guest/native per benchmark (and vs/native beside them). */
static int write_svg(const struct bench_set *set, const char *svg)
{
    FILE *g = popen("gnuplot", "w");

    if (!g)
        return -1;
    fprintf(g, "set terminal svg size 800,400\nset output '%s'\n", svg);
    fprintf(g, "set style data histograms\nset style fill solid\n"
               "set ylabel 'guest / native (ns per op)'\nset logscale y\n"
               "set title 'perch bench%s'\n", set->quick ? " --quick" : "");
    fprintf(g, "plot '-' using 2:xtic(1) title 'default'%s\n",
            set->vs ? ", '-' using 2:xtic(1) title 'vs'" : "");
    for (int pass = 0; pass < (set->vs ? 2 : 1); pass++) {
        const struct bench_side *side = pass ? &set->other : &set->base;

        for (int k = 0; k < set->n; k++)
            if (set->chosen[k])
                fprintf(g, "%s %.4f\n", set->names[k],
                        ratio(&side->s[k], &set->native.s[k]));
        fprintf(g, "e\n");
    }
    return pclose(g) == 0 ? 0 : -1;
}

/* ---- the files ----------------------------------------------------------- */

static int write_file(const char *dir, const char *name,
                      void (*writer)(FILE *, const struct bench_set *),
                      const struct bench_set *set, struct error *e)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f)
        return fail(e, "cannot write %s: %s", path, strerror(errno));
    writer(f, set);
    if (fclose(f) != 0)
        return fail(e, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int bench_write_files(const struct bench_set *set, struct error *e)
{
    char svg[4096];

    if (write_file(set->out_dir, "bench.csv", write_csv, set, e) ||
        write_file(set->out_dir, "bench.json", write_json, set, e))
        return -1;
    snprintf(svg, sizeof(svg), "%s/bench.svg", set->out_dir);
    if (!have_program("gnuplot")) {
        fprintf(stderr, "perch bench: wrote %s/bench.csv and %s/bench.json "
                        "(no gnuplot: no bench.svg)\n", set->out_dir, set->out_dir);
        return 0;
    }
    if (write_svg(set, svg))
        fprintf(stderr, "perch bench: note: gnuplot failed; no %s\n", svg);
    else
        fprintf(stderr, "perch bench: wrote %s/bench.csv, %s/bench.json and "
                        "%s\n", set->out_dir, set->out_dir, svg);
    return 0;
}
