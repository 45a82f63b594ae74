/*
 * Unit tests of `perch bench`'s report (launcher/bench/bench_report.c) as
 * far as the vCPUs go: the table says how many each side had, bench.csv
 * has a cpus column (and vs_cpus with --vs) on every row, the boot row's
 * too, and bench.json a cpus field (and vs_cpus, null without --vs); and
 * UML's column (--uml): after TCG's in the table, with guest/UML (and
 * vs/UML) after guest/TCG's, a note when the guest had more vCPUs than
 * UML's one CPU, uml_* fields in bench.csv and bench.json; and the smp
 * group's rows in ms, with the line of each side's time one after the
 * other over its time at once, a pair of rows (NAME_seq, NAME_par) at a
 * time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "../../launcher/bench/bench_set.h"

static struct bench_set set;
static char dir[] = "/tmp/perch-test-bench-report-XXXXXX";
static char text[8192];

/* One micro-benchmark with figures on native and the guest; the guest
 * on cpus vCPUs, vs on vs_cpus (0: no --vs), TCG if qemu. */
static void start(unsigned cpus, unsigned vs_cpus, bool qemu)
{
    struct bench_summary s = { .have = true, .median = 100, .min = 90,
                               .max = 110, .counted = true };

    memset(&set, 0, sizeof(set));
    set.out_dir = dir;
    set.rounds = 1;
    set.n = 1;
    strcpy(set.names[0], "syscall");
    strcpy(set.unit[0], "ns");
    set.chosen[0] = true;
    set.native.s[0] = set.base.s[0] = s;
    set.base.s[BENCH_BOOT] = s;
    set.native.cpus = 1;
    set.base.cpus = set.tcg.cpus = cpus;
    if (vs_cpus) {
        set.vs = "--cpus 4";
        set.other.cpus = vs_cpus;
        set.other.s[0] = s;
    }
    if (qemu) {
        set.qemu = true;
        set.tcg.s[0] = s;
    }
}

/* The file DIR/name, whole, into text. */
static const char *slurp(const char *name)
{
    char path[sizeof(dir) + 32];
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f)
        return "";
    n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* UML's column too, its figure half the guest's: guest/UML 2x. */
static void with_uml(void)
{
    set.use_uml = true;
    set.uml.cpus = 1;
    set.uml.s[0] = (struct bench_summary){ .have = true, .median = 50,
                                           .min = 45, .max = 55 };
}

static const char *table(void)
{
    FILE *f = fmemopen(text, sizeof(text), "w");

    bench_print_table(f, &set);
    fputc('\0', f);
    fclose(f);
    return text;
}

static void table_names_the_vcpus(void)
{
    start(1, 0, false);
    CHECK_CONTAINS(table(), "\ncpus: guest 1 vCPU; native: perchbench pinned to one CPU\n");
    start(2, 4, true);
    CHECK_CONTAINS(table(), "\ncpus: guest default 2 vCPUs, guest vs 4 vCPUs, "
                   "TCG 2 vCPUs; native: perchbench pinned to one CPU\n");
    CHECK_CONTAINS(text, "TCG = QEMU TCG, one run: the same kernel, initramfs, "
                   "perchbench, memory and vCPUs\n");
}

/* The header's last column, and every row's (boot's too). */
static void csv_has_cpus(void)
{
    struct error e = { "" };
    const char *csv;

    start(2, 0, true);
    CHECK(bench_write_files(&set, &e) == 0);
    csv = slurp("bench.csv");
    CHECK_CONTAINS(csv, ",tcg_median,tcg_min,tcg_max,guest_tcg_ratio,group,unit,cpus\n");
    CHECK_CONTAINS(csv, ",micro,ns,2\n");
    CHECK_CONTAINS(csv, "\nboot,");
    CHECK_CONTAINS(csv, ",boot,ns,2\n");
    start(1, 4, false);
    CHECK(bench_write_files(&set, &e) == 0);
    csv = slurp("bench.csv");
    CHECK_CONTAINS(csv, ",vs_default_ratio,group,unit,cpus,vs_cpus\n");
    CHECK_CONTAINS(csv, ",micro,ns,1,4\n");
    CHECK_CONTAINS(csv, ",boot,ns,1,4\n");
}

