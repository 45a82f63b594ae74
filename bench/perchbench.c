/*
 * perchbench: the micro-benchmarks perch's changes are judged by, written
 * for perch. One static program (no libc in the guest's initramfs) that
 * runs unchanged natively and inside a perch guest, so that both sides of
 * every comparison come from the same code:
 *
 *   pipe       context switch via pipe (virtbench), per one-way switch
 *   cow        one copy-on-write fault after fork (virtbench)
 *   exec       fork + execve of this program + wait (virtbench, lat_proc exec)
 *   fork       fork + exit + wait (virtbench, lmbench lat_proc fork)
 *   pte2       two PTE updates (virtbench)
 *   pagefault  one fresh page fault (lmbench lat_pagefault)
 *   syscall    one null system call
 *   thrash     lguest's page-table thrash, per round
 *
 * the work group of real workloads, timed shell scripts (work.c), the
 * smp group, two jobs one after the other and at once (smp.c), the
 * disk group, O_DIRECT throughput and IOPS on the device --disk names
 * (disk.c), and the net group, TCP throughput and round trips with a peer
 * process on the host (net.c).
 *
 * Method (virtbench's): a benchmark runs a batch of N operations as one
 * timed interval (CLOCK_MONOTONIC, read twice); N grows until a batch takes
 * at least 10 ms (and 1000 times the cost of reading the clock, which is
 * large in a guest without a vDSO clock); then it takes 7 samples of that
 * batch, subtracts the measured cost of reading the clock from each, and
 * reports nanoseconds per operation as median (min - max). Set-up (mapping
 * and pre-faulting memory, starting partner processes) is never timed.
 *
 * Output: a few '#' lines for people, then one line per benchmark,
 *   perchbench NAME MEDIAN MIN MAX samples S batch B ops N
 * (ns per operation, rounded; for the disk and net groups MB/s, IOPS or
 * trips/s instead, as `list` says; B operations per sample; N operations run between the begin
 * and end marks in all, batch sizing included, so that perch can divide
 * its counters exactly), then the results
 * again in virtbench's words ("Time for ...: MEDIAN (MIN - MAX)").
 * With --marks, each benchmark is bracketed on stdout by
 * "\033]perch-mark;NAME;begin\007" and "\033]perch-mark;NAME;end\007", which
 * perch's Launcher takes off the console to bracket its own counters.
 *
 * --quick is a smoke run: batches of >= 1 ms (and 100 times the clock's
 * cost, so that a guest whose clock costs tens of us still finishes the
 * suite in seconds), 3 samples.
 *
 * Exit status: 0; 1 when a benchmark failed (fork, memory, a helper process
 * that died: one line on stderr says which); 2 for a bad command line.
 *
 * The micro-benchmarks need no files: they use anonymous memory and
 * pipes. `exec` runs /proc/self/exe, or argv[0] through PATH when /proc is
 * not mounted. The work and smp groups need busybox in --bin and room in
 * --tmp; the disk group a device or file of 256 MiB or more in --disk,
 * which it overwrites, and the net group a peer connecting to --net-listen
 * (so `all` leaves them out: they run when named, as the smp group, which
 * measures several CPUs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "groups.h"
#include "torture.h"

#define DEFAULT_SAMPLES  7
#define DEFAULT_MIN_MS   10
#define QUICK_SAMPLES    3
#define QUICK_MIN_MS     1
#define WORK_SAMPLES     3       /* runs of a workload: seconds each */
#define WORK_QUICK_SAMPLES 1
#define MAX_BENCHES      32      /* every group together */
#define EXEC_ARG         "nop"   /* the trivial subcommand `exec` runs */

#define THRASH_PROCS     5
#define THRASH_PAGES     1000

/* ---- process-wide state ------------------------------------------------- */

static const char *argv0;
static char self_exe[PATH_MAX];  /* "" when /proc/self/exe is unreadable */
static long page_size;

/* ---- small helpers of the micro-benchmarks ----------------------------- */

static void put_byte(int fd)
{
    write_all(fd, "x", 1);
}

/* In a helper, end of file means the parent went away (it has said why):
 * leave quietly. In the parent, it means a helper died: reaping says how. */
