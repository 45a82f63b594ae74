/*
 * perchbench's work group: real workloads (busybox's shell and applets),
 * each a shell script timed as a whole, so that perch is judged on what
 * people run and not only on single operations. `/bin/sh -c SCRIPT` is
 * forked and exec'd from --bin (in the guest /bin, natively a folder of
 * the same busybox), in its own folder under --tmp, with a fixed
 * environment: PATH and B the --bin folder, W its folder, RUN the sample.
 * One operation is one run; the result line is the micro-benchmarks'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "groups.h"

#define TEXT_BYTES "33554432"   /* 32 MiB */

/* 32 MiB of text (to the end of the line that reaches it) from awk into
 * the file, 64 lines to a write: CPU-bound, and gzip's input. (busybox
 * awk writes every print at once: line by line this would be 530,000
 * write system calls, a system-call benchmark, which the micro group has.) */
#define MAKE_TEXT                                                         \
    "awk 'BEGIN { for (i = 0; n < " TEXT_BYTES "; i++) { s = sprintf(\"%d " \
    "%x the quick brown fox jumps over the lazy dog %d\", i, i * 7919, "  \
    "i % 1000); n += length(s) + 1; b = b s \"\\n\"; "                   \
    "if (++k == 64) { printf \"%s\", b; b = \"\"; k = 0 } } "             \
    "printf \"%s\", b }' > text"

/* true and seq by their paths: busybox's shell runs an applet named
 * without a path in-process, and these must be real fork + exec. */
#define WORK(name, what, setup, script) \
    TIMED_SCRIPT(name, "work", what, setup, script)

const struct bench work_benches[] = {
    WORK("shexec", "Time for 500 fork+exec of true from a shell loop", NULL,
         "i=0; while [ $i -lt 500 ]; do \"$B/true\"; i=$((i + 1)); done"),
    WORK("sharith", "Time for a shell arithmetic loop of 50000 rounds", NULL,
         "i=0; s=0; while [ $i -lt 50000 ]; do "
         "s=$(((s + i * i) % 1000003)); i=$((i + 1)); done"),
    WORK("gentext", "Time for 32 MiB of text from awk into a file", NULL,
         MAKE_TEXT),
    WORK("gzip", "Time for gzip -9 and gunzip of 32 MiB of text", MAKE_TEXT,
         "gzip -9 -c text > text.gz && gunzip -c text.gz > /dev/null"),
    WORK("sort", "Time for a sort of 200000 lines",
         "awk 'BEGIN { srand(1); for (i = 0; i < 200000; i++) "
         "print int(rand() * 1000000000), i }' > lines",
         "sort lines > sorted"),
    WORK("md5tree", "Time for 400 files made by 420 processes, then md5sum",
         NULL,
         "mkdir t$RUN && cd t$RUN && for a in $(seq 20); do "
         "\"$B/mkdir\" $a || exit; for b in $(seq 20); do "
         "\"$B/seq\" $a $b > $a/$b || exit; done; done && "
         "find . -type f | sort | xargs md5sum > ../sums$RUN"),
};
const int work_count = sizeof(work_benches) / sizeof(work_benches[0]);

/* sh -c script in cwd, stdout to /dev/null (nothing may come between
 * perchbench's lines), stderr left to say what went wrong. */
static void run_script(const char *script, const char *cwd, const char *w,
                       int run)
{
    char sh[PATH_MAX], env[3][PATH_MAX + 8], env_run[32];
    char *argv[] = { "sh", "-c", (char *)script, NULL };
    char *envp[] = { env[0], env[1], env[2], env_run, "LC_ALL=C", NULL };
    pid_t pid;

    snprintf(sh, sizeof(sh), "%s/sh", opt.bin);
    snprintf(env[0], sizeof(env[0]), "PATH=%s", opt.bin);
    snprintf(env[1], sizeof(env[1]), "B=%s", opt.bin);
    snprintf(env[2], sizeof(env[2]), "W=%s", w);
    snprintf(env_run, sizeof(env_run), "RUN=%d", run);
    pid = start_child();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

        signal(SIGPIPE, SIG_DFL);   /* as a shell expects; ours ignores it */
        if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || chdir(cwd) < 0)
            die("cannot start the workload in %s: %s", cwd, strerror(errno));
        execve(sh, argv, envp);
        die("cannot run %s: %s", sh, strerror(errno));
    }
    reap(pid, "workload");
}

/* The workload's folder, emptied: a run before may have died in it. */
static void fresh_folder(const char *dir)
{
    run_script("rm -rf \"$W\"", opt.tmp, dir, 0);
    if (mkdir(dir, 0755) < 0)
        die("cannot create %s: %s", dir, strerror(errno));
}

/* Set-up once, untimed and outside the marks; then the timed runs; then
 * the folder goes (32 MiB of text must not stay in a guest's RAM). */
void run_work(const struct bench *b, struct result *res)
{
    double per_run[MAX_SAMPLES];
    char dir[PATH_MAX];
    int n = opt.work_samples;

    current = b->name;
    snprintf(dir, sizeof(dir), "%s/perchbench-%s", opt.tmp, b->name);
    fresh_folder(dir);
    if (b->setup)
        run_script(b->setup, dir, dir, 0);
    mark(b->name, "begin");
    for (int s = 0; s < n; s++) {
        uint64_t t0 = now_ns();

        run_script(b->script, dir, dir, s + 1);
        per_run[s] = (double)(now_ns() - t0);
    }
    mark(b->name, "end");
    run_script("rm -rf \"$W\"", opt.tmp, dir, 0);
    current = NULL;
    report_result(b, per_run, n, 1, n, res);
}
