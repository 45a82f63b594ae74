/*
 * `perch bench`'s results: the median across rounds, the table on stdout,
 * DIR/bench.csv, DIR/bench.json and, when gnuplot is installed,
 * DIR/bench.svg (guest/native, TCG/native and UML/native ratios as bars).
 *
 * Most benchmarks give a time (lower is better), the disk group a rate
 * (higher is better). A ratio is always of the figures as given, a/b: for
 * a rate guest/native is the share of the host's throughput the guest
 * gets, and guest/TCG above 1 is ahead of TCG (guest/UML of UML). The table says so above
 * those rows, and bench.csv and bench.json carry each row's unit. Each
 * side's vCPUs (--cpus N) are a line of the table, bench.csv's cpus (and
 * vs_cpus) column and bench.json's cpus (and vs_cpus) field. The smp
 * group's rows are followed by a line of each side's time one after the
 * other over its time at once, a pair of rows at a time.
 */
#include "bench_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/file.h"

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

    ACROSS(x->begin.kvm_known && x->end.kvm_known
               ? per_op(x->begin.kvm[KVM_COUNT_EXITS], x->end.kvm[KVM_COUNT_EXITS], x->ops)
               : -1);
    s->traps = median_of(v, m);
    ACROSS(per_op(x->begin.visits, x->end.visits, x->ops));
    s->visits = median_of(v, m);
    ACROSS(per_op(x->begin.exits, x->end.exits, x->ops));
    s->exits = median_of(v, m);
    ACROSS(per_op(x->begin.hypercalls, x->end.hypercalls, x->ops));
    s->hypercalls = median_of(v, m);
    ACROSS(per_op(x->begin.trapped, x->end.trapped, x->ops));
    s->trapped = median_of(v, m);
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
    summarize_one(side, BENCH_BOOT);
    summarize_one(side, BENCH_RESTORE);
}

/* ---- the other machines' columns ----------------------------------------- */

/* A machine other than perch (QEMU TCG, UML) is a column, after the
 * guest's, and the guest's ratios to it; each is named and placed the
 * same way in the table, bench.csv, bench.json and bench.svg. */
struct machine_column {
    const struct bench_side *side;
    const char *title;             /* the table's: "TCG" */
    const char *key;               /* bench.csv's and bench.json's: "tcg" */
    const char *plot;              /* bench.svg's: "QEMU TCG" */
};
#define MACHINES_MAX 2

/* Those asked for, in their order. Returns how many. */
static int machine_columns(const struct bench_set *set,
                           struct machine_column m[MACHINES_MAX])
{
    int n = 0;

    if (set->qemu)
        m[n++] = (struct machine_column){ &set->tcg, "TCG", "tcg", "QEMU TCG" };
    if (set->use_uml)
        m[n++] = (struct machine_column){ &set->uml, "UML", "uml", "UML" };
    return n;
}

/* ---- the table ----------------------------------------------------------- */

#define NS_PER_MS 1e6

/* 0 when either side has no figure: printed as "-", never as a ratio. */
static double ratio(const struct bench_summary *a, const struct bench_summary *b)
{
    return a->have && b->have && b->median > 0 ? a->median / b->median : 0;
}

/* How a row's figures are shown: divided by, to so many decimals.
 * Micro-benchmarks in ns per operation, workloads and boot in ms, MB/s to
 * a tenth, IOPS whole. */
struct shown {
    double divide;
    int digits;
};

static struct shown shown_as(const struct bench_set *set, int k)
{
    if (bench_is_start(k) || (!set->rate[k] && (set->group[k] == BENCH_WORK ||
                                                set->group[k] == BENCH_SMP)))
        return (struct shown){ NS_PER_MS, 1 };
    if (set->rate[k] && !strcmp(set->unit[k], "MB/s"))
        return (struct shown){ 1, 1 };   /* IOPS, trips/s: whole */
    return (struct shown){ 1, 0 };
}

