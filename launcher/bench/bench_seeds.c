/*
 * The seeds' experiments and their tables. The emails' figures are theirs
 * (docs/bench.md quotes them with their titles and dates); perch's come
 * from perchbench's rows of the same names: virtbench's five, lmbench's
 * lat_pagefault and lat_proc fork, and the page-table thrash program.
 */
#include "bench_seeds.h"

#include <string.h>

const struct seed bench_seeds[] = {
    { "lguest: speed up PARAVIRT_LAZY_FLUSH handling", "2007", SEED_VIRTBENCH,
      { "pipe", "cow", "exec", "fork", "pte2" },
      { 10509, 71796, 1076218, 1193125, 10844 }, { 6745, 44734, 815984, 1023250, 6699 },
      "--no-flush-elision",
      "a TLB flush the guest asks for costs a ring-0 visit only while a change "
      "perch made can be stale, as lguest flushed only in lazy mode" },
    { "lguest: more lazy_hcalls", "2007", SEED_VIRTBENCH,
      { "pipe" }, { 6745 }, { 5406 },
      "--eager-flush",
      "the flushes and address-space switches of one crossing are done in one "
      "ring-0 visit on the way out, not a visit each, as lazy_hcall batched them" },
    { "lguest: faster tls switching", "2007", SEED_VIRTBENCH,
      { "pipe" }, { 5406 }, { 4916 },
      NULL,
      "no switch: perch never checks or copies the whole GDT; update_descriptor "
      "checks and writes the one descriptor the guest changed (Linux's TLS load "
      "is three), which is the email's after: its before has no road in perch" },
    { "xen/mm: do direct hypercall in xen_set_pte() if batching is unavailable",
      "Xen-devel", SEED_LMBENCH,
      { "pagefault", "fork" }, { 3180, 356000 }, { 2320, 313300 },
      "--no-insn-patching",
      "the kernel's trapping page-table stores are patched into direct Host "
      "calls, as the email's mmu_update replaced native_set_pte's trapped store" },
    { "lguest: use get_user_pages_fast() instead of get_user_pages()", "2008-07-30",
      SEED_THRASH,
      { "thrash" }, { 5.93e9 }, { 5.40e9 },
      NULL,
      "no switch: perch has no get_pfn; KVM's shadow paging plays lguest's "
      "shadow tables and finds frames itself, and the Host finds a guest frame "
      "by arithmetic, never through the host kernel: shown, the thrash program "
      "under perch and natively" },
};
const unsigned bench_nr_seeds = sizeof(bench_seeds) / sizeof(bench_seeds[0]);

static const struct {
    const char *row, *virtbench, *lmbench;
} labels[] = {
    { "pipe", "Time for one context switch via pipe", NULL },
    { "cow", "Time for one Copy-on-Write fault", NULL },
    { "exec", "Time to exec client once", NULL },
    { "fork", "Time for one fork/exit/wait", "lat_proc fork" },
    { "pte2", "Time for two PTE updates", NULL },
    { "pagefault", NULL, "lat_pagefault" },
};

static const char *label_of(const char *row, bool lmbench)
{
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
        if (!strcmp(labels[i].row, row))
            return lmbench ? labels[i].lmbench : labels[i].virtbench;
    return row;
}

static unsigned nr_rows(const struct seed *s)
{
    unsigned n = 0;

    while (n < SEED_ROWS && s->rows[n])
        n++;
    return n;
}

/* (before - after) / before, in percent; 0 without both. */
static double gain(double before, double after)
{
    return before > 0 && after > 0 ? 100.0 * (before - after) / before : 0;
}

static const struct bench_summary *row_of(const struct bench_set *set,
                                          const struct bench_summary *side, const char *row)
{
    int k = bench_find(set, row);

    return k >= 0 && side[k].have ? &side[k] : NULL;
}

