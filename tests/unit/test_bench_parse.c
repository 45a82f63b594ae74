/*
 * Unit tests of `perch bench`'s parsing (launcher/bench/bench_parse.c): its
 * own words (--cpus N and --uml among them) and the benchmarks they choose
 * (`all` leaves the net and smp groups out), and perchbench's output:
 * `perchbench list`'s lines (groups and units), perchbench's result lines
 * (a disk benchmark's rate among them), the counter marks and /init's boot mark as
 * perch's console hands them over, and QEMU's raw serial output, where the
 * exit-status sequence and the marks are still in the bytes (split
 * anywhere, among \r\n line ends and firmware escapes).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "../../launcher/bench/bench_set.h"

#define MARK(n, w) "\033]perch-mark;" n ";" w "\007"
#define EXIT(n) "\033]perch-exit;" n "\007"

static struct bench_set set;
static struct bench_result res[BENCH_SLOTS];
static struct bench_capture cap;

static void start(void)
{
    memset(&set, 0, sizeof(set));
    memset(res, 0, sizeof(res));
    set.n = 3;
    strcpy(set.names[0], "syscall");
    strcpy(set.names[1], "gzip");
    strcpy(set.names[2], "pipe");
    set.group[1] = BENCH_WORK;
    set.chosen[0] = set.chosen[1] = true;
    bench_capture_start(&cap, &set, res, "test run");
}

static void feed(const char *text)
{
    bench_capture_bytes(&cap, (const uint8_t *)text, strlen(text));
}

static void result_line_is_parsed(void)
{
    start();
    feed("# perchbench: a comment\nperchbench syscall 192 189 209 samples 7 "
         "batch 65536 ops 524288\n");
    CHECK(res[0].have);
    CHECK(res[0].median == 192 && res[0].min == 189 && res[0].max == 209);
    CHECK(res[0].ops == 524288);
    CHECK(!res[1].have && !res[2].have);
    CHECK(!strcmp(cap.last, "perchbench syscall 192 189 209 samples 7 batch "
                  "65536 ops 524288"));
}

/* An older perchbench without "ops N": samples times batch. */
static void line_without_ops(void)
{
    start();
    feed("perchbench gzip 900 800 1000 samples 3 batch 1\n");
    CHECK(res[1].have && res[1].ops == 3);
}

/* The guest prints these numbers: samples times batch past a long's range
 * (a signed overflow, found by tests/fuzz/fuzz_bench_parse.c) counts no
 * operations, so no per-operation figures. */
static void line_with_samples_times_batch_too_large(void)
{
    start();
    feed("perchbench gzip 1 1 1 samples 2000000000 batch 9000000000000\n");
    CHECK(res[1].have && res[1].ops == 0);
}

/* Line ends come in any piece; \r\n (a serial console's) counts as \n;
 * the last line may lack its newline until the output ends. */
static void pieces_and_crlf(void)
{
    const char *line = "perchbench syscall 5 4 6 samples 3 batch 8 ops 40\r\n";

    start();
    for (size_t i = 0; line[i]; i++)
        bench_capture_bytes(&cap, (const uint8_t *)line + i, 1);
    CHECK(res[0].have && res[0].ops == 40);
    feed("perchbench gzip 7 7 7 samples 1 batch 1 ops 1");
    CHECK(!res[1].have);
    bench_capture_end(&cap);
    CHECK(res[1].have && res[1].median == 7);
}

/* Lines that are not results, or name no chosen benchmark, change
 * nothing; a line too long is cut, never overflows. */
static void other_lines_are_ignored(void)
{
    char longline[3 * BENCH_LINE_MAX];

    start();
    feed("perchbench nosuch 1 2 3 samples 1 batch 1 ops 1\n");
    feed("perchbench syscall 1 2\n");
    feed("perchbench syscall x y z samples 1 batch 1 ops 1\n");
    feed("perchbench  samples\nplain text\n");
    memset(longline, 'x', sizeof(longline) - 2);
    longline[sizeof(longline) - 2] = '\n';
    longline[sizeof(longline) - 1] = '\0';
    feed(longline);
    CHECK(!res[0].have && !res[1].have);
    CHECK(strlen(cap.last) == BENCH_LINE_MAX - 1);
}

