/*
 * What every part of perchbench shares (see common.h): the options, the
 * one way to fail, the helpers a benchmark's processes use, the clock, the
 * marks perch brackets a benchmark with, and the result line.
 */
#include "common.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct options opt = { .cpu = -1, .bin = "/bin", .tmp = "/tmp" };

const char *current;
bool in_child;                   /* set in every forked helper process */
static bool mark_open;           /* a begin mark has no end mark yet */

/* One clear line on stderr, then exit 1. In a helper process: the line (with
 * "(child)"), then _exit(1); the parent sees the status and says so too. */
void die(const char *fmt, ...)
{
    char line[512];
    size_t len;
    va_list ap;

    if (!in_child && mark_open)
        mark(current, "end");   /* keep the Launcher's brackets balanced */
    fflush(stdout);
    /* One write, so that lines of several dying processes do not mix. */
    snprintf(line, sizeof(line), "perchbench: %s%s%s", current ? current : "",
             current && in_child ? " (child)" : "", current ? ": " : "");
    len = strlen(line);
    va_start(ap, fmt);
    vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
    va_end(ap);
    len = strlen(line);
    line[len++] = '\n';
    if (write(STDERR_FILENO, line, len) < 0) {
        /* nowhere left to say it */
    }
    if (in_child)
        _exit(1);
    exit(1);
}

/* ---- small helpers shared by the benchmarks ---------------------------- */

void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EPIPE && in_child)
            _exit(1);   /* the parent is gone and has said why */
        if (n < 0)
            die("write: %s", strerror(errno));
        p += n;
        len -= n;
    }
}

bool read_all(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = read(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("read: %s", strerror(errno));
        if (n == 0)
            return false;
        p += n;
        len -= n;
    }
    return true;
}

pid_t start_child(void)
{
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        die("cannot fork: %s", strerror(errno));
    if (pid == 0)
        in_child = true;
    return pid;
}

/* Wait for a helper; it must have exited with status 0. */
void reap(pid_t pid, const char *who)
{
    int status;

    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            die("cannot wait for the %s: %s", who, strerror(errno));
    }
    if (WIFSIGNALED(status))
        die("the %s was killed by signal %d (%s)%s", who, WTERMSIG(status),
            strsignal(WTERMSIG(status)),
            WTERMSIG(status) == SIGKILL ? ": out of memory?" : "");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("the %s failed (exit status %d)", who, WEXITSTATUS(status));
}

void sleep_ms(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* ---- timing: the one place that reads the clock ------------------------ */

uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* ---- marks and the result line ----------------------------------------- */

void mark(const char *name, const char *what)
{
    char buf[128];
    int len;

    if (!opt.marks)
        return;
    fflush(stdout);
    len = snprintf(buf, sizeof(buf), "\033]perch-mark;%s;%s\007", name, what);
    write_all(STDOUT_FILENO, buf, len);
    mark_open = strcmp(what, "begin") == 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* A result in a rate (MB/s, IOPS) rather than in ns per operation. */
bool result_is_rate(const struct bench *b)
{
    return strcmp(b->unit, "ns") != 0;
}

void report_result(const struct bench *b, double *per_op, int samples,
                   long batch, long ops, struct result *res)
{
    qsort(per_op, samples, sizeof(per_op[0]), cmp_double);
    res->samples = samples;
    res->batch = batch;
    res->ops = ops;
    res->min = per_op[0];
    res->max = per_op[samples - 1];
    res->median = samples % 2 ? per_op[samples / 2]
        : (per_op[samples / 2 - 1] + per_op[samples / 2]) / 2;
    /* Rates to a tenth: TCG's may be a few MB/s. */
    printf(result_is_rate(b) ? "perchbench %s %.1f %.1f %.1f samples %d batch %ld ops %ld\n"
                      : "perchbench %s %.0f %.0f %.0f samples %d batch %ld ops %ld\n",
           b->name, res->median, res->min, res->max, res->samples, res->batch,
           res->ops);
    fflush(stdout);
}
