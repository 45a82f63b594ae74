/*
 * Unit tests of `perch bench --seeds`' tables (launcher/bench/bench_seeds.c):
 * each email's form with perch's figures (virtbench's lines in ns with min
 * and max, lmbench's table in µs with the improvement, the thrash program
 * in seconds), the email's own figures beside them, a seed without a
 * switch shown as such, and the summary's direction; and the command
 * line that refuses --seeds with anything it decides itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#include "../../launcher/bench/bench_set.h"
#include "../../launcher/bench/bench_seeds.h"

static struct bench_set set;
static struct seed_result results[8];
static struct seed_peers peers;
static char text[16384];

static struct bench_summary had(double median)
{
    return (struct bench_summary){ .have = true, .median = median, .min = median - 10,
                                   .max = median + 10 };
}

/* Every row perchbench has; each seed's: native 1000 ns, perch 2000 ns
 * by default and 3000 ns with its switch (the pagefault row 2500: the
 * switch makes it faster, the wrong way). */
static const char *print_all(void)
{
    static const char *rows[] = { "pipe", "cow", "exec", "fork", "pte2", "pagefault",
                                  "thrash" };
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");

    memset(&set, 0, sizeof(set));
    memset(results, 0, sizeof(results));
    set.n = 7;
    for (int k = 0; k < set.n; k++)
        strcpy(set.names[k], rows[k]);
    for (unsigned i = 0; i < bench_nr_seeds; i++) {
        results[i].ran = true;
        for (int k = 0; k < set.n; k++) {
            results[i].native[k] = had(1000);
            results[i].after[k] = had(2000);
            if (bench_seeds[i].switch_off)
                results[i].before[k] = had(k == 5 ? 1500 : 3000);
        }
    }
    bench_seeds_print(f, &set, results, &peers);
    fclose(f);
    return text;
}

static void virtbench_form(void)
{
    print_all();
    CHECK_CONTAINS(text, "== lguest: speed up PARAVIRT_LAZY_FLUSH handling (2007) ==\n");
    CHECK_CONTAINS(text, "(before: --no-flush-elision)\nBefore:\n"
                         "Time for one context switch via pipe: 3000 (2990 - 3010)\n"
                         "Time for one Copy-on-Write fault: 3000 (2990 - 3010)\n"
                         "Time to exec client once: 3000 (2990 - 3010)\n");
    CHECK_CONTAINS(text, "After:\nTime for one context switch via pipe: 2000 (1990 - 2010)\n");
    CHECK_CONTAINS(text, "(Native for comparison):\n"
                         "Time for one context switch via pipe: 1000 (990 - 1010)\n");
    CHECK_CONTAINS(text, "(The email, on lguest: pipe 10509 -> 6745; cow 71796 -> 44734;");
}

static void lmbench_form(void)
{
    print_all();
    CHECK_CONTAINS(text, "lmbench3 test  Before      After       Improvement  (native)\n");
    CHECK_CONTAINS(text, "lat_pagefault  1.50 us     2.00 us     -33%         1.00 us");
    CHECK_CONTAINS(text, "lat_proc fork  3.00 us     2.00 us      33%         1.00 us");
    CHECK_CONTAINS(text, "lat_pagefault 3.18 us -> 2.32 us (27%)");
}

static void without_a_switch(void)
{
    print_all();
    CHECK_CONTAINS(text, "== lguest: faster tls switching (2007) ==\nperch: no switch:");
    CHECK_CONTAINS(text, "perch:\nTime for one context switch via pipe: 2000 (1990 - 2010)\n");
    CHECK_CONTAINS(text, "perch: 0.00 seconds\n");   /* 2000 ns a round, 1000 rounds */
    CHECK_CONTAINS(text, "Before: 5.93 seconds, After: 5.40 seconds");
}

static void summary_says_the_direction(void)
{
    print_all();
    CHECK_CONTAINS(text, "\npatch ");
    CHECK_CONTAINS(text, "lguest: more lazy_hcalls                     pipe -19.9%            "
                         "pipe -33.3%            yes\n");
    CHECK_CONTAINS(text, "pagefault -27.0%       pagefault +33.3%       no\n");
    CHECK_CONTAINS(text, "no\n                                             fork -12.0%            "
                         "fork -33.3%            yes\n");   /* every row, the patch once */
    CHECK_CONTAINS(text, "thrash -8.9%           no switch              -\n");
}

