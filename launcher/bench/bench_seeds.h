/*
 * `perch bench --seeds`: the experiments of the patch emails perch is
 * built from (docs/bench.md, "The seeds' experiments"), each with the
 * switch that gives perch's road without the optimization, printed in the
 * email's own form beside the email's figures, then one summary.
 */
#ifndef PERCH_BENCH_SEEDS_H
#define PERCH_BENCH_SEEDS_H

#include <stdio.h>

#include "bench_set.h"

#define SEED_ROWS 5

/* The form of the email's table. */
enum seed_form { SEED_VIRTBENCH, SEED_LMBENCH, SEED_THRASH };

struct seed {
    const char *patch;        /* the email's subject */
    const char *when;         /* its date */
    enum seed_form form;
    const char *rows[SEED_ROWS];   /* perchbench's rows, NULL-ended */
    double email_before[SEED_ROWS], email_after[SEED_ROWS];
    const char *switch_off;   /* perch run's option for the "before"; NULL: none */
    const char *perch_does;   /* perch's part, or why it has no switch */
};

extern const struct seed bench_seeds[];
extern const unsigned bench_nr_seeds;

/* What one seed's runs gave: native, perch by default ("after") and with
 * the switch ("before"; not had without one). */
struct seed_result {
    bool ran;
    struct bench_summary native[BENCH_SLOTS], after[BENCH_SLOTS], before[BENCH_SLOTS];
};

/* The other machines, run once over every seed's rows (--qemu, --uml):
 * for comparison, as native is. */
struct seed_peers {
    bool tcg, uml;
    struct bench_summary tcg_s[BENCH_SLOTS], uml_s[BENCH_SLOTS];
};

/* The seed's email form and the summary of all, from set's names (the
 * rows' slots), results[i] for bench_seeds[i] and the peers. */
void bench_seeds_print(FILE *out, const struct bench_set *set,
                       const struct seed_result *results, const struct seed_peers *peers);

/* DIR/seeds.csv and DIR/seeds.json (DIR: set->out_dir): a record for each
 * row of each seed. 0, or -1 with e. */
int bench_seeds_write(const struct bench_set *set, const struct seed_result *results,
                      const struct seed_peers *peers, struct error *e);

#endif