/* "Time for one context switch via pipe: 10509 (9863 - 18761)", in ns. */
static void virtbench_lines(FILE *out, const struct bench_set *set, const struct seed *s,
                            const char *heading, const struct bench_summary *side)
{
    fprintf(out, "%s\n", heading);
    for (unsigned i = 0; i < nr_rows(s); i++) {
        const struct bench_summary *r = row_of(set, side, s->rows[i]);

        if (r)
            fprintf(out, "%s: %.0f (%.0f - %.0f)\n", label_of(s->rows[i], false), r->median,
                    r->min, r->max);
        else
            fprintf(out, "%s: -\n", label_of(s->rows[i], false));
    }
}

static void virtbench_form(FILE *out, const struct bench_set *set, const struct seed *s,
                           const struct seed_result *res, const struct seed_peers *peers)
{
    if (s->switch_off)
        virtbench_lines(out, set, s, "Before:", res->before);
    virtbench_lines(out, set, s, s->switch_off ? "After:" : "perch:", res->after);
    virtbench_lines(out, set, s, "(Native for comparison):", res->native);
    if (peers->tcg)
        virtbench_lines(out, set, s, "(QEMU TCG for comparison):", peers->tcg_s);
    if (peers->uml)
        virtbench_lines(out, set, s, "(User-Mode Linux for comparison):", peers->uml_s);
    fprintf(out, "(The email, on lguest: ");
    for (unsigned i = 0; i < nr_rows(s); i++)
        fprintf(out, "%s%s %.0f -> %.0f", i ? "; " : "", s->rows[i], s->email_before[i],
                s->email_after[i]);
    fprintf(out, ")\n");
}

static void us_cell(FILE *out, const struct bench_summary *r)
{
    char cell[32];

    if (r)
        snprintf(cell, sizeof(cell), "%.2f us", r->median / 1000);
    else
        snprintf(cell, sizeof(cell), "-");
    fprintf(out, "%-12s", cell);
}

/* lmbench3's table: test, before, after, improvement (and native). */
static void lmbench_form(FILE *out, const struct bench_set *set, const struct seed *s,
                         const struct seed_result *res, const struct seed_peers *peers)
{
    fprintf(out, "lmbench3 test  Before      After       Improvement  (native)%s%s\n",
            peers->tcg ? "    (TCG)" : "", peers->uml ? (peers->tcg ? "       (UML)" : "    (UML)") : "");
    fprintf(out, "------------------------------------------------------------\n");
    for (unsigned i = 0; i < nr_rows(s); i++) {
        const struct bench_summary *b = row_of(set, res->before, s->rows[i]);
        const struct bench_summary *a = row_of(set, res->after, s->rows[i]);
        const struct bench_summary *n = row_of(set, res->native, s->rows[i]);

        fprintf(out, "%-14s ", label_of(s->rows[i], true));
        us_cell(out, b);
        us_cell(out, a);
        if (a && b)
            fprintf(out, "%3.0f%%         ", gain(b->median, a->median));
        else
            fprintf(out, "-            ");
        us_cell(out, n);
        if (peers->tcg)
            us_cell(out, row_of(set, peers->tcg_s, s->rows[i]));
        if (peers->uml)
            us_cell(out, row_of(set, peers->uml_s, s->rows[i]));
        fprintf(out, "\n");
    }
    fprintf(out, "(The email, on 32-bit Xen PV: ");
    for (unsigned i = 0; i < nr_rows(s); i++)
        fprintf(out, "%s%s %.2f us -> %.2f us (%.0f%%)", i ? ", " : "",
                label_of(s->rows[i], true), s->email_before[i] / 1000,
                s->email_after[i] / 1000, gain(s->email_before[i], s->email_after[i]));
    fprintf(out, ")\n");
}

/* The program's 1000 rounds, in seconds. */
static void seconds_line(FILE *out, const char *who, const struct bench_summary *r)
{
    if (r)
        fprintf(out, "%s %.2f seconds\n", who, r->median * 1000 / 1e9);
}