static void cell_value(FILE *out, const struct bench_summary *s, struct shown as)
{
    char buf[64] = "-";

    if (s->have)
        snprintf(buf, sizeof(buf), "%.*f (%.*f - %.*f)", as.digits,
                 s->median / as.divide, as.digits, s->min / as.divide,
                 as.digits, s->max / as.divide);
    fprintf(out, " %-30s", buf);
}

static void cell_ratio(FILE *out, double r, int digits)
{
    if (r > 0)
        fprintf(out, " %9.*fx", digits, r);
    else
        fprintf(out, " %10s", "-");
}

/* KVM's exits per op, "-" where KVM keeps none. */
static void traps_text(char *buf, size_t size, double traps)
{
    if (traps < 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.2f", traps);
}

/* Per operation in the guest; with --vs each as "default -> vs". */
static void cells_counts(FILE *out, const struct bench_set *set,
                         const struct bench_summary *g,
                         const struct bench_summary *v)
{
    char c[5][48], t[2][16];

    if (!g->counted) {
        fprintf(out, set->vs ? " %-20s %-22s %-18s %-22s %s" : " %10s %10s %10s %12s %10s",
                "-", "-", "-", "-", "-");
        return;
    }
    traps_text(t[0], sizeof(t[0]), g->traps);
    if (!set->vs) {
        fprintf(out, " %10s %10.2f %10.3f %12.2f %10.2f", t[0], g->visits, g->exits,
                g->hypercalls, g->trapped);
        return;
    }
    traps_text(t[1], sizeof(t[1]), v->traps);
    snprintf(c[4], sizeof(c[4]), "%s -> %s", t[0], t[1]);
    snprintf(c[0], sizeof(c[0]), "%.2f -> %.2f", g->visits, v->visits);
    snprintf(c[1], sizeof(c[1]), "%.3f -> %.3f", g->exits, v->exits);
    snprintf(c[2], sizeof(c[2]), "%.2f -> %.2f", g->hypercalls, v->hypercalls);
    snprintf(c[3], sizeof(c[3]), "%.2f -> %.2f", g->trapped, v->trapped);
    fprintf(out, " %-20s %-22s %-18s %-22s %s", c[4], c[0], c[1], c[2], c[3]);
}

/* One row: every side's figure, the ratios, the guest's counts. k may be
 * BENCH_BOOT or BENCH_RESTORE. */
static void row(FILE *out, const struct bench_set *set, int k,
                const char *name)
{
    const struct bench_summary *n = &set->native.s[k], *g = &set->base.s[k],
                               *v = &set->other.s[k];
    struct shown as = shown_as(set, k);
    /* a time ratio may be 200x, a rate's is mostly a fraction */
    int digits = !bench_is_start(k) && set->rate[k] ? 2 : 1;
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m);

    fprintf(out, "%-12s", name);
    cell_value(out, n, as);
    cell_value(out, g, as);
    if (set->vs)
        cell_value(out, v, as);
    for (int i = 0; i < machines; i++)
        cell_value(out, &m[i].side->s[k], as);
    cell_ratio(out, ratio(g, n), digits);
    if (set->vs)
        cell_ratio(out, ratio(v, g), 2);
    for (int i = 0; i < machines; i++) {
        cell_ratio(out, ratio(g, &m[i].side->s[k]), 2);
        if (set->vs)
            cell_ratio(out, ratio(v, &m[i].side->s[k]), 2);
    }
    cells_counts(out, set, g, v);
    fputc('\n', out);
}

