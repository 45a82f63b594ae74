/* What every part of perchbench uses (common.c): the benchmark and result
 * records, the options, failing, the processes' helpers, the clock, the
 * marks and the result line. The driver and micro-benchmarks
 * (perchbench.c) and the groups (groups.h) sit above it. */
#ifndef PERCHBENCH_COMMON_H
#define PERCHBENCH_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MAX_SAMPLES 1001

struct result;

struct bench {
    const char *name;
    const char *group;      /* "micro", "work", "smp", "disk", "net": perch
                               bench selects by it */
    const char *what;       /* virtbench's words */
    const char *unit;       /* of the result line's numbers: "ns" (per
                               operation), "MB/s", "IOPS", "trips/s" (rates) */
    int (*run)(long n, uint64_t *ns);   /* micro: n operations, timed */
    long max_batch;         /* memory bound; 0: none */
    /* work, smp, disk, net: the benchmark's own driver, marks and result
     * line included */
    void (*drive)(const struct bench *b, struct result *res);
    const char *setup;      /* work, smp: shell script run once, untimed */
    const char *script;     /* work, smp: the timed shell script, once a
                               sample */
};

struct result {
    double median, min, max;
    int samples;
    long batch;
    long ops;               /* operations run inside the marks, in all */
};

extern struct options {
    int samples;        /* 0: the default for the mode */
    int work_samples;   /* runs of each workload, passes of each disk and
                           net benchmark */
    int min_ms;         /* 0: the default for the mode */
    bool quick;
    bool marks;
    int cpu;            /* -1: no pinning */
    const char *bin;    /* the workloads' sh, true and busybox applets */
    const char *tmp;    /* where the workloads write their files */
    const char *disk;   /* the disk group's device or file; NULL: none */
    const char *net_listen;   /* the net group's A.B.C.D:PORT; NULL: none */
} opt;

extern const char *current;      /* the benchmark running, for messages */
extern bool in_child;            /* this is a helper process (start_child) */

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
uint64_t now_ns(void);
void sleep_ms(int ms);
pid_t start_child(void);
void reap(pid_t pid, const char *who);
void mark(const char *name, const char *what);
void write_all(int fd, const void *buf, size_t len);
/* Exactly len bytes; false at end of file (the other side is gone). */
bool read_all(int fd, void *buf, size_t len);

/* A result in a rate (MB/s, IOPS) rather than in ns per operation. */
bool result_is_rate(const struct bench *b);

/* Sort the samples (ns per operation, or a rate in b's unit), fill res and
 * print the result line (the one format perch parses, for every group). */
void report_result(const struct bench *b, double *per_op, int samples,
                   long batch, long ops, struct result *res);

#endif
