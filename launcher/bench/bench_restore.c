/*
 * The restore row: how long `perch restore` takes to bring a saved guest
 * back, from the command's start to the guest's first output after it
 * resumes, beside the boot row (start to /init's first output). A guest
 * that prints a line every 10 ms is booted and saved once (`perch save`,
 * through its control socket, as a user would); each round then restores
 * it, takes the first byte, and stops it. The figure includes up to 10 ms
 * of the guest's own sleep.
 */
#include "bench_set.h"
#include "../base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FIRST_OUTPUT_MS 60000

/* This perch, argv[1..], its stdout into *out (a pipe), its stderr into
 * the file err (for the reason, should it fail), its stdin empty. */
static pid_t spawn(char *const argv[], int *out, const char *err, struct error *e)
{
    int p[2];
    pid_t pid;

    if (pipe2(p, O_CLOEXEC))
        return fail(e, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int said = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

        dup2(null, STDIN_FILENO);
        dup2(p[1], STDOUT_FILENO);
        dup2(said >= 0 ? said : null, STDERR_FILENO);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return fail(e, "fork: %s", strerror(errno));
    }
    *out = p[0];
    return pid;
}

/* Wait for the output to hold `want` (NULL: any byte). 0, or -1. */
static int wait_output(int fd, const char *want)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    char buf[4096];
    size_t got = 0;

    while (poll(&pfd, 1, FIRST_OUTPUT_MS) > 0) {
        ssize_t n = read(fd, buf + got, sizeof(buf) - 1 - got);

        if (n <= 0)
            return -1;
        if (!want)
            return 0;
        got += (size_t)n;
        buf[got] = '\0';
        if (strstr(buf, want))
            return 0;
        if (got > sizeof(buf) / 2) {     /* keep the tail: want may straddle */
            memmove(buf, buf + got - 64, 64);
            got = 64;
        }
    }
    return -1;
}

/* Its wait status; the pipe stays open until it has ended, so its last
 * words (perch save's line) are no SIGPIPE. */
static int end(pid_t pid, int fd, bool kill_it)
{
    int status;

    if (kill_it)
        kill(pid, SIGTERM);
    if (waitpid(pid, &status, 0) != pid)
        status = -1;
    close(fd);
    return status;
}

/* The first line the program wrote to err, for a message. */
static const char *said(const char *err, char *line, size_t size)
{
    FILE *f = fopen(err, "re");

    line[0] = '\0';
    if (f) {
        if (fgets(line, (int)size, f))
            line[strcspn(line, "\n")] = '\0';
        fclose(f);
    }
    return line;
}

int bench_restore_prepare(struct bench_restore *r, const struct bench_dir *d,
                          struct error *e)
{
    char *run[] = { "perch", "run", "--name", r->name, "--", "sh", "-c",
                    "while :; do echo tick; sleep 0.01; done", NULL };
    char *save[] = { "perch", "save", r->name, r->file, NULL };
    char line[256];
    int out, save_out;
    pid_t guest, saver;

    snprintf(r->name, sizeof(r->name), "bench-restore-%d", (int)getpid());
    if (snprintf(r->file, sizeof(r->file), "%s/restore.snap", d->path) >= (int)sizeof(r->file) ||
        snprintf(r->err, sizeof(r->err), "%s/restore.err", d->path) >= (int)sizeof(r->err))
        return fail(e, "restore row: the bench folder's path is too long");
    bench_progress("restore row", "booting the guest to save");
    guest = spawn(run, &out, r->err, e);
    if (guest < 0)
        return -1;
    if (wait_output(out, "tick")) {
        end(guest, out, true);
        return fail(e, "restore row: the guest to save never printed: %s",
                    said(r->err, line, sizeof(line)));
    }
    bench_progress("restore row", "saving it");
    saver = spawn(save, &save_out, r->err, e);
    if (saver < 0 || end(saver, save_out, false) != 0) {
        end(guest, out, true);
        return fail(e, "restore row: perch save failed: %s", said(r->err, line, sizeof(line)));
    }
    end(guest, out, false);          /* a saved guest's perch ends by itself */
    r->ready = true;
    return 0;
}

int bench_restore_once(const struct bench_restore *r, struct bench_result *res,
                       struct error *e)
{
    char *restore[] = { "perch", "restore", (char *)r->file, NULL };
    uint64_t start = clock_ns(CLOCK_MONOTONIC);
    char line[256];
    int out;
    pid_t pid = spawn(restore, &out, r->err, e);
    bool came;

    if (pid < 0)
        return -1;
    came = !wait_output(out, NULL);
    res->median = res->min = res->max = (double)(clock_ns(CLOCK_MONOTONIC) - start);
    end(pid, out, true);
    if (!came)
        return fail(e, "restore row: the restored guest printed nothing: %s",
                    said(r->err, line, sizeof(line)));
    res->have = true;
    return 0;
}

void bench_restore_release(struct bench_restore *r)
{
    if (r->ready)
        unlink(r->file);
    unlink(r->err);
    r->ready = false;
}