static bool get_byte(int fd)
{
    char c;

    if (read_all(fd, &c, 1))
        return true;
    if (in_child)
        _exit(1);
    return false;
}

static void make_pipe(int fds[2])
{
    if (pipe(fds) < 0)
        die("cannot create a pipe: %s", strerror(errno));
}

/* n fresh private anonymous pages, not yet faulted in, in 4 KiB pages even
 * where transparent huge pages are on. NULL when there is no memory. */
static volatile char *map_pages(long n)
{
    void *p = mmap(NULL, n * page_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        if (errno == ENOMEM)
            return NULL;
        die("mmap of %ld pages: %s", n, strerror(errno));
    }
    madvise(p, n * page_size, MADV_NOHUGEPAGE);   /* EINVAL without THP */
    return p;
}

static void unmap_pages(volatile char *p, long n)
{
    if (munmap((void *)p, n * page_size) < 0)
        die("munmap: %s", strerror(errno));
}

/* Write one byte in each of n pages: a store only, as a read first would
 * map the shared zero page and then take a second (write) fault. */
static void touch_pages(volatile char *p, long n, char value)
{
    for (long i = 0; i < n; i++)
        p[i * page_size] = value;
}

/* ---- what reading the clock costs -------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* What an empty timed interval measures: the median of back-to-back clock
 * readings. Subtracted from every sample. */
static uint64_t timer_overhead(void)
{
    static uint64_t d[1001];

    for (int i = 0; i < 1001; i++) {
        uint64_t t0 = now_ns();

        d[i] = now_ns() - t0;
    }
    qsort(d, 1001, sizeof(d[0]), cmp_u64);
    return d[500];
}

/* ---- the benchmarks ---------------------------------------------------- */

/*
 * Each runs n operations and stores the time of the timed part in *ns
 * (exactly one interval, start and end read with now_ns()). Returns 0, or
 * -ENOMEM when the batch's memory could not be had (the driver then keeps
 * the previous batch size). Every other failure ends the program.
 */

/* Context switch via pipe: two processes pass one byte back and forth; each
 * pass is one switch. n is even (the driver only makes even batches). On a
 * machine with several CPUs the two may run on different CPUs, where the
 * cost is a cross-CPU wake-up instead: --cpu pins both to one CPU. The
 * partner answers until its pipe is closed, so its exit is not timed. */
static int bench_pipe(long n, uint64_t *ns)
{
    int to_child[2], to_parent[2];
    long trips = n / 2;
    uint64_t t0;
    char c;
    pid_t pid;

    make_pipe(to_child);
    make_pipe(to_parent);
    pid = start_child();
    if (pid == 0) {
        close(to_child[1]);
        close(to_parent[0]);
        while (read_all(to_child[0], &c, 1))
            write_all(to_parent[1], &c, 1);
        _exit(0);
    }
    close(to_child[0]);
    close(to_parent[1]);
    put_byte(to_child[1]);                    /* warm-up: the child runs */
    if (!get_byte(to_parent[0]))
        reap(pid, "pipe partner");

    t0 = now_ns();
    for (long i = 0; i < trips; i++) {
        put_byte(to_child[1]);
        if (!get_byte(to_parent[0]))
            break;
    }
    *ns = now_ns() - t0;

    close(to_child[1]);
    close(to_parent[0]);
    reap(pid, "pipe partner");
    return 0;
}

/* One copy-on-write fault: the parent writes each of n anonymous pages (so
 * each is present and its own), forks, and the child times writing one
 * byte in each page: every write faults and copies the page the parent
 * still maps. The child sends its time back through a pipe. (virtbench's
 * cow maps one file page MAP_PRIVATE n times instead; fork is what a guest
 * does all day.) */