/* A seed whose runs are missing prints nothing of its own. */
static void missing_results_print_dashes(void)
{
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");

    memset(results, 0, sizeof(results));
    results[0].ran = true;
    bench_seeds_print(f, &set, results, &peers);
    fclose(f);
    CHECK_CONTAINS(text, "Time for one context switch via pipe: -\n");
    CHECK(!strstr(text, "== lguest: more lazy_hcalls"));
    CHECK_CONTAINS(text, "lguest: more lazy_hcalls                     pipe -19.9%            -");
}

/* TCG's and UML's figures, for comparison, in every form. */
static void peers_for_comparison(void)
{
    peers.tcg = peers.uml = true;
    for (int k = 0; k < 7; k++) {
        peers.tcg_s[k] = had(4000);
        peers.uml_s[k] = had(5000);
    }
    print_all();
    CHECK_CONTAINS(text, "(QEMU TCG for comparison):\n"
                         "Time for one context switch via pipe: 4000 (3990 - 4010)\n");
    CHECK_CONTAINS(text, "(User-Mode Linux for comparison):\n"
                         "Time for one context switch via pipe: 5000 (4990 - 5010)\n");
    CHECK_CONTAINS(text, "(native)    (TCG)       (UML)\n");
    CHECK_CONTAINS(text, "1.00 us     4.00 us     5.00 us");
    CHECK_CONTAINS(text, "(QEMU TCG for comparison): 0.00 seconds\n");
    memset(&peers, 0, sizeof(peers));
}

/* DIR/name, whole, into buf (8192 bytes), and the file removed. */
static const char *take_file(const char *dir, const char *name, char *buf)
{
    char path[64];
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "r");
    n = f ? fread(buf, 1, 8191, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    unlink(path);
    return buf;
}

/* seeds.csv and seeds.json: a record for every row of every seed. */
static void csv_and_json(void)
{
    char dir[] = "/tmp/perch-test-seeds-XXXXXX", buf[8192];
    struct error e;

    CHECK(mkdtemp(dir) != NULL);
    print_all();
    set.out_dir = dir;
    CHECK(bench_seeds_write(&set, results, &peers, &e) == 0);
    take_file(dir, "seeds.csv", buf);
    CHECK_CONTAINS(buf, "patch,row,email_before_ns,email_after_ns,switch,before_ns,after_ns,"
                        "native_ns,tcg_ns,uml_ns,same_direction\n");
    CHECK_CONTAINS(buf, "\"lguest: more lazy_hcalls\",pipe,6745,5406,--eager-flush,3000.0,"
                        "2000.0,1000.0,,,yes\n");
    CHECK_CONTAINS(buf, ",pagefault,3180,2320,--no-insn-patching,1500.0,2000.0,1000.0,,,no\n");
    CHECK_CONTAINS(buf, ",thrash,5930000000,5400000000,,,2000.0,1000.0,,,\n");
    take_file(dir, "seeds.json", buf);
    CHECK_CONTAINS(buf, "{\"patch\": \"lguest: more lazy_hcalls\", \"row\": \"pipe\", "
                        "\"email_before\": 6745, \"email_after\": 5406, \"switch\": "
                        "\"--eager-flush\", \"before\": 3000.0, \"after\": 2000.0, "
                        "\"native\": 1000.0, \"tcg\": null, \"uml\": null, "
                        "\"same_direction\": true}");
    CHECK_CONTAINS(buf, "\"switch\": null, \"before\": null");
    rmdir(dir);
}

static void seeds_refuse_what_they_decide(void)
{
    static const char *with_vs[] = { "--seeds", "--vs", "--eager-flush" };
    static const char *with_name[] = { "--seeds", "pipe" };
    static const char *alone[] = { "--seeds", "--quick", "--qemu", "--uml" };
    const char *names[BENCH_MAX];
    int nnames = 0;
    struct error e;

    memset(&set, 0, sizeof(set));
    CHECK(bench_parse_args(3, (char **)with_vs, &set, names, &nnames, &e) == -1);
    CHECK_CONTAINS(e.msg, "--seeds runs its own benchmarks and switches");
    memset(&set, 0, sizeof(set));
    nnames = 0;
    CHECK(bench_parse_args(2, (char **)with_name, &set, names, &nnames, &e) == -1);
    memset(&set, 0, sizeof(set));
    nnames = 0;
    CHECK(bench_parse_args(4, (char **)alone, &set, names, &nnames, &e) == 0);
    CHECK(set.seeds && set.quick && set.qemu && set.use_uml);
}

int main(void)
{
    RUN(virtbench_form);
    RUN(lmbench_form);
    RUN(without_a_switch);
    RUN(summary_says_the_direction);
    RUN(missing_results_print_dashes);
    RUN(peers_for_comparison);
    RUN(csv_and_json);
    RUN(seeds_refuse_what_they_decide);
    return check_exit_status();
}