static void json_has_cpus(void)
{
    struct error e = { "" };
    const char *json;

    start(3, 0, false);
    CHECK(bench_write_files(&set, &e) == 0);
    json = slurp("bench.json");
    CHECK_CONTAINS(json, "\"cpus\": 3, \"vs\": null, \"vs_cpus\": null,");
    start(1, 4, true);
    CHECK(bench_write_files(&set, &e) == 0);
    json = slurp("bench.json");
    CHECK_CONTAINS(json, "\"cpus\": 1, \"vs\": \"--cpus 4\", \"vs_cpus\": 4,");
}

static int count(const char *text, const char *word)
{
    int n = 0;

    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        n++;
    return n;
}

/* ---- the smp group ------------------------------------------------------- */

/* The smp rows after syscall (k = 1 to 4): their medians in ms on native,
 * the guest and TCG. */
static const struct {
    const char *name;
    double native, guest, tcg;
} smp_rows[] = {
    { "pipes_seq", 204, 220, 324 },
    { "pipes_par", 200, 200, 200 },
    { "loops_seq", 700, 772, 7400 },
    { "loops_par", 700, 400, 4000 },
};
#define SMP_ROWS (int)(sizeof(smp_rows) / sizeof(smp_rows[0]))

static struct bench_summary in_ms(double ms)
{
    return (struct bench_summary){ .have = true, .median = ms * 1e6,
                                   .min = ms * 1e6, .max = ms * 1e6 };
}

static void with_smp_rows(void)
{
    for (int i = 0; i < SMP_ROWS; i++) {
        int k = 1 + i;

        strcpy(set.names[k], smp_rows[i].name);
        strcpy(set.unit[k], "ns");
        set.group[k] = BENCH_SMP;
        set.chosen[k] = true;
        set.native.s[k] = in_ms(smp_rows[i].native);
        set.base.s[k] = in_ms(smp_rows[i].guest);
        set.tcg.s[k] = in_ms(smp_rows[i].tcg);
    }
    set.n = 1 + SMP_ROWS;
}

/* The rows in ms, then one line: per pair, each side's seq/par. */
static void smp_line_from_the_medians(void)
{
    start(2, 0, true);
    with_smp_rows();
    CHECK_CONTAINS(table(), "\nsmp: ms per run, median (min - max); counts per "
                   "run; two jobs, one after the other (_seq) or at once (_par); "
                   "native: perchbench pinned to one CPU, so at once is no faster "
                   "there\npipes_seq    204.0 (204.0 - 204.0)");
    CHECK_CONTAINS(text, "\nloops_par    700.0 (700.0 - 700.0)");
    CHECK_CONTAINS(text, "\nsmp: at once vs one after the other (_seq time / "
                   "_par time): pipes native 1.02x, perch 1.10x, TCG 1.62x; "
                   "loops native 1.00x, perch 1.93x, TCG 1.85x\n");
    /* the line follows the last smp row */
    CHECK(strstr(text, "\nloops_par ") < strstr(text, "\nsmp: at once"));
    CHECK(strstr(text, "\nrestore ") < strstr(text, "\nsmp: ms per run"));
}

/* With --vs and UML: each side named, in the table's order. */
static void smp_line_names_every_side(void)
{
    start(2, 2, true);
    with_uml();
    with_smp_rows();
    for (int k = 1; k <= SMP_ROWS; k++)
        set.other.s[k] = set.uml.s[k] = in_ms(100);
    CHECK_CONTAINS(table(), ": pipes native 1.02x, perch default 1.10x, perch "
                   "vs 1.00x, TCG 1.62x, UML 1.00x; loops native 1.00x,");
}

/* A side without both rows of a pair is left out of that pair; a pair no
 * side ran both rows of is left out; with no pair, no line. */