static int bench_cow(long n, uint64_t *ns)
{
    volatile char *p = map_pages(n);
    int result[2];
    pid_t pid;

    if (!p)
        return -ENOMEM;
    touch_pages(p, n, 1);
    make_pipe(result);
    pid = start_child();
    if (pid == 0) {
        uint64_t t0, t;

        close(result[0]);
        t0 = now_ns();
        touch_pages(p, n, 2);
        t = now_ns() - t0;
        write_all(result[1], &t, sizeof(t));
        _exit(0);
    }
    close(result[1]);
    if (!read_all(result[0], ns, sizeof(*ns)))
        reap(pid, "child that writes the pages");   /* says why it died */
    close(result[0]);
    reap(pid, "child that writes the pages");
    unmap_pages(p, n);
    return 0;
}

/* fork + execve + wait: the child runs this same program with the trivial
 * subcommand "nop", which returns from main at once. */
static int bench_exec(long n, uint64_t *ns)
{
    char *args[] = { (char *)argv0, EXEC_ARG, NULL };
    uint64_t t0 = now_ns();

    for (long i = 0; i < n; i++) {
        pid_t pid = start_child();

        if (pid == 0) {
            if (self_exe[0])
                execv(self_exe, args);
            else
                execvp(argv0, args);
            die("cannot run %s: %s", self_exe[0] ? self_exe : argv0, strerror(errno));
        }
        reap(pid, "exec'd child");
    }
    *ns = now_ns() - t0;
    return 0;
}

/* fork + exit + wait (lat_proc fork): the child exits at once. */
static int bench_fork(long n, uint64_t *ns)
{
    uint64_t t0 = now_ns();

    for (long i = 0; i < n; i++) {
        pid_t pid = start_child();

        if (pid == 0)
            _exit(0);
        reap(pid, "forked child");
    }
    *ns = now_ns() - t0;
    return 0;
}

/* Two PTE updates, as an mprotect pair: one present, written page is made
 * PROT_NONE and then read-write again; each call rewrites the page's PTE
 * (the first also flushes its TLB entry). This is the method of the native
 * figure in docs/kvm.md. (virtbench's pte-update instead mremap()s a
 * page to the slot next to it and back: one PTE cleared, one set.) The page
 * sits between two read-only pages so its VMA is never merged or split. */
static int bench_pte2(long n, uint64_t *ns)
{
    char *area = mmap(NULL, 3 * page_size, PROT_READ,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *page = area + page_size;
    uint64_t t0;

    if (area == MAP_FAILED) {
        if (errno == ENOMEM)
            return -ENOMEM;
        die("mmap: %s", strerror(errno));
    }
    if (mprotect(page, page_size, PROT_READ | PROT_WRITE) < 0)
        die("mprotect: %s", strerror(errno));
    *(volatile char *)page = 1;

    t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (mprotect(page, page_size, PROT_NONE) < 0 ||
            mprotect(page, page_size, PROT_READ | PROT_WRITE) < 0)
            die("mprotect: %s", strerror(errno));
    }
    *ns = now_ns() - t0;

    munmap(area, 3 * page_size);
    return 0;
}

/* One fresh page fault: write one byte in each page of a fresh private
 * anonymous mapping (each write allocates and zeroes a page). lmbench's
 * lat_pagefault maps a cached file instead; anonymous memory needs no file
 * system and is what docs/kvm.md measured natively. */
static int bench_pagefault(long n, uint64_t *ns)
{
    volatile char *p = map_pages(n);
    uint64_t t0;

    if (!p)
        return -ENOMEM;
    t0 = now_ns();
    touch_pages(p, n, 1);
    *ns = now_ns() - t0;
    unmap_pages(p, n);
    return 0;
}

/* One null system call: getppid through syscall(), which no libc caches. */
static int bench_syscall(long n, uint64_t *ns)
{
    uint64_t t0 = now_ns();

    for (long i = 0; i < n; i++)
        syscall(SYS_getppid);
    *ns = now_ns() - t0;
    return 0;
}

/* One thrash process: THRASH_PAGES pages of its own, faulted in before the
 * timing starts; each turn it waits for the byte from the previous process,
 * writes one byte in each page, and passes the byte on. */