static void header(FILE *out, const struct bench_set *set)
{
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m);
    char title[32];

    fprintf(out, "%-12s %-30s %-30s", "benchmark", "native",
            set->vs ? "guest default" : "guest");
    if (set->vs)
        fprintf(out, " %-30s", "guest vs");
    for (int i = 0; i < machines; i++)
        fprintf(out, " %-30s", m[i].title);
    fprintf(out, " %10s", set->vs ? "def/native" : "guest/nat");
    if (set->vs)
        fprintf(out, " %10s", "vs/def");
    for (int i = 0; i < machines; i++) {
        snprintf(title, sizeof(title), "%s/%s", set->vs ? "def" : "guest",
                 m[i].title);
        fprintf(out, " %10s", title);
        snprintf(title, sizeof(title), "vs/%s", m[i].title);
        if (set->vs)
            fprintf(out, " %10s", title);
    }
    if (set->vs)
        fprintf(out, " %-20s %-22s %-18s %-22s %s\n", "traps/op def->vs", "visits/op def->vs",
                "exits/op def->vs", "hypercalls/op def->vs", "trapped/op def->vs");
    else
        fprintf(out, " %10s %10s %10s %12s %10s\n", "traps/op", "visits/op", "exits/op",
                "hcalls/op", "trapped/op");
}

static void rows_of(FILE *out, const struct bench_set *set, enum bench_group g)
{
    for (int k = 0; k < set->n; k++)
        if (set->chosen[k] && set->group[k] == g)
            row(out, set, k, set->names[k]);
}

/* The first line above a group of rates: what its figures are and which
 * way is better. */
static void rates_note(FILE *out, const struct bench_set *set,
                       const char *group, const char *units, const char *per)
{
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m);

    fprintf(out, "%s: %s, median (min - max) of %s, HIGHER is better: ratios "
                 "are of throughput (guest/nat 0.50x: half the host's", group,
            units, set->quick ? "1 pass" : "3 passes");
    for (int i = 0; i < machines; i++)
        fprintf(out, "; guest/%s above 1x: ahead of %s", m[i].title, m[i].title);
    fprintf(out, "); counts per %s\n", per);
}

/* What the disk rows measure, side by side: not the same road to the disk. */
static void disk_note(FILE *out, const struct bench_set *set)
{
    rates_note(out, set, "disk", "MB/s (10^6 bytes a second) or IOPS", "request");
    fprintf(out, "disk: native = O_DIRECT on %s (%s, a fresh sparse %d MiB "
                 "file each side); guest = the same file as xvda, perch's "
                 "back end reading and writing it with io_uring WITHOUT "
                 "O_DIRECT (through the host's page cache: the guest's "
                 "O_DIRECT stops at perch)%s%s\n", set->disk_image, set->disk_fs,
            BENCH_DISK_MIB, set->qemu ? "; TCG = the same file as QEMU's "
            "virtio-blk vda, " BENCH_QEMU_DRIVE_CACHE " (the host's page cache "
            "too)" : "", set->use_uml ? "; UML = the same file as UML's ubd0, "
            "ubda (the host's page cache too)" : "");
}

/* And the net rows: whose TCP stack and which forwarder carry the bytes. */
static void net_note(FILE *out, const struct bench_set *set)
{
    rates_note(out, set, "net", "MB/s (10^6 bytes a second) or round trips a "
               "second", "64 KiB or round trip");
    fprintf(out, "net: native = TCP over loopback between perchbench and its "
                 "peer, two processes; guest = the guest's TCP through perch's "
                 "--net user (libslirp) to the peer on the host, port %u "
                 "forwarded to the guest's %u%s%s\n", set->net_port,
            BENCH_NET_GUEST_PORT, set->qemu ? "; TCG = the same through QEMU's "
            "-netdev user (libslirp too) and a virtio-net card" : "",
            set->use_uml ? "; UML: not run (UML has no user-mode network "
            "of its own to forward the port through)" : "");
}

static const char *vcpus(unsigned n)
{
    return n == 1 ? "vCPU" : "vCPUs";
}

/* How many vCPUs each side had: perch run's --cpus (--vs may set its own),
 * QEMU's -smp. */
static void cpus_line(FILE *out, const struct bench_set *set)
{
    fprintf(out, "cpus: guest%s %u %s", set->vs ? " default" : "",
            set->base.cpus, vcpus(set->base.cpus));
    if (set->vs)
        fprintf(out, ", guest vs %u %s", set->other.cpus, vcpus(set->other.cpus));
    if (set->qemu)
        fprintf(out, ", TCG %u %s", set->tcg.cpus, vcpus(set->tcg.cpus));
    if (set->use_uml)
        fprintf(out, ", UML %u CPU", set->uml.cpus);
    fprintf(out, "; native: perchbench pinned to one CPU\n");
}

