/*
 * perchbench torture ROUNDS: work that goes wrong if a hypervisor mixes up
 * its vCPUs, loses a TLB flush or breaks copy-on-write, each result checked.
 * Every round moves the process to another CPU and runs:
 *   - a pipe between two processes on different CPUs, every block checked;
 *   - copy-on-write: a child checks the parent's pages while the parent
 *     rewrites them, then writes its own;
 *   - fork and exec of this program, its exit status checked;
 *   - two threads of one address space on different CPUs: after the one's
 *     mprotect or munmap returns, the other's access must fault (a TLB
 *     shootdown that came late lets it through).
 * Prints "torture: ok ..." and exits 0, or one "torture: FAIL ..." line
 * and exits 1. The guest test tests/guests/linux_smp_torture.sh runs it.
 */
#define _GNU_SOURCE
#include "torture.h"

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096
#define PIPE_BLOCKS 256
#define PIPE_BLOCK 512
#define COW_PAGES 64
#define STORM_TRIES 200

static int ncpus;
static long checks;

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;

    printf("torture: FAIL ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    _exit(1);
}

static void check(int ok, const char *what, long round)
{
    checks++;
    if (!ok)
        fail("round %ld: %s", round, what);
}

/* Run on cpu (mod the CPUs there are; nothing to do with one). */
static void move_to(long cpu)
{
    cpu_set_t set;

    if (ncpus < 2)
        return;
    CPU_ZERO(&set);
    CPU_SET((int)(cpu % ncpus), &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        fail("sched_setaffinity to CPU %ld", cpu % ncpus);
}

static unsigned char pattern(long round, long block, long i)
{
    return (unsigned char)(round * 7 + block * 31 + i);
}

static void wait_ok(pid_t pid, const char *what, long round)
{
    int status;

    if (waitpid(pid, &status, 0) != pid)
        fail("round %ld: waitpid for %s", round, what);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, what, round);
}

static void full_write(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len) {
        ssize_t n = write(fd, p, len);

        if (n <= 0)
            fail("pipe write");
        p += n;
        len -= (size_t)n;
    }
}