static void thrash_member(int me, int ring[][2], int ready_fd)
{
    int in = ring[me][0], out = ring[(me + 1) % THRASH_PROCS][1];
    volatile char *p;
    char c;

    for (int k = 0; k < THRASH_PROCS; k++) {
        if (ring[k][0] != in)
            close(ring[k][0]);
        if (ring[k][1] != out)
            close(ring[k][1]);
    }
    p = map_pages(THRASH_PAGES);
    if (!p)
        die("out of memory for %d pages", THRASH_PAGES);
    touch_pages(p, THRASH_PAGES, 0);
    put_byte(ready_fd);
    close(ready_fd);
    while (read_all(in, &c, 1)) {
        touch_pages(p, THRASH_PAGES, c);
        write_all(out, &c, 1);
    }
    _exit(0);   /* member 0 closed the ring: the timing is over */
}

/* lguest's page-table thrash: THRASH_PROCS processes in a ring of pipes,
 * each touching its THRASH_PAGES pages and then handing over to the next.
 * One operation is one round: every process has had one turn (5 handovers,
 * 5000 page writes, 5 address-space switches). This process is member 0. */
static int bench_thrash(long rounds, uint64_t *ns)
{
    int ring[THRASH_PROCS][2], ready[2];
    pid_t pids[THRASH_PROCS];
    volatile char *p;
    uint64_t t0;

    for (int k = 0; k < THRASH_PROCS; k++)
        make_pipe(ring[k]);
    make_pipe(ready);
    for (int k = 1; k < THRASH_PROCS; k++) {
        pids[k] = start_child();
        if (pids[k] == 0) {
            close(ready[0]);
            thrash_member(k, ring, ready[1]);
        }
    }
    close(ready[1]);
    for (int k = 0; k < THRASH_PROCS; k++) {
        if (k != 0)
            close(ring[k][0]);
        if (k != 1)
            close(ring[k][1]);
    }
    p = map_pages(THRASH_PAGES);
    if (!p)
        die("out of memory for %d pages", THRASH_PAGES);
    touch_pages(p, THRASH_PAGES, 0);
    for (int k = 1; k < THRASH_PROCS; k++) {
        if (!get_byte(ready[0]))
            die("a thrash process failed to start");
    }
    close(ready[0]);
    put_byte(ring[1][1]);                     /* warm-up: everyone runs */
    if (!get_byte(ring[0][0]))
        die("a thrash process died");

    t0 = now_ns();
    for (long r = 0; r < rounds; r++) {
        touch_pages(p, THRASH_PAGES, (char)r);
        put_byte(ring[1][1]);
        if (!get_byte(ring[0][0]))
            break;
    }
    *ns = now_ns() - t0;

    close(ring[1][1]);
    close(ring[0][0]);
    for (int k = 1; k < THRASH_PROCS; k++)
        reap(pids[k], "thrash process");
    unmap_pages(p, THRASH_PAGES);
    return 0;
}

/* ---- the table of benchmarks, in the order `all` runs them ------------- */

#define MICRO(name, what, run, max_batch) \
    { name, "micro", what, "ns", run, max_batch, NULL, NULL, NULL }

static const struct bench benches[] = {
    MICRO("pipe",      "Time for one context switch via pipe", bench_pipe, 0),
    MICRO("cow",       "Time for one Copy-on-Write fault", bench_cow, 8192),
    MICRO("exec",      "Time for one fork/exec/wait", bench_exec, 0),
    MICRO("fork",      "Time for one fork/exit/wait", bench_fork, 0),
    MICRO("pte2",      "Time for two PTE updates", bench_pte2, 0),
    MICRO("pagefault", "Time for one fresh anonymous page fault", bench_pagefault, 16384),
    MICRO("syscall",   "Time for one null system call (getppid)", bench_syscall, 0),
    MICRO("thrash",    "Time for one thrash round (5 processes x 1000 pages)", bench_thrash, 0),
};
#define NBENCH ((int)(sizeof(benches) / sizeof(benches[0])))

/* Benchmark i of `list`: the micro-benchmarks, the work, smp, disk and
 * net groups. NULL past the end. */
static const struct bench *bench_at(int i)
{
    if (i < NBENCH)
        return &benches[i];
    i -= NBENCH;
    if (i < work_count)
        return &work_benches[i];
    i -= work_count;
    if (i < smp_count)
        return &smp_benches[i];
    i -= smp_count;
    if (i < disk_count)
        return &disk_benches[i];
    i -= disk_count;
    return i < net_count ? &net_benches[i] : NULL;
}