/* ---- the smp group's pairs ---------------------------------------------- */

#define SMP_SEQ "_seq"
#define SMP_PAR "_par"

/* The length of NAME in a row called NAME_seq; 0 for any other name. */
static int seq_stem(const char *name)
{
    int stem = (int)strlen(name) - (int)strlen(SMP_SEQ);

    return stem > 0 && !strcmp(name + stem, SMP_SEQ) ? stem : 0;
}

/* The chosen smp row NAME_par that pairs with row seq, if seq is a chosen
 * smp row NAME_seq; else -1. */
static int smp_partner(const struct bench_set *set, int seq)
{
    const char *name = set->names[seq];
    int stem = seq_stem(name), par;
    char par_name[BENCH_NAME_MAX + 1];

    if (!set->chosen[seq] || set->group[seq] != BENCH_SMP || !stem)
        return -1;
    snprintf(par_name, sizeof(par_name), "%.*s" SMP_PAR, stem, name);
    par = bench_find(set, par_name);
    return par >= 0 && set->chosen[par] && set->group[par] == BENCH_SMP ? par : -1;
}

/* A side as the smp line names it. */
struct named_side {
    const char *name;
    const struct bench_side *side;
};
#define SIDES_MAX (3 + MACHINES_MAX)

/* Every side that ran: native, perch (default and vs), TCG, UML. Returns
 * how many. */
static int sides_ran(const struct bench_set *set,
                     struct named_side sides[SIDES_MAX])
{
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m), n = 0;

    sides[n++] = (struct named_side){ "native", &set->native };
    sides[n++] = (struct named_side){ set->vs ? "perch default" : "perch",
                                      &set->base };
    if (set->vs)
        sides[n++] = (struct named_side){ "perch vs", &set->other };
    for (int i = 0; i < machines; i++)
        sides[n++] = (struct named_side){ m[i].title, m[i].side };
    return n;
}

/* One pair's part of the smp line, "pipes native 1.02x, perch 1.10x",
 * after *sep (the line's start, or "; " after a pair): each side that has
 * both rows, seq's time over par's. Nothing if no side has both. */
static void smp_pair(FILE *out, const struct bench_set *set, int seq, int par,
                     const char **sep)
{
    struct named_side sides[SIDES_MAX];
    int n = sides_ran(set, sides), stem = seq_stem(set->names[seq]);
    const char *between = NULL;   /* NULL until the pair's first side */

    for (int i = 0; i < n; i++) {
        double r = ratio(&sides[i].side->s[seq], &sides[i].side->s[par]);

        if (r <= 0)
            continue;
        if (!between)
            fprintf(out, "%s %.*s", *sep, stem, set->names[seq]);
        fprintf(out, "%s %s %.2fx", between ? between : "", sides[i].name, r);
        between = ",";
        *sep = ";";
    }
}

/* After the smp rows: how much faster at once was than one after the
 * other, a pair at a time (2x: two vCPUs did two jobs in the time of
 * one). No line when no side has both rows of any pair. */
static void smp_line(FILE *out, const struct bench_set *set)
{
    static const char start[] = "smp: at once vs one after the other "
                                "(" SMP_SEQ " time / " SMP_PAR " time):";
    const char *sep = start;

    for (int seq = 0; seq < set->n; seq++) {
        int par = smp_partner(set, seq);

        if (par >= 0)
            smp_pair(out, set, seq, par, &sep);
    }
    if (sep != start)
        fputc('\n', out);
}

/* The smp rows, between what they are and what they show. */
static void smp_rows(FILE *out, const struct bench_set *set)
{
    fprintf(out, "smp: ms per run, median (min - max); counts per run; two "
                 "jobs, one after the other (" SMP_SEQ ") or at once (" SMP_PAR
                 "); native: perchbench pinned to one CPU, so at once is no "
                 "faster there\n");
    rows_of(out, set, BENCH_SMP);
    smp_line(out, set);
}