static void marks_bracket_counters(void)
{
    struct perch_counters a = { .visits = 10, .exits = 1 },
                          b = { .visits = 30, .exits = 2 };

    start();
    bench_capture_mark(&cap, "syscall", false, &a);
    CHECK(!res[0].counted);
    bench_capture_mark(&cap, "syscall", true, &b);
    CHECK(res[0].counted);
    CHECK(res[0].begin.visits == 10 && res[0].end.visits == 30);
    bench_capture_mark(&cap, "made-up", true, &b);
    CHECK(!res[1].counted && !res[2].counted);
}

/* TCG has no counters: marks come with NULL and count nothing. */
static void marks_without_counters(void)
{
    start();
    bench_capture_mark(&cap, "syscall", false, NULL);
    bench_capture_mark(&cap, "syscall", true, NULL);
    CHECK(!res[0].counted);
}

static void boot_mark_times_the_boot(void)
{
    start();
    CHECK(!res[BENCH_BOOT].have);
    bench_capture_mark(&cap, BENCH_BOOT_MARK, false, NULL);
    CHECK(res[BENCH_BOOT].have && res[BENCH_BOOT].ops == 1);
    CHECK(res[BENCH_BOOT].median >= 0);
    CHECK(res[BENCH_BOOT].min == res[BENCH_BOOT].median);
}

static void missing_names_the_first_gap(void)
{
    start();
    CHECK(!strcmp(bench_missing(&set, res, false, true), "syscall"));
    feed("perchbench syscall 1 1 1 samples 1 batch 1 ops 1\n");
    CHECK(!strcmp(bench_missing(&set, res, false, true), "gzip"));
    feed("perchbench gzip 1 1 1 samples 1 batch 1 ops 1\n");
    CHECK(bench_missing(&set, res, false, true) == NULL);   /* pipe: not chosen */
    CHECK(!strcmp(bench_missing(&set, res, true, true), "syscall"));
}

/* ---- `perchbench list` -------------------------------------------------- */

/* Each line gives a name, its group and its unit: ns is a time, MB/s,
 * IOPS and trips/s are rates (higher is better); the words after are for
 * people. */
static void list_lines_name_group_and_unit(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    CHECK(bench_parse_list_line(&set, "pipe         micro  ns    Time for one "
                                "context switch via pipe", &e) == 0);
    CHECK(bench_parse_list_line(&set, "gzip work ns Time for gzip", &e) == 0);
    CHECK(bench_parse_list_line(&set, "diskseqread  disk   MB/s  Sequential "
                                "O_DIRECT read", &e) == 0);
    CHECK(bench_parse_list_line(&set, "diskrand disk IOPS Random reads", &e) == 0);
    CHECK(bench_parse_list_line(&set, "netrr net trips/s TCP round trips", &e) == 0);
    CHECK(bench_parse_list_line(&set, "loops_par    smp    ns      Time for the "
                                "same two loops at once", &e) == 0);
    CHECK(set.n == 6);
    CHECK(set.group[5] == BENCH_SMP && !set.rate[5] && !strcmp(set.unit[5], "ns"));
    CHECK(set.group[4] == BENCH_NET && set.rate[4] && !strcmp(set.unit[4], "trips/s"));
    CHECK(!strcmp(set.names[0], "pipe") && set.group[0] == BENCH_MICRO &&
          !set.rate[0] && !strcmp(set.unit[0], "ns"));
    CHECK(set.group[1] == BENCH_WORK && !set.rate[1]);
    CHECK(!strcmp(set.names[2], "diskseqread") && set.group[2] == BENCH_DISK &&
          set.rate[2] && !strcmp(set.unit[2], "MB/s"));
    CHECK(set.rate[3] && !strcmp(set.unit[3], "IOPS"));
}

/* A line of fewer than three words is skipped; an unknown group or unit
 * (a perchbench perch does not know how to show) is an error naming it,
 * and adds nothing; a list longer than BENCH_MAX is an error too. */