/* Every group's, as chosen[] and res[] hold them. */
static int bench_count(void)
{
    return NBENCH + work_count + smp_count + disk_count + net_count;
}

/* ---- the driver: batch sizing, samples, statistics, output ------------- */

/* A batch lasts at least this many times the cost of reading the clock. */
static uint64_t overhead_factor(void)
{
    return opt.quick ? 100 : 1000;
}

/* One batch, its n operations added to *ops when it ran (a batch that
 * lacked memory ran nothing): the count perch divides its counters by. */
static int run_counted(const struct bench *b, long n, uint64_t *ns, long *ops)
{
    int rc = b->run(n, ns);

    if (rc == 0)
        *ops += n;
    return rc;
}

static void run_bench(const struct bench *b, uint64_t overhead, struct result *res)
{
    uint64_t target = (uint64_t)opt.min_ms * 1000000u, t;
    long cap = b->max_batch ? b->max_batch : LONG_MAX / 32;
    long n = 2, fitted = 0;     /* fitted: the last size that had memory */
    long ops = 0;
    double per_op[MAX_SAMPLES];

    if (target < overhead * overhead_factor())
        target = overhead * overhead_factor();
    current = b->name;
    mark(b->name, "begin");

    /* Grow the batch until one takes long against the clock's overhead:
     * toward the target by estimate, at least doubling, at most x16, even.
     * Each size is run twice and the faster counts, so that one run slowed
     * by something else on the machine does not stop the growth early
     * (once with --quick: in a guest, a run's set-up costs more than its
     * batch, and a smoke run need not size batches well). */
    for (;;) {
        uint64_t t2 = UINT64_MAX;
        long next;

        if (run_counted(b, n, &t, &ops) < 0 ||
            (!opt.quick && run_counted(b, n, &t2, &ops) < 0)) {
            if (!fitted)
                die("out of memory, even for a batch of %ld", n);
            n = fitted;
            break;
        }
        fitted = n;
        t = t2 < t ? t2 : t;
        if (t >= target || n >= cap)
            break;
        next = t ? (long)((double)n * target / t * 1.25) : n * 16;
        next = next < 2 * n ? 2 * n : next > 16 * n ? 16 * n : next;
        next = (next + 1) & ~1L;
        n = next > cap ? cap : next;
    }

    for (int s = 0; s < opt.samples; s++) {
        if (run_counted(b, n, &t, &ops) < 0)
            die("out of memory for a batch of %ld", n);
        per_op[s] = (double)(t > overhead ? t - overhead : 0) / n;
    }
    mark(b->name, "end");
    current = NULL;

    report_result(b, per_op, opt.samples, n, ops, res);
}

static void print_header(uint64_t overhead)
{
    struct utsname u;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    if (uname(&u) < 0)
        memset(&u, 0, sizeof(u));
    printf("# perchbench: ns per operation, median (min - max) of %d samples,"
           " batches of >= %d ms%s\n", opt.samples, opt.min_ms,
           opt.quick ? " (quick)" : "");
    printf("# %s %s %s, %ld CPU(s) online, %s, clock overhead %llu ns (subtracted)\n",
           u.sysname, u.release, u.machine, cpus,
           opt.cpu >= 0 ? "pinned to one CPU"
           : cpus > 1 ? "not pinned (pipe depends on placement; --cpu N)" : "one CPU",
           (unsigned long long)overhead);
    printf("# perchbench NAME MEDIAN MIN MAX samples S batch B ops N"
           " (disk, net: rates, of %d passes)\n", opt.work_samples);
    fflush(stdout);
}

static void print_summary(const bool *chosen, const struct result *res)
{
    for (int i = 0; bench_at(i); i++) {
        const struct bench *b = bench_at(i);

        if (chosen[i] && result_is_rate(b))
            printf("# %s: %.1f %s (%.1f - %.1f)\n", b->what, res[i].median,
                   b->unit, res[i].min, res[i].max);
        else if (chosen[i])
            printf("# %s: %.0f (%.0f - %.0f)\n", b->what, res[i].median,
                   res[i].min, res[i].max);
    }
    fflush(stdout);
}