static void thrash_form(FILE *out, const struct bench_set *set, const struct seed *s,
                        const struct seed_result *res, const struct seed_peers *peers)
{
    seconds_line(out, "perch:", row_of(set, res->after, s->rows[0]));
    seconds_line(out, "(Native for comparison):", row_of(set, res->native, s->rows[0]));
    if (peers->tcg)
        seconds_line(out, "(QEMU TCG for comparison):", row_of(set, peers->tcg_s, s->rows[0]));
    if (peers->uml)
        seconds_line(out, "(User-Mode Linux for comparison):",
                     row_of(set, peers->uml_s, s->rows[0]));
    fprintf(out, "(The email, on lguest: Before: %.2f seconds, After: %.2f seconds; "
                 "slow vs fast path 6092 and 2852462)\n",
            s->email_before[0] / 1e9, s->email_after[0] / 1e9);
}

/* One row of one seed, with each side's figure (NULL: none). */
struct seed_row {
    const struct seed *s;
    unsigned k;
    const struct bench_summary *before, *after, *native, *tcg, *uml;
};

static struct seed_row seed_row(const struct bench_set *set, const struct seed_result *res,
                                const struct seed_peers *peers, unsigned i, unsigned k)
{
    const struct seed *s = &bench_seeds[i];

    return (struct seed_row){
        s, k, row_of(set, res->before, s->rows[k]), row_of(set, res->after, s->rows[k]),
        row_of(set, res->native, s->rows[k]),
        peers->tcg ? row_of(set, peers->tcg_s, s->rows[k]) : NULL,
        peers->uml ? row_of(set, peers->uml_s, s->rows[k]) : NULL,
    };
}

/* "yes" or "no": perch's switch moved the row the email's way; "" where
 * there is no switch or no figure. */
static const char *direction(const struct seed_row *r)
{
    if (!r->s->switch_off || !r->before || !r->after)
        return "";
    return gain(r->before->median, r->after->median) > 0 ? "yes" : "no";
}

/* patch | the email's improvement | perch's | the same direction: a line
 * for each row the email measured, the patch named on its first. */
static void summary(FILE *out, const struct bench_set *set, const struct seed_result *results)
{
    static const struct seed_peers none;

    fprintf(out, "\n%-44s %-22s %-22s %s\n", "patch", "email", "perch", "same direction");
    for (unsigned i = 0; i < bench_nr_seeds; i++) {
        for (unsigned k = 0; k < nr_rows(&bench_seeds[i]); k++) {
            struct seed_row r = seed_row(set, &results[i], &none, i, k);
            char email[32], perch[32];

            snprintf(email, sizeof(email), "%s -%.1f%%", r.s->rows[k],
                     gain(r.s->email_before[k], r.s->email_after[k]));
            if (!r.s->switch_off)
                snprintf(perch, sizeof(perch), "no switch");
            else if (r.after && r.before)
                snprintf(perch, sizeof(perch), "%s %+.1f%%", r.s->rows[k],
                         -gain(r.before->median, r.after->median));
            else
                snprintf(perch, sizeof(perch), "-");
            fprintf(out, "%-44.44s %-22s %-22s %s\n", k ? "" : r.s->patch, email, perch,
                    *direction(&r) ? direction(&r) : "-");
        }
    }
}

void bench_seeds_print(FILE *out, const struct bench_set *set,
                       const struct seed_result *results, const struct seed_peers *peers)
{
    for (unsigned i = 0; i < bench_nr_seeds; i++) {
        const struct seed *s = &bench_seeds[i];

        if (!results[i].ran)
            continue;
        fprintf(out, "\n== %s (%s) ==\n", s->patch, s->when);
        fprintf(out, "perch: %s%s%s%s\n", s->perch_does, s->switch_off ? " (before: " : "",
                s->switch_off ? s->switch_off : "", s->switch_off ? ")" : "");
        if (s->form == SEED_LMBENCH)
            lmbench_form(out, set, s, &results[i], peers);
        else if (s->form == SEED_THRASH)
            thrash_form(out, set, s, &results[i], peers);
        else
            virtbench_form(out, set, s, &results[i], peers);
    }
    summary(out, set, results);
}