static void list_lines_refused(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    CHECK(bench_parse_list_line(&set, "", &e) == 0);
    CHECK(bench_parse_list_line(&set, "pipe micro", &e) == 0);
    CHECK(set.n == 0);
    CHECK(bench_parse_list_line(&set, "x cpu ns What", &e) == -1);
    CHECK_CONTAINS(e.msg, "unknown group 'cpu'");
    CHECK(bench_parse_list_line(&set, "x disk GB/h What", &e) == -1);
    CHECK_CONTAINS(e.msg, "unknown unit 'GB/h'");
    CHECK(bench_parse_list_line(&set, "x disk MB/s/x What", &e) == -1);
    CHECK(set.n == 0 && !set.names[0][0]);
    /* A name longer than BENCH_NAME_MAX never overflows: its rest is read
     * as the group, which is unknown. */
    CHECK(bench_parse_list_line(&set, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
                                "micro ns x", &e) == -1);
    CHECK(set.n == 0);
    memset(&set, 0, sizeof(set));
    for (int i = 0; i < BENCH_MAX; i++)
        CHECK(bench_parse_list_line(&set, "b micro ns x", &e) == 0);
    CHECK(bench_parse_list_line(&set, "b micro ns x", &e) == -1);
    CHECK_CONTAINS(e.msg, "more than");
    CHECK(set.n == BENCH_MAX);
}

/* ---- the words that choose ------------------------------------------------ */

/* A benchmark of each group, as `perchbench list` names them. */
static void list_every_group(void)
{
    static const char *const lines[] = {
        "syscall micro ns x", "gzip work ns x", "pipes_seq smp ns x",
        "loops_par smp ns x", "diskrand disk IOPS x", "netrr net trips/s x",
    };
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        CHECK(bench_parse_list_line(&set, lines[i], &e) == 0);
}

/* The benchmarks chosen, by name, as one string: "syscall gzip ". */
static const char *chosen_names(void)
{
    static char text[BENCH_MAX * (BENCH_NAME_MAX + 1) + 1];
    size_t len = 0;

    text[0] = '\0';
    for (int k = 0; k < set.n; k++)
        if (set.chosen[k])
            len += snprintf(text + len, sizeof(text) - len, "%s ", set.names[k]);
    return text;
}

/* `all` (and no word at all) is every group but net and smp; a group's
 * name chooses its rows, a benchmark's name that one. */
static void choose_by_group_and_name(void)
{
    static const struct {
        const char *words[3];      /* up to a NULL */
        const char *chosen;
    } cases[] = {
        { { NULL }, "syscall gzip diskrand " },
        { { "all" }, "syscall gzip diskrand " },
        { { "smp" }, "pipes_seq loops_par " },
        { { "loops_par", "net" }, "loops_par netrr " },
        { { "all", "smp" }, "syscall gzip pipes_seq loops_par diskrand " },
    };
    struct error e = { "" };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int nwords = 0;

        while (cases[i].words[nwords])
            nwords++;
        list_every_group();
        CHECK(bench_choose(&set, (const char **)cases[i].words, nwords, &e) == 0);
        CHECK(!strcmp(chosen_names(), cases[i].chosen));
    }
}

/* A word that chooses nothing is an error that names every word perch
 * bench knows, the smp group among them. */
static void choose_refuses_unknown(void)
{
    const char *words[] = { "smp", "loops" };
    struct error e = { "" };

    list_every_group();
    CHECK(bench_choose(&set, words, 2, &e) == -1);
    CHECK_CONTAINS(e.msg, "no benchmark called 'loops' (perch bench knows: all "
                   "micro work disk net smp syscall gzip pipes_seq loops_par");
}

/* The shell scripts (work, smp) need busybox natively; the others not. */
static void busybox_for_work_and_smp(void)
{
    list_every_group();
    CHECK(!bench_needs_busybox(&set));
    set.chosen[0] = set.chosen[4] = set.chosen[5] = true;   /* micro, disk, net */
    CHECK(!bench_needs_busybox(&set));
    set.chosen[3] = true;                                   /* smp */
    CHECK(bench_needs_busybox(&set));
    set.chosen[3] = false;
    set.chosen[1] = true;                                   /* work */
    CHECK(bench_needs_busybox(&set));
}

/* A disk benchmark's line carries its rate where others carry ns: read
 * as it is, with its requests as ops. */
static void rate_line_is_parsed(void)
{
    start();
    strcpy(set.names[2], "diskseqread");
    set.group[2] = BENCH_DISK;
    set.rate[2] = true;
    set.chosen[2] = true;
    feed("perchbench diskseqread 812.5 790.1 830.2 samples 3 batch 256 ops 768\n");
    CHECK(res[2].have && res[2].median == 812.5 && res[2].min == 790.1 &&
          res[2].max == 830.2 && res[2].ops == 768);
    CHECK(bench_any_chosen(&set, BENCH_DISK) && bench_any_chosen(&set, BENCH_WORK));
    set.chosen[1] = false;
    CHECK(!bench_any_chosen(&set, BENCH_WORK));
}