/* ---- command line ------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: perchbench [OPTIONS] all|micro|work|smp|disk|net|list|BENCHMARK...\n"
        "       perchbench netpeer A.B.C.D:PORT\n"
        "       perchbench torture ROUNDS\n"
        "  all             run the micro and work groups, in the order of `list`\n"
        "  micro, work, smp, disk, net  run every benchmark of that group (smp:\n"
        "                  two jobs one after the other, then at once)\n"
        "  list            name the benchmarks: NAME GROUP UNIT WHAT\n"
        "  netpeer         the net group's other end: connect to a perchbench\n"
        "                  listening there (again until it answers) and serve it\n"
        "  torture         ROUNDS of SMP work whose every result is checked: a\n"
        "                  pipe, copy-on-write, fork and exec, and two threads\n"
        "                  on two CPUs faulting after mprotect and munmap\n"
        "  --quick         smoke run: small batches (>= 1 ms), 3 samples,\n"
        "                  one run of each workload\n"
        "  --samples N     samples per benchmark (default 7, max %d; workloads:\n"
        "                  runs, default 3)\n"
        "  --min-ms MS     least time of one batch (default 10)\n"
        "  --cpu N         pin every process to CPU N\n"
        "  --marks         bracket each benchmark with perch-mark escapes\n"
        "  --bin DIR       the workloads' busybox: DIR/sh, DIR/true, applets\n"
        "                  (default /bin)\n"
        "  --tmp DIR       where the workloads write, 40 MiB at most (default /tmp)\n"
        "  --disk PATH     the disk group's block device or file, 256 MiB or\n"
        "                  more (16 MiB with --quick): it is OVERWRITTEN\n"
        "  --net-listen A.B.C.D:PORT  where the net group waits for its netpeer\n"
        "Prints ns per operation: perchbench NAME MEDIAN MIN MAX samples S batch B ops N\n"
        "(N: operations run between the marks, batch sizing included; for a\n"
        "workload one operation is one run; the disk and net groups give MB/s,\n"
        "IOPS or trips/s instead, one operation being one request, 64 KiB or\n"
        "round trip)\n",
        MAX_SAMPLES);
}

static void __attribute__((noreturn)) bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "perchbench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
    exit(2);
}

/* The number after option argv[*i]; *i moves past it. */
static int number_arg(char **argv, int *i, int lo, int hi)
{
    char *end;
    long v;

    if (!argv[*i + 1])
        bad_usage("%s needs a number", argv[*i]);
    errno = 0;
    v = strtol(argv[*i + 1], &end, 10);
    if (errno || *end || end == argv[*i + 1] || v < lo || v > hi)
        bad_usage("bad number for %s", argv[*i]);
    (*i)++;
    return (int)v;
}

/* The value after option argv[*i] (a folder, a device); *i moves past it.
 * missing says what is wrong without one. */
static const char *value_arg(char **argv, int *i, const char *missing)
{
    if (!argv[*i + 1] || !argv[*i + 1][0])
        bad_usage(missing, argv[*i]);
    return argv[++*i];
}

/* Choose the benchmark called name, or each of group name ("all": the
 * groups that need no device, smp aside: it is for several CPUs). Returns
 * how many were chosen. */