static int full_read(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len) {
        ssize_t n = read(fd, p, len);

        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/* Blocks through a pipe to a child on the next CPU, which checks each and
 * moves between CPUs as it reads. */
static void pipe_round(long round)
{
    int fds[2];
    unsigned char block[PIPE_BLOCK];
    pid_t pid;

    if (pipe(fds) != 0)
        fail("pipe");
    pid = fork();
    if (pid < 0)
        fail("fork");
    if (pid == 0) {
        close(fds[1]);
        for (long b = 0; b < PIPE_BLOCKS; b++) {
            if (b % 32 == 0)
                move_to(round + 1 + b / 32);
            if (!full_read(fds[0], block, sizeof(block)))
                _exit(2);
            for (long i = 0; i < PIPE_BLOCK; i++)
                if (block[i] != pattern(round, b, i))
                    _exit(3);
        }
        _exit(0);
    }
    close(fds[0]);
    for (long b = 0; b < PIPE_BLOCKS; b++) {
        for (long i = 0; i < PIPE_BLOCK; i++)
            block[i] = pattern(round, b, i);
        full_write(fds[1], block, sizeof(block));
    }
    close(fds[1]);
    wait_ok(pid, "every block through the pipe as written", round);
}

/* The child sees the pages as they were at the fork, whatever the parent
 * writes meanwhile, and its own writes stay its own. */
static void cow_round(long round)
{
    unsigned char *pages = mmap(NULL, COW_PAGES * PAGE, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pid_t pid;
    int go[2];
    char c = 0;

    if (pages == MAP_FAILED || pipe(go) != 0)
        fail("mmap or pipe for copy-on-write");
    for (long p = 0; p < COW_PAGES; p++)
        memset(pages + p * PAGE, pattern(round, p, 0), PAGE);
    pid = fork();
    if (pid < 0)
        fail("fork");
    if (pid == 0) {
        move_to(round + 1);
        close(go[1]);
        if (read(go[0], &c, 1) != 1)   /* the parent is writing now */
            _exit(2);
        for (long p = 0; p < COW_PAGES; p++)
            for (long i = 0; i < PAGE; i += 64)
                if (pages[p * PAGE + i] != pattern(round, p, 0))
                    _exit(3);
        for (long p = 0; p < COW_PAGES; p++)
            memset(pages + p * PAGE, 0x5a, PAGE);
        for (long p = 0; p < COW_PAGES; p++)
            if (pages[p * PAGE + PAGE - 1] != 0x5a)
                _exit(4);
        _exit(0);
    }
    close(go[0]);
    if (write(go[1], &c, 1) != 1)
        fail("pipe write");
    for (long p = 0; p < COW_PAGES; p++)
        memset(pages + p * PAGE, pattern(round, p, 1), PAGE);
    close(go[1]);
    wait_ok(pid, "the child's copy as at the fork, its writes its own", round);
    for (long p = 0; p < COW_PAGES; p++)
        check(pages[p * PAGE + 17] == pattern(round, p, 1),
              "the parent's pages as it wrote them", round);
    munmap(pages, COW_PAGES * PAGE);
}

static void exec_round(long round, const char *self, const char *nop_arg)
{
    pid_t pid = fork();

    if (pid < 0)
        fail("fork");
    if (pid == 0) {
        move_to(round + 1);
        execlp(self, self, nop_arg, (char *)NULL);
        _exit(127);
    }
    wait_ok(pid, "fork and exec of perchbench nop", round);
}

/*
 * The shootdown check: the prober thread, on another CPU, touches a page
 * the main thread has just made inaccessible; it must fault. Its SIGSEGV
 * handler jumps back to say so.
 */
static struct {
    volatile unsigned char *page;
    volatile int ask;        /* 1: write the page, 2: read it; 0 idle, -1 end */
    volatile int faulted;    /* the prober's answer: 1 faulted, 0 not */
    volatile int answered;
} probe;
static __thread sigjmp_buf probe_jump;
static __thread volatile int probing;   /* a fault now is the probe's answer */
static volatile const char *stage = "start";

/* The prober's expected fault jumps back to say so; any other SIGSEGV is a
 * wrong answer of the machine, told with where it hit (the kernel prints
 * nothing for a signal that has a handler). */
static void probe_fault(int sig, siginfo_t *info, void *context)
{
    const ucontext_t *uc = context;
    char line[200];
    int n;

    (void)sig;
    if (probing)
        siglongjmp(probe_jump, 1);
    n = snprintf(line, sizeof(line),
                 "torture: FAIL unexpected SIGSEGV in %s (pid %d): address %p code %d ip %llx\n",
                 (const char *)stage, (int)getpid(), info->si_addr, info->si_code,
                 (unsigned long long)uc->uc_mcontext.gregs[REG_RIP]);
    if (write(1, line, (size_t)n) < 0) {
        /* stdout is gone: the status alone tells */
    }
    _exit(1);
}

static void *prober(void *arg)
{
    long round = (long)arg;

    move_to(round + 1);
    for (;;) {
        int ask;

        while ((ask = __atomic_load_n(&probe.ask, __ATOMIC_ACQUIRE)) == 0)
            ;
        if (ask < 0)
            return NULL;
        if (sigsetjmp(probe_jump, 1) == 0) {
            probing = 1;
            if (ask == 1)
                probe.page[8] = 1;
            else
                (void)probe.page[8];
            probing = 0;
            probe.faulted = 0;
        } else {
            probing = 0;
            probe.faulted = 1;
        }
        __atomic_store_n(&probe.ask, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&probe.answered, 1, __ATOMIC_RELEASE);
    }
}

static int ask_prober(int what)
{
    __atomic_store_n(&probe.answered, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&probe.ask, what, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&probe.answered, __ATOMIC_ACQUIRE))
        ;
    return probe.faulted;
}

static void storm_round(long round)
{
    pthread_t t;

    move_to(round);
    if (pthread_create(&t, NULL, prober, (void *)round) != 0)
        fail("pthread_create");
    for (int i = 0; i < STORM_TRIES; i++) {
        unsigned char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
            fail("mmap");
        p[8] = 2;
        probe.page = p;
        check(!ask_prober(1) && p[8] == 1, "the other thread's write to a writable page", round);
        mprotect(p, PAGE, PROT_READ);
        check(ask_prober(1), "the other thread's write after mprotect read-only faults", round);
        check(p[8] == 1, "the page unchanged by the refused write", round);
        mprotect(p, PAGE, PROT_NONE);
        check(ask_prober(2), "the other thread's read after mprotect none faults", round);
        mprotect(p, PAGE, PROT_READ | PROT_WRITE);
        check(!ask_prober(1), "the other thread's write after mprotect read-write", round);
        munmap(p, PAGE);
        check(ask_prober(2), "the other thread's read after munmap faults", round);
    }
    __atomic_store_n(&probe.ask, -1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
}

int torture_main(const char *self, const char *nop_arg, const char *rounds_arg)
{
    long rounds = strtol(rounds_arg, NULL, 10);
    struct sigaction sa;

    if (rounds < 1)
        fail("ROUNDS must be a positive number, not '%s'", rounds_arg);
    ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = probe_fault;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    for (long r = 0; r < rounds; r++) {
        move_to(r);
        stage = "pipe";
        pipe_round(r);
        stage = "copy-on-write";
        cow_round(r);
        stage = "exec";
        exec_round(r, self, nop_arg);
        stage = "mprotect/munmap storm";
        storm_round(r);
    }
    printf("torture: ok %ld rounds on %d CPUs, %ld checks\n", rounds, ncpus, checks);
    return 0;
}