/* ---- QEMU's serial output ---------------------------------------------- */

/* What a TCG run prints: firmware escapes, the kernel's log, /init's boot
 * mark, marks on the same line as the result they bracket (perch's console
 * takes them out; here the parser must), the exit status. */
static const char serial_text[] =
    "\033c\033[?7l\033[2JSeaBIOS (version 1.16.2)\r\nBooting from ROM...\r\n"
    "[    3.223334] Run /init as init process\r\n"
    MARK("init", "begin")
    "# perchbench NAME MEDIAN MIN MAX samples S batch B ops N\r\n"
    MARK("syscall", "begin") MARK("syscall", "end")
    "perchbench syscall 1558 1441 1836 samples 3 batch 884 ops 3776\r\n"
    MARK("gzip", "begin") MARK("gzip", "end")
    "perchbench gzip 2000000 2000000 2000000 samples 1 batch 1 ops 1\r\n"
    "# Time for one null system call (getppid): 1558 (1441 - 1836)\r\n"
    EXIT("0") "[    3.920463] reboot: Power down\r\n";

static void serial_feed(const char *text, size_t len, size_t step,
                        struct bench_serial *s)
{
    start();
    bench_serial_start(s, &cap);
    for (size_t from = 0; from < len; from += step)
        bench_serial_bytes(s, (const uint8_t *)text + from,
                           len - from < step ? len - from : step);
    bench_serial_end(s);
}

static void serial_output_is_parsed(void)
{
    struct bench_serial s;

    serial_feed(serial_text, sizeof(serial_text) - 1, 4096, &s);
    CHECK(s.said.exit_status == 0);
    CHECK(res[0].have && res[0].median == 1558 && res[0].ops == 3776);
    CHECK(res[1].have && res[1].median == 2000000);
    CHECK(!res[0].counted);
    CHECK(res[BENCH_BOOT].have);
    CHECK(bench_missing(&set, res, false, true) == NULL);
    CHECK(!strcmp(cap.last, "[    3.920463] reboot: Power down"));
}

/* Every split of the bytes gives the same results. */
static void serial_split_anywhere(void)
{
    for (size_t step = 1; step < 64; step++) {
        struct bench_serial s;

        serial_feed(serial_text, sizeof(serial_text) - 1, step, &s);
        CHECK(s.said.exit_status == 0);
        CHECK(res[0].have && res[0].median == 1558);
        CHECK(res[1].have && res[BENCH_BOOT].have);
    }
}

/* perchbench failed: /init reports its status; none at all is -1. */
static void serial_exit_status(void)
{
    static const char failed[] =
        "perchbench: gzip: the workload failed (exit status 1)\r\n" EXIT("1");
    static const char none[] = "Kernel panic - not syncing\r\n";
    struct bench_serial s;

    serial_feed(failed, sizeof(failed) - 1, 7, &s);
    CHECK(s.said.exit_status == 1);
    CHECK_CONTAINS(cap.last, "the workload failed");
    serial_feed(none, sizeof(none) - 1, 4096, &s);
    CHECK(s.said.exit_status == -1);
    CHECK(!res[BENCH_BOOT].have);
}

/* A sequence cut short passes through as text and breaks no later line. */
static void serial_partial_sequences(void)
{
    static const char text[] =
        "\033]perch-mark;syscall\r\n\033]perch-exit;9x\r\n"
        "perchbench syscall 3 2 4 samples 3 batch 1 ops 3\r\n\033]perch-ex";
    struct bench_serial s;

    serial_feed(text, sizeof(text) - 1, 5, &s);
    CHECK(res[0].have && res[0].median == 3);
    CHECK(s.said.exit_status == -1);
    CHECK(!strcmp(cap.last, "\033]perch-ex"));
}

/* ---- perch bench's words ---- */

static const char *names[BENCH_MAX];
static int nnames;
static struct error err;

/* perch bench WORDS...: bench_parse_args's return, into set and names. */
#define ARGS(...)                                                          \
    ({                                                                     \
        static char *w_[] = { __VA_ARGS__ };                               \
        memset(&set, 0, sizeof(set));                                      \
        nnames = 0;                                                        \
        err.msg[0] = '\0';                                                 \
        bench_parse_args(sizeof(w_) / sizeof(w_[0]), w_, &set, names,      \
                         &nnames, &err);                                   \
    })

