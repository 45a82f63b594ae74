/*
 * `perch bench [--quick] [--vs "OPTIONS"] [--out DIR] [BENCH...]`: the
 * benchmarks of bench/perchbench.c, the very binary embedded in perch, run
 * natively (pinned to one CPU, as the guest has one vCPU) and inside the
 * default guest, with perch's counters bracketed per benchmark by the
 * guest's marks (mark_seq.h), then one table, bench.csv and bench.json
 * (and bench.svg with gnuplot) in DIR.
 *
 * bench.c runs and parses; bench_report.c prints and writes the results.
 */
#ifndef PERCH_BENCH_H
#define PERCH_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "stats.h"

#define BENCH_MAX          16     /* benchmarks perchbench may name */
#define BENCH_NAME_MAX     32     /* as MARK_SEQ_NAME_MAX */
#define BENCH_ROUNDS_MAX   3
#define BENCH_DEFAULT_OUT  "build/bench-results"

/* One benchmark in one run, as perchbench printed it. */
struct bench_result {
    bool have;                     /* its result line came */
    double median, min, max;       /* ns per operation */
    long ops;                      /* operations inside the marks */
    bool counted;                  /* both of its marks came (guest only) */
    struct perch_counters begin, end;
};

/* One benchmark on one side, across the rounds. Per-op counts are from
 * guest memory (stats.h): numbers to print, nothing more. */
struct bench_summary {
    bool have, counted;
    double median, min, max;
    double visits, exits, hypercalls;            /* per operation */
    double visit[PERCH_VISIT_COUNT];
};

/* One configuration: native, perch's defaults, or the --vs options. */
struct bench_side {
    const char *label;
    int runs;
    struct bench_result r[BENCH_ROUNDS_MAX][BENCH_MAX];
    struct bench_summary s[BENCH_MAX];
};

struct bench_set {
    bool quick;
    const char *vs;                /* NULL: no second guest column */
    const char *out_dir;
    int rounds;                    /* guest runs per side */
    int n;                         /* benchmarks, in perchbench's order */
    char names[BENCH_MAX][BENCH_NAME_MAX + 1];
    bool chosen[BENCH_MAX];
    struct bench_side native, base, other;
};

/* The subcommand: args are the words after "bench". Returns perch's exit
 * status; e says why when it is not 0. */
int bench_main(int argc, char **argv, struct error *e);

/* bench_report.c */
void bench_summarize(struct bench_side *side, int n);
void bench_print_table(FILE *out, const struct bench_set *set);
int bench_write_files(const struct bench_set *set, struct error *e);

#endif
