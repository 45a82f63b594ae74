/*
 * Unit tests of running another program (launcher/base/program.c), the
 * watched way perch bench runs linux.uml: the environment words given
 * replace perch's of the same name; a helper left behind holding the
 * output open (as UML's are when UML is killed) no longer keeps the run
 * from ending, and is killed with its group; a program quiet for longer
 * than the limit is killed and said to be; program_run as before.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#include "../../launcher/base/program.h"

struct output {
    char text[1024];
    size_t len;
};

static void keep(void *arg, const uint8_t *p, size_t n)
{
    struct output *o = arg;
    size_t room = sizeof(o->text) - 1 - o->len;

    n = n < room ? n : room;
    memcpy(o->text + o->len, p, n);
    o->len += n;
    o->text[o->len] = '\0';
}

static double seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void plain_run_takes_output_and_status(void)
{
    char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
    struct output o = { .len = 0 };
    struct error e = { "" };
    int status;

    CHECK(program_run(argv, keep, &o, &status, &e) == 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    CHECK_CONTAINS(o.text, "out\n");
    CHECK_CONTAINS(o.text, "err\n");
}

static void watched_env_replaces_perchs(void)
{
    char *argv[] = { "sh", "-c", "echo \"[$TMPDIR] [$PERCH_TEST_KEPT]\"", NULL };
    char *env[] = { "TMPDIR=/given", NULL };
    struct program_watch w = { .env = env };
    struct output o = { .len = 0 };
    struct error e = { "" };
    int status;

    setenv("TMPDIR", "/perchs", 1);
    setenv("PERCH_TEST_KEPT", "kept", 1);
    CHECK(program_run_watched(argv, &w, keep, &o, &status, &e) == 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !w.timed_out);
    CHECK(!strcmp(o.text, "[/given] [kept]\n"));
    unsetenv("PERCH_TEST_KEPT");
}

/* Whether pid is gone or dead (a zombie until init reaps it), given a
 * while to die: SIGKILL is sent, not waited for. */
static bool is_dead(pid_t pid)
{
    for (int tries = 0; tries < 100; tries++) {
        char path[64], stat[256] = "";
        const char *state;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        f = fopen(path, "r");
        if (!f)
            return true;
        if (!fgets(stat, sizeof(stat), f))
            stat[0] = '\0';
        fclose(f);
        state = strrchr(stat, ')');
        if (state && (state[2] == 'Z' || state[2] == 'X'))
            return true;
        usleep(20 * 1000);
    }
    return false;
}

/* sh ends at once; its sleep, in the background, holds the pipe. */
static void watched_leftover_helper_is_killed(void)
{
    char *argv[] = { "sh", "-c", "sleep 30 & echo $! ; exit 4", NULL };
    struct program_watch w = { .env = NULL };
    struct output o = { .len = 0 };
    struct error e = { "" };
    double t0 = seconds();
    int status;
    pid_t helper;

    CHECK(program_run_watched(argv, &w, keep, &o, &status, &e) == 0);
    CHECK(seconds() - t0 < 10);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4 && !w.timed_out);
    helper = atoi(o.text);
    CHECK(helper > 0);
    CHECK(is_dead(helper));
}

static void watched_quiet_too_long_is_killed(void)
{
    char *argv[] = { "sh", "-c", "echo started; sleep 30", NULL };
    struct program_watch w = { .env = NULL, .quiet_limit_s = 1 };
    struct output o = { .len = 0 };
    struct error e = { "" };
    double t0 = seconds();
    int status;

    CHECK(program_run_watched(argv, &w, keep, &o, &status, &e) == 0);
    CHECK(seconds() - t0 < 10);
    CHECK(w.timed_out);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK(!strcmp(o.text, "started\n"));
}

static void watched_missing_program_is_status_127(void)
{
    char *argv[] = { "perch-test-no-such-program", NULL };
    struct program_watch w = { .env = NULL };
    struct output o = { .len = 0 };
    struct error e = { "" };
    int status;

    CHECK(program_run_watched(argv, &w, keep, &o, &status, &e) == 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 127);
    CHECK_CONTAINS(o.text, "cannot run perch-test-no-such-program");
}

int main(void)
{
    RUN(plain_run_takes_output_and_status);
    RUN(watched_env_replaces_perchs);
    RUN(watched_leftover_helper_is_killed);
    RUN(watched_quiet_too_long_is_killed);
    RUN(watched_missing_program_is_status_127);
    return check_exit_status();
}