static int choose(const char *name, bool *chosen)
{
    int n = 0;

    for (int i = 0; bench_at(i); i++) {
        const struct bench *b = bench_at(i);
        bool needs_nothing = !strcmp(b->group, "micro") || !strcmp(b->group, "work");

        if ((!strcmp(name, "all") && needs_nothing) || !strcmp(name, b->name) ||
            !strcmp(name, b->group)) {
            chosen[i] = true;
            n++;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    bool chosen[MAX_BENCHES] = { false }, any = false, list = false;
    struct result res[MAX_BENCHES];
    uint64_t overhead;
    ssize_t len;

    /* What `exec` runs: leave before doing anything else. */
    if (argc == 2 && strcmp(argv[1], EXEC_ARG) == 0)
        return 0;
    if (argc == 3 && strcmp(argv[1], "torture") == 0)
        return torture_main(argv[0], EXEC_ARG, argv[2]);
    if (argc == 3 && strcmp(argv[1], "netpeer") == 0) {
        signal(SIGPIPE, SIG_IGN);
        return net_peer(argv[2]);
    }

    argv0 = argv[0] ? argv[0] : "perchbench";
    if (bench_count() > MAX_BENCHES)
        die("%d benchmarks, room for %d", bench_count(), MAX_BENCHES);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--quick") == 0) {
            opt.quick = true;
        } else if (strcmp(a, "--marks") == 0) {
            opt.marks = true;
        } else if (strcmp(a, "--samples") == 0) {
            opt.samples = number_arg(argv, &i, 1, MAX_SAMPLES);
        } else if (strcmp(a, "--min-ms") == 0) {
            opt.min_ms = number_arg(argv, &i, 1, 60000);
        } else if (strcmp(a, "--cpu") == 0) {
            opt.cpu = number_arg(argv, &i, 0, CPU_SETSIZE - 1);
        } else if (strcmp(a, "--bin") == 0) {
            opt.bin = value_arg(argv, &i, "%s needs a folder");
        } else if (strcmp(a, "--tmp") == 0) {
            opt.tmp = value_arg(argv, &i, "%s needs a folder");
        } else if (strcmp(a, "--disk") == 0) {
            opt.disk = value_arg(argv, &i, "%s needs a device or file");
        } else if (strcmp(a, "--net-listen") == 0) {
            opt.net_listen = value_arg(argv, &i, "%s needs A.B.C.D:PORT");
            if (!net_addr_ok(opt.net_listen))
                bad_usage("--net-listen %s is not A.B.C.D:PORT", opt.net_listen);
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-') {
            bad_usage("unknown option %s", a);
        } else if (strcmp(a, "list") == 0) {
            list = true;
        } else if (choose(a, chosen)) {
            any = true;
        } else {
            bad_usage("no benchmark called '%s'", a);
        }
    }
    if (list) {
        for (int j = 0; bench_at(j); j++)
            printf("%-12s %-6s %-7s %s\n", bench_at(j)->name, bench_at(j)->group,
                   bench_at(j)->unit, bench_at(j)->what);
        return 0;
    }
    if (!any) {
        usage(stderr);
        return 2;
    }
    for (int j = 0; bench_at(j); j++) {
        if (chosen[j] && !opt.disk && !strcmp(bench_at(j)->group, "disk"))
            bad_usage("%s needs --disk PATH", bench_at(j)->name);
        if (chosen[j] && !opt.net_listen && !strcmp(bench_at(j)->group, "net"))
            bad_usage("%s needs --net-listen A.B.C.D:PORT", bench_at(j)->name);
    }
    opt.work_samples = opt.samples ? opt.samples
                     : opt.quick ? WORK_QUICK_SAMPLES : WORK_SAMPLES;
    if (!opt.samples)
        opt.samples = opt.quick ? QUICK_SAMPLES : DEFAULT_SAMPLES;
    if (!opt.min_ms)
        opt.min_ms = opt.quick ? QUICK_MIN_MS : DEFAULT_MIN_MS;

    page_size = sysconf(_SC_PAGESIZE);
    len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
    self_exe[len > 0 ? len : 0] = 0;
    signal(SIGPIPE, SIG_IGN);   /* a dead partner is an error, not a kill */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (opt.cpu >= 0) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(opt.cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set) < 0)
            die("cannot pin to CPU %d: %s", opt.cpu, strerror(errno));
    }

    for (int j = 0; bench_at(j) && opt.net_listen; j++)
        if (chosen[j] && !strcmp(bench_at(j)->group, "net")) {
            net_listen(opt.net_listen);
            break;
        }
    overhead = timer_overhead();
    print_header(overhead);
    for (int j = 0; bench_at(j); j++) {
        if (chosen[j] && bench_at(j)->drive)
            bench_at(j)->drive(bench_at(j), &res[j]);
        else if (chosen[j])
            run_bench(bench_at(j), overhead, &res[j]);
    }
    print_summary(chosen, res);
    return 0;
}