/* UML's column, and once, if the guest had more vCPUs, that UML had one. */
static void uml_lines(FILE *out, const struct bench_set *set)
{
    unsigned most = set->vs && set->other.cpus > set->base.cpus
                        ? set->other.cpus : set->base.cpus;

    fprintf(out, "UML = User-Mode Linux, one run: Debian's " BENCH_UML
                 " (Linux 6.1 as a host program) with the same initramfs "
                 "(no modules), perchbench and memory, on one CPU\n");
    if (most > 1)
        fprintf(out, "note: UML has no SMP: it ran on one CPU, the guest "
                     "on %u vCPUs\n", most);
}

void bench_print_table(FILE *out, const struct bench_set *set)
{
    fprintf(out, "perch bench%s: ns per operation%s, median (min - max)%s; "
                 "per operation in the guest: traps (KVM's exits), Switcher visits, exits "
                 "to the Launcher, Host hypercalls, trapped page-table writes\n", set->quick ? " --quick" : "",
            bench_any_chosen(set, BENCH_DISK) || bench_any_chosen(set, BENCH_NET)
                ? " (disk, net: rates, below)" : "",
            set->vs ? ", guest: median of the rounds" : "");
    if (set->vs)
        fprintf(out, "default = perch's defaults, vs = %s (%d rounds, "
                     "interleaved)\n", set->vs, set->rounds);
    if (set->qemu)
        fprintf(out, "TCG = QEMU TCG, one run: the same kernel, initramfs, "
                     "perchbench, memory and vCPUs\n");
    if (set->use_uml)
        uml_lines(out, set);
    cpus_line(out, set);
    header(out, set);
    rows_of(out, set, BENCH_MICRO);
    fprintf(out, "work and boot: ms per run, median (min - max); counts per "
                 "run; boot: from start to /init's first output; restore: from "
                 "perch restore to a saved guest's first output\n");
    rows_of(out, set, BENCH_WORK);
    row(out, set, BENCH_BOOT, "boot");
    row(out, set, BENCH_RESTORE, "restore");
    if (bench_any_chosen(set, BENCH_SMP))
        smp_rows(out, set);
    if (bench_any_chosen(set, BENCH_DISK)) {
        disk_note(out, set);
        rows_of(out, set, BENCH_DISK);
    }
    if (bench_any_chosen(set, BENCH_NET)) {
        net_note(out, set);
        rows_of(out, set, BENCH_NET);
    }
}

/* ---- bench.csv ----------------------------------------------------------- */

/* Empty fields for a side without the figure (native's boot). */
static void csv_side(FILE *f, const struct bench_summary *s, bool counts)
{
    if (s->have)
        fprintf(f, ",%.1f,%.1f,%.1f", s->median, s->min, s->max);
    else
        fprintf(f, ",,,");
    if (counts && s->counted) {
        fprintf(f, ",%.4f,%.4f,%.4f,%.4f", s->visits, s->exits, s->hypercalls, s->trapped);
        if (s->traps >= 0)
            fprintf(f, ",%.4f", s->traps);
        else
            fprintf(f, ",");
    } else if (counts) {
        fprintf(f, ",,,,,");
    }
}

static void csv_ratio(FILE *f, double r)
{
    if (r > 0)
        fprintf(f, ",%.4f", r);
    else
        fprintf(f, ",");
}

static void csv_row(FILE *f, const struct bench_set *set, int k,
                    const char *name, const char *group, const char *unit)
{
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m);

    fprintf(f, "%s", name);
    csv_side(f, &set->native.s[k], false);
    csv_side(f, &set->base.s[k], true);
    csv_ratio(f, ratio(&set->base.s[k], &set->native.s[k]));
    if (set->vs) {
        csv_side(f, &set->other.s[k], true);
        csv_ratio(f, ratio(&set->other.s[k], &set->base.s[k]));
    }
    for (int i = 0; i < machines; i++) {
        csv_side(f, &m[i].side->s[k], false);
        csv_ratio(f, ratio(&set->base.s[k], &m[i].side->s[k]));
        if (set->vs)
            csv_ratio(f, ratio(&set->other.s[k], &m[i].side->s[k]));
    }
    fprintf(f, ",%s,%s,%u", group, unit, set->base.cpus);
    if (set->vs)
        fprintf(f, ",%u", set->other.cpus);
    fputc('\n', f);
}