/* ---- seeds.csv and seeds.json ----------------------------------------------- */

/* A median, or "" (CSV) / null (JSON) without one. */
static void number(FILE *f, const struct bench_summary *r, bool json)
{
    if (r)
        fprintf(f, "%.1f", r->median);
    else if (json)
        fprintf(f, "null");
}

static void csv_row(FILE *f, const struct seed_row *r)
{
    fprintf(f, "\"%s\",%s,%.0f,%.0f,%s,", r->s->patch, r->s->rows[r->k],
            r->s->email_before[r->k], r->s->email_after[r->k],
            r->s->switch_off ? r->s->switch_off : "");
    number(f, r->before, false);
    fputc(',', f);
    number(f, r->after, false);
    fputc(',', f);
    number(f, r->native, false);
    fputc(',', f);
    number(f, r->tcg, false);
    fputc(',', f);
    number(f, r->uml, false);
    fprintf(f, ",%s\n", direction(r));
}

static void json_row(FILE *f, const struct seed_row *r, bool first)
{
    fprintf(f, "%s\n    {\"patch\": \"%s\", \"row\": \"%s\", \"email_before\": %.0f, "
               "\"email_after\": %.0f, \"switch\": ",
            first ? "" : ",", r->s->patch, r->s->rows[r->k], r->s->email_before[r->k],
            r->s->email_after[r->k]);
    if (r->s->switch_off)
        fprintf(f, "\"%s\"", r->s->switch_off);
    else
        fprintf(f, "null");
    fprintf(f, ", \"before\": ");
    number(f, r->before, true);
    fprintf(f, ", \"after\": ");
    number(f, r->after, true);
    fprintf(f, ", \"native\": ");
    number(f, r->native, true);
    fprintf(f, ", \"tcg\": ");
    number(f, r->tcg, true);
    fprintf(f, ", \"uml\": ");
    number(f, r->uml, true);
    fprintf(f, ", \"same_direction\": %s}",
            !*direction(r) ? "null" : !strcmp(direction(r), "yes") ? "true" : "false");
}

static FILE *open_out(const struct bench_set *set, const char *name, struct error *e)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", set->out_dir, name);
    f = fopen(path, "w");
    if (!f)
        fail(e, "cannot write %s", path);
    return f;
}

int bench_seeds_write(const struct bench_set *set, const struct seed_result *results,
                      const struct seed_peers *peers, struct error *e)
{
    FILE *csv = open_out(set, "seeds.csv", e), *json = csv ? open_out(set, "seeds.json", e) : NULL;
    bool first = true;
    int rc;

    if (!json) {
        if (csv)
            fclose(csv);
        return -1;
    }
    fprintf(csv, "patch,row,email_before_ns,email_after_ns,switch,before_ns,after_ns,"
                 "native_ns,tcg_ns,uml_ns,same_direction\n");
    fprintf(json, "{\"unit\": \"ns per operation (thrash: per round)\", \"seeds\": [");
    for (unsigned i = 0; i < bench_nr_seeds; i++)
        for (unsigned k = 0; results[i].ran && k < nr_rows(&bench_seeds[i]); k++) {
            struct seed_row r = seed_row(set, &results[i], peers, i, k);

            csv_row(csv, &r);
            json_row(json, &r, first);
            first = false;
        }
    fprintf(json, "\n]}\n");
    rc = ferror(csv) | ferror(json);
    rc |= fclose(csv) | fclose(json);
    return rc ? fail(e, "cannot write seeds.csv or seeds.json in %s", set->out_dir) : 0;
}