static void args_defaults(void)
{
    CHECK(ARGS("syscall") == 0);
    CHECK(set.cpus == 1 && !set.quick && !set.qemu && !set.use_uml && !set.vs);
    CHECK(!strcmp(set.out_dir, BENCH_DEFAULT_OUT));
    CHECK(nnames == 1 && !strcmp(names[0], "syscall"));
}

static void args_cpus(void)
{
    CHECK(ARGS("--quick", "--cpus", "4", "--qemu", "micro", "--out", "d") == 0);
    CHECK(set.cpus == 4 && set.quick && set.qemu && !strcmp(set.out_dir, "d"));
    CHECK(nnames == 1 && !strcmp(names[0], "micro"));
    CHECK(ARGS("--cpus", "64") == 0);
    CHECK(set.cpus == MAX_CPUS && nnames == 0);
    /* --vs's words are perch run's, not bench's */
    CHECK(ARGS("--vs", "--cpus 2", "syscall") == 0);
    CHECK(set.cpus == 1 && !strcmp(set.vs, "--cpus 2"));
}

/* UML beside TCG or alone, and with --cpus N (UML's one CPU is the
 * report's note, not a refusal). */
static void args_uml(void)
{
    CHECK(ARGS("--uml", "syscall") == 0);
    CHECK(set.use_uml && !set.qemu && nnames == 1);
    CHECK(ARGS("--quick", "--qemu", "--uml", "--cpus", "2", "micro") == 0);
    CHECK(set.use_uml && set.qemu && set.quick && set.cpus == 2);
    CHECK(ARGS("--uml", "--uml", "syscall") == -1);
    CHECK_CONTAINS(err.msg, "--uml given twice");
    CHECK(ARGS("--uml=1") == -1);
    CHECK_CONTAINS(err.msg, "unknown bench option '--uml=1'");
}

/* A side that does not run the net group (UML) lacks none of it. */
static void missing_without_net(void)
{
    start();
    set.group[2] = BENCH_NET;
    set.chosen[2] = true;
    feed("perchbench syscall 1 1 1 samples 1 batch 1 ops 1\n"
         "perchbench gzip 1 1 1 samples 1 batch 1 ops 1\n");
    CHECK(!strcmp(bench_missing(&set, res, false, true), "pipe"));
    CHECK(bench_missing(&set, res, false, false) == NULL);
}

static void args_cpus_refused(void)
{
    CHECK(ARGS("--cpus", "0") == -1);
    CHECK_CONTAINS(err.msg, "--cpus must be at least 1 vCPU");
    CHECK(ARGS("--cpus", "65", "syscall") == -1);
    CHECK_CONTAINS(err.msg, "--cpus 65 is too many vCPUs (at most 64)");
    CHECK(ARGS("--cpus", "two") == -1);
    CHECK_CONTAINS(err.msg, "--cpus 'two' is not a number of vCPUs");
    CHECK(ARGS("--cpus", "") == -1);
    CHECK_CONTAINS(err.msg, "--cpus needs a number of vCPUs");
    CHECK(ARGS("syscall", "--cpus") == -1);
    CHECK_CONTAINS(err.msg, "--cpus needs a value");
    CHECK(ARGS("--cpus", "2", "--cpus", "2") == -1);
    CHECK_CONTAINS(err.msg, "--cpus given twice");
    CHECK(ARGS("--cpus=2") == -1);
    CHECK_CONTAINS(err.msg, "unknown bench option '--cpus=2'");
}

int main(void)
{
    RUN(args_defaults);
    RUN(args_cpus);
    RUN(args_cpus_refused);
    RUN(args_uml);
    RUN(missing_without_net);
    RUN(result_line_is_parsed);
    RUN(line_without_ops);
    RUN(line_with_samples_times_batch_too_large);
    RUN(pieces_and_crlf);
    RUN(other_lines_are_ignored);
    RUN(marks_bracket_counters);
    RUN(marks_without_counters);
    RUN(boot_mark_times_the_boot);
    RUN(missing_names_the_first_gap);
    RUN(list_lines_name_group_and_unit);
    RUN(list_lines_refused);
    RUN(rate_line_is_parsed);
    RUN(choose_by_group_and_name);
    RUN(choose_refuses_unknown);
    RUN(busybox_for_work_and_smp);
    RUN(serial_output_is_parsed);
    RUN(serial_split_anywhere);
    RUN(serial_exit_status);
    RUN(serial_partial_sequences);
    return check_exit_status();
}