static void write_csv(FILE *f, const struct bench_set *set)
{
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m);

    fprintf(f, "benchmark,native_median,native_min,native_max,"
               "guest_median,guest_min,guest_max,visits_per_op,"
               "exits_per_op,hypercalls_per_op,trapped_per_op,traps_per_op,guest_native_ratio%s",
            set->vs ? ",vs_median,vs_min,vs_max,vs_visits_per_op,"
                      "vs_exits_per_op,vs_hypercalls_per_op,vs_trapped_per_op,vs_traps_per_op,"
                      "vs_default_ratio"
                    : "");
    for (int i = 0; i < machines; i++) {
        const char *key = m[i].key;

        fprintf(f, ",%s_median,%s_min,%s_max,guest_%s_ratio", key, key, key, key);
        if (set->vs)
            fprintf(f, ",vs_%s_ratio", key);
    }
    fprintf(f, ",group,unit,cpus%s\n", set->vs ? ",vs_cpus" : "");
    for (int k = 0; k < set->n; k++)
        if (set->chosen[k])
            csv_row(f, set, k, set->names[k], bench_group_names[set->group[k]],
                    set->unit[k]);
    csv_row(f, set, BENCH_BOOT, "boot", "boot", "ns");
    csv_row(f, set, BENCH_RESTORE, "restore", "boot", "ns");
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

/* A side without the figure (native's boot) is null. */
static void json_side(FILE *f, const char *key, const struct bench_summary *s,
                      bool counts)
{
    if (!s->have) {
        fprintf(f, ", \"%s\": null", key);
        return;
    }
    fprintf(f, ", \"%s\": {\"median\": %.1f, \"min\": %.1f, "
               "\"max\": %.1f", key, s->median, s->min, s->max);
    if (counts && s->counted) {
        fprintf(f, ", \"per_op\": {");
        if (s->traps >= 0)
            fprintf(f, "\"traps\": %.4f, ", s->traps);
        fprintf(f, "\"visits\": %.4f, \"exits\": %.4f, "
                   "\"hypercalls\": %.4f, \"trapped_writes\": %.4f, \"visits_by_reason\": {",
                s->visits, s->exits, s->hypercalls, s->trapped);
        for (unsigned v = 0; v < PERCH_VISIT_COUNT; v++) {
            fprintf(f, "%s", v ? ", " : "");
            json_string(f, stats_visit_name(v));
            fprintf(f, ": %.4f", s->visit[v]);
        }
        fprintf(f, "}}");
    }
    fprintf(f, "}");
}

static void json_ratio(FILE *f, const char *key, double r)
{
    if (r > 0)
        fprintf(f, ", \"%s\": %.4f", key, r);
    else
        fprintf(f, ", \"%s\": null", key);
}

