/* Running a program and taking its output (see program.h). */
#include "program.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How often a watched program's end and quiet are looked at. */
#define WATCH_TICK_MS 100

/* The signals that end perch, whose end must take a watched group too. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* How one program is started. */
struct start {
    char *const *envp;        /* NULL: environ */
    bool own_group;
    const sigset_t *mask;     /* the child's signal mask; NULL: as it is */
};

/* The child's stdout and stderr into the pipe *out reads. Returns its
 * pid, or -1. */
static pid_t start(char *const argv[], const struct start *how, int *out,
                   struct error *e)
{
    int fds[2];
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) < 0)
        return fail(e, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return fail(e, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

        if (how->own_group)
            setpgid(0, 0);
        if (how->mask)
            sigprocmask(SIG_SETMASK, how->mask, NULL);
        /* Not the terminal: QEMU's -serial stdio would make it raw. */
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execvpe(argv[0], argv, how->envp ? how->envp : environ);
        dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    /* Also here, so the group exists before anything is sent to it. */
    if (how->own_group)
        setpgid(pid, pid);
    close(fds[1]);
    *out = fds[0];
    return pid;
}

int program_run(char *const argv[],
                void (*sink)(void *, const uint8_t *, size_t),
                void *arg, int *status, struct error *e)
{
    static const struct start plain = { NULL, false, NULL };
    uint8_t buf[4096];
    ssize_t n;
    pid_t pid;
    int fd;

    pid = start(argv, &plain, &fd, e);
    if (pid < 0)
        return -1;
    while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            sink(arg, buf, n);
    close(fd);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}

/* ---- a watched program -------------------------------------------------- */

/* The group of the watched program running now (0: none), for the
 * handler, and the handlers it replaced. */
static volatile sig_atomic_t watched_group;
static struct sigaction replaced[STOP_SIGNALS];

/* perch is being ended: the group goes first, then perch as it would
 * have without this handler (it stays blocked until we return). */
static void on_stop(int sig)
{
    if (watched_group > 0)
        kill(-watched_group, SIGKILL);
    for (size_t i = 0; i < STOP_SIGNALS; i++)
        if (stop_signals[i] == sig)
            sigaction(sig, &replaced[i], NULL);
    raise(sig);
}

static void stop_handlers(bool on)
{
    struct sigaction sa = { .sa_handler = on_stop };

    for (size_t i = 0; i < STOP_SIGNALS; i++) {
        if (on) {
            sigaction(stop_signals[i], NULL, &replaced[i]);
            /* One ignored (nohup's SIGHUP) stays so. */
            if (replaced[i].sa_handler != SIG_IGN)
                sigaction(stop_signals[i], &sa, NULL);
        } else {
            sigaction(stop_signals[i], &replaced[i], NULL);
        }
    }
}

/* environ with env's words in front, and its own words of the same
 * names left out. */
static char **environment_with(char *const *env)
{
    size_t n = 0, k = 0;
    char **all;

    while (env[n])
        n++;
    for (char **p = environ; *p; p++)
        k++;
    all = malloc((n + k + 1) * sizeof(*all));
    if (!all)
        return NULL;
    memcpy(all, env, n * sizeof(*all));
    k = n;
    for (char **p = environ; *p; p++) {
        bool replaced_word = false;

        for (size_t i = 0; i < n && !replaced_word; i++) {
            size_t name = strcspn(env[i], "=");

            replaced_word = !strncmp(*p, env[i], name) && (*p)[name] == '=';
        }
        if (!replaced_word)
            all[k++] = *p;
    }
    all[k] = NULL;
    return all;
}

static unsigned long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* Whether pid has ended, leaving it unreaped: its pid, and so its group's
 * id, stays its own until then. */
static bool has_ended(pid_t pid)
{
    siginfo_t info = { .si_pid = 0 };

    return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

/* Its output until the pipe is closed, and it has ended, its group
 * killed after it (or before, when quiet for too long). */
static void watch(pid_t pid, int fd, struct program_watch *w,
                  void (*sink)(void *, const uint8_t *, size_t), void *arg)
{
    unsigned long long heard = now_ms();
    bool closed = false, ended = false;
    uint8_t buf[4096];

    while (!closed || !ended) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        ssize_t n;

        /* Closed: the poll only waits a tick for the end. */
        if (poll(&p, closed ? 0 : 1, WATCH_TICK_MS) > 0) {
            n = read(fd, buf, sizeof(buf));
            if (n > 0) {
                sink(arg, buf, n);
                heard = now_ms();
            } else if (n == 0 || errno != EINTR) {
                closed = true;
            }
        }
        if (!ended && has_ended(pid)) {
            kill(-pid, SIGKILL);   /* its helpers, holding the pipe open */
            ended = true;
        } else if (!ended && w->quiet_limit_s &&
                   now_ms() - heard >= w->quiet_limit_s * 1000ull) {
            kill(-pid, SIGKILL);
            w->timed_out = true;
        }
    }
}

int program_run_watched(char *const argv[], struct program_watch *w,
                        void (*sink)(void *, const uint8_t *, size_t),
                        void *arg, int *status, struct error *e)
{
    char **envp = w->env ? environment_with(w->env) : NULL;
    struct start how = { envp, true, NULL };
    sigset_t stops, before;
    pid_t pid;
    int fd;

    if (w->env && !envp)
        return fail(e, "out of memory for %s's environment", argv[0]);
    w->timed_out = false;
    /* Blocked from before the fork until the group is known, so that a
     * Ctrl-C in between cannot leave it running. */
    sigemptyset(&stops);
    for (size_t i = 0; i < STOP_SIGNALS; i++)
        sigaddset(&stops, stop_signals[i]);
    sigprocmask(SIG_BLOCK, &stops, &before);
    stop_handlers(true);
    how.mask = &before;
    pid = start(argv, &how, &fd, e);
    free(envp);
    if (pid > 0)
        watched_group = pid;
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (pid < 0) {
        stop_handlers(false);
        return -1;
    }
    watch(pid, fd, w, sink, arg);
    close(fd);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    watched_group = 0;
    stop_handlers(false);
    return 0;
}