static void smp_line_without_pairs(void)
{
    start(1, 0, true);
    with_smp_rows();
    set.tcg.s[2].have = false;                  /* TCG's pipes_par */
    CHECK_CONTAINS(table(), "/ _par time): pipes native 1.02x, perch 1.10x; loops "
                   "native 1.00x, perch 1.93x, TCG 1.85x\n");
    set.chosen[4] = false;                      /* loops_par */
    CHECK_CONTAINS(table(), "/ _par time): pipes native 1.02x, perch 1.10x\n");
    set.native.s[1].have = set.base.s[1].have = false;   /* pipes_seq */
    CHECK(!strstr(table(), "at once vs"));
    CHECK_CONTAINS(text, "\nsmp: ms per run");
    CHECK(!strstr(text, "\n\n"));             /* not even an empty line */
    start(1, 0, false);
    CHECK(!strstr(table(), "smp:"));
}

static void table_has_the_uml_column(void)
{
    start(1, 0, true);
    with_uml();
    CHECK_CONTAINS(table(), "\nUML = User-Mode Linux, one run: ");
    CHECK_CONTAINS(text, "\ncpus: guest 1 vCPU, TCG 1 vCPU, UML 1 CPU; native:");
    CHECK(!strstr(text, "no SMP"));
    CHECK(strstr(text, " TCG ") < strstr(text, " UML "));
    CHECK(strstr(text, "guest/TCG") && strstr(text, "guest/TCG") < strstr(text, "guest/UML"));
    /* syscall: native, guest, TCG 100, UML 50; guest/nat, guest/TCG, guest/UML */
    CHECK_CONTAINS(text, "50 (45 - 55)");
    CHECK_CONTAINS(text, "1.0x      1.00x      2.00x");
    start(2, 4, false);
    with_uml();
    CHECK_CONTAINS(table(), "def/UML     vs/UML");
    CHECK(!strstr(text, "TCG"));
    CHECK(count(text, "note: UML has no SMP: it ran on one CPU, the guest on 4 "
                      "vCPUs\n") == 1);
}

/* With TCG, then with --vs: the header's fields, a row's, bench.json's. */
static void files_have_uml_fields(void)
{
    static const struct {
        unsigned vs_cpus;
        bool qemu;
        const char *csv_header, *csv_row, *json_top, *json_row;
    } cases[] = {
        { 0, true, ",tcg_median,tcg_min,tcg_max,guest_tcg_ratio,uml_median,"
                   "uml_min,uml_max,guest_uml_ratio,group,unit,cpus\n",
          ",100.0,90.0,110.0,1.0000,50.0,45.0,55.0,2.0000,micro,ns,1\n",
          "\"qemu\": true, \"uml\": true,",
          "\"uml\": {\"median\": 50.0, \"min\": 45.0, \"max\": 55.0}, "
          "\"guest_uml_ratio\": 2.0000}" },
        { 4, false, ",vs_default_ratio,uml_median,uml_min,uml_max,"
                    "guest_uml_ratio,vs_uml_ratio,group,unit,cpus,vs_cpus\n",
          ",50.0,45.0,55.0,2.0000,2.0000,micro,ns,1,4\n",
          "\"qemu\": false, \"uml\": true,",
          "\"guest_uml_ratio\": 2.0000, \"vs_uml_ratio\": 2.0000}" },
    };
    struct error e = { "" };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        start(1, cases[i].vs_cpus, cases[i].qemu);
        with_uml();
        CHECK(bench_write_files(&set, &e) == 0);
        CHECK_CONTAINS(slurp("bench.csv"), cases[i].csv_header);
        CHECK_CONTAINS(text, cases[i].csv_row);
        CHECK_CONTAINS(slurp("bench.json"), cases[i].json_top);
        CHECK_CONTAINS(text, cases[i].json_row);
    }
}

int main(void)
{
    char path[sizeof(dir) + 32];

    if (!mkdtemp(dir)) {
        printf("FAIL bench_report: mkdtemp %s\n", dir);
        return 1;
    }
    RUN(table_names_the_vcpus);
    RUN(csv_has_cpus);
    RUN(json_has_cpus);
    RUN(table_has_the_uml_column);
    RUN(files_have_uml_fields);
    RUN(smp_line_from_the_medians);
    RUN(smp_line_names_every_side);
    RUN(smp_line_without_pairs);
    for (const char *const *n = (const char *const[]){ "bench.csv", "bench.json",
                                                       "bench.svg", NULL };
         *n; n++) {
        snprintf(path, sizeof(path), "%s/%s", dir, *n);
        unlink(path);
    }
    rmdir(dir);
    return check_exit_status();
}