static void json_bench(FILE *f, const struct bench_set *set, int k,
                       const char *name, const char *group, bool first)
{
    bool rate = !bench_is_start(k) && set->rate[k];
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m);
    char key[32];

    fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
    json_string(f, name);
    fprintf(f, ", \"group\": \"%s\", \"unit\": \"%s\", "
               "\"higher_is_better\": %s", group,
            bench_is_start(k) ? "ns" : set->unit[k], rate ? "true" : "false");
    json_side(f, "native", &set->native.s[k], false);
    json_side(f, "guest", &set->base.s[k], true);
    json_ratio(f, "guest_native_ratio",
               ratio(&set->base.s[k], &set->native.s[k]));
    if (set->vs) {
        json_side(f, "vs", &set->other.s[k], true);
        json_ratio(f, "vs_default_ratio",
                   ratio(&set->other.s[k], &set->base.s[k]));
    }
    for (int i = 0; i < machines; i++) {
        const struct bench_summary *x = &m[i].side->s[k];

        json_side(f, m[i].key, x, false);
        snprintf(key, sizeof(key), "guest_%s_ratio", m[i].key);
        json_ratio(f, key, ratio(&set->base.s[k], x));
        snprintf(key, sizeof(key), "vs_%s_ratio", m[i].key);
        if (set->vs)
            json_ratio(f, key, ratio(&set->other.s[k], x));
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
               "\"rounds\": %d, \"qemu\": %s, \"uml\": %s, \"unit\": \"each "
               "benchmark's unit: ns per operation (work, smp: per run; boot: "
               "to /init), or a rate (MB/s, IOPS)\", \"cpus\": %u, \"vs\": ",
            date, set->quick ? "true" : "false", set->rounds,
            set->qemu ? "true" : "false", set->use_uml ? "true" : "false",
            set->base.cpus);
    if (set->vs) {
        json_string(f, set->vs);
        fprintf(f, ", \"vs_cpus\": %u", set->other.cpus);
    } else {
        fprintf(f, "null, \"vs_cpus\": null");
    }
    fprintf(f, ",\n  \"benchmarks\": [");
    for (int k = 0; k < set->n; k++) {
        if (!set->chosen[k])
            continue;
        json_bench(f, set, k, set->names[k], bench_group_names[set->group[k]],
                   first);
        first = false;
    }
    json_bench(f, set, BENCH_BOOT, "boot", "boot", first);
    json_bench(f, set, BENCH_RESTORE, "restore", "boot", false);
    fprintf(f, "\n  ]\n}\n");
}

/* ---- bench.svg, through gnuplot ------------------------------------------ */

/* A side against native as time over native time: for a rate, native's
 * figure over the side's, so that every bar reads the same way up. */
static double slowdown(const struct bench_set *set, const struct bench_side *side,
                       int k)
{
    return set->rate[k] ? ratio(&set->native.s[k], &side->s[k])
                        : ratio(&side->s[k], &set->native.s[k]);
}

/* Bars of guest/native per benchmark, and vs/native, TCG/native and
 * UML/native beside them. The data go in a datablock with quoted names: gnuplot ends inline
 * data ('-') at any line that starts with 'e', such as "exec 11.7". */
static int write_svg(const struct bench_set *set, const char *svg)
{
    struct machine_column m[MACHINES_MAX];
    int machines = machine_columns(set, m), column = set->vs ? 4 : 3;
    FILE *g = popen("gnuplot", "w");

    if (!g)
        return -1;
    fprintf(g, "set terminal svg size 1000,450\nset output '%s'\n", svg);
    fprintf(g, "set style data histograms\nset style fill solid border -1\n"
               "set ylabel 'time / native time (disk: native rate / rate)'\n"
               "set logscale y\n"
               "set grid ytics\nset key top left\n"
               "set title 'perch bench%s'\n$data << EOD\n",
            set->quick ? " --quick" : "");
    for (int k = 0; k < set->n; k++) {
        if (!set->chosen[k])
            continue;
        fprintf(g, "\"%s\" %.4f", set->names[k], slowdown(set, &set->base, k));
        if (set->vs)
            fprintf(g, " %.4f", slowdown(set, &set->other, k));
        for (int i = 0; i < machines; i++)
            fprintf(g, " %.4f", slowdown(set, m[i].side, k));
        fputc('\n', g);
    }
    fprintf(g, "EOD\nplot $data using 2:xtic(1) title 'perch%s'",
            set->vs ? " default" : "");
    if (set->vs)
        fprintf(g, ", $data using 3 title 'perch vs'");
    for (int i = 0; i < machines; i++)
        fprintf(g, ", $data using %d title '%s'", column++, m[i].plot);
    fprintf(g, "\n");
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
    if (!file_in_path("gnuplot")) {
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
