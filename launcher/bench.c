/*
 * `perch bench`: run perchbench natively and in the guest, parse both.
 * The order: check the command line and DIR, write the embedded binary to
 * a temporary file, ask it for its benchmark names (so names are checked
 * against the binary that will run), run it natively, then the guest runs
 * (default, vs, default, vs, ... when --vs), then the report.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "initramfs.h"
#include "launch.h"
#include "status.h"

#define LINE_MAX_BYTES 512
#define VS_WORDS_MAX   32

/* Reading one run's output, line by line, into its results. */
struct capture {
    struct bench_set *set;
    struct bench_result *res;      /* [BENCH_MAX] for this run */
    char line[LINE_MAX_BYTES];
    size_t len;
    char last[LINE_MAX_BYTES];     /* the last line, for error messages */
    char progress[96];             /* "guest run 1/2 (default)" */
};

/* ---- progress on stderr: in place on a terminal, lines otherwise ------- */

static void progress(const char *fmt, const char *what, const char *detail)
{
    bool tty = isatty(STDERR_FILENO);

    fprintf(stderr, "%sperch bench: ", tty ? "\r\033[K" : "");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "%s%s%s", detail ? ": " : "", detail ? detail : "",
            tty ? "" : "\n");
    fflush(stderr);
}

static void progress_done(void)
{
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
}

/* ---- parsing perchbench's output --------------------------------------- */

/* The index of a benchmark name, or -1: a lookup, so a name the guest
 * made up can never select memory. */
static int find_name(const struct bench_set *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (!strcmp(set->names[i], name))
            return i;
    return -1;
}

/* "perchbench NAME MEDIAN MIN MAX samples S batch B [ops N]": without
 * ops (an older perchbench), S * B, which leaves out batch sizing. */
static void parse_result(struct capture *c, const char *line)
{
    char name[BENCH_NAME_MAX + 1];
    double med, min, max;
    int samples, k;
    long batch, ops = 0;

    if (sscanf(line, "perchbench %32s %lf %lf %lf samples %d batch %ld ops %ld",
               name, &med, &min, &max, &samples, &batch, &ops) < 6)
        return;
    k = find_name(c->set, name);
    if (k < 0)
        return;
    c->res[k].have = true;
    c->res[k].median = med;
    c->res[k].min = min;
    c->res[k].max = max;
    c->res[k].ops = ops > 0 ? ops : (long)samples * batch;
}

static void end_line(struct capture *c)
{
    c->line[c->len] = '\0';
    if (c->len && c->line[c->len - 1] == '\r')
        c->line[--c->len] = '\0';
    if (c->len) {
        memcpy(c->last, c->line, c->len + 1);
        parse_result(c, c->line);
    }
    c->len = 0;
}

static void capture_bytes(void *arg, const uint8_t *p, size_t n)
{
    struct capture *c = arg;

    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n')
            end_line(c);
        else if (c->len < LINE_MAX_BYTES - 1)
            c->line[c->len++] = p[i];
    }
}

/* A counter mark from the guest, with perch's counters at that moment. */
static void capture_mark(void *arg, const char *name, bool end,
                         const struct perch_counters *now)
{
    struct capture *c = arg;
    int k = find_name(c->set, name);

    if (k < 0)
        return;
    if (end) {
        c->res[k].end = *now;
        c->res[k].counted = true;
    } else {
        c->res[k].begin = *now;
        progress("%s", c->progress, name);
    }
}

/* ---- the embedded perchbench, natively --------------------------------- */

static int write_binary(char *path, size_t size, struct error *e)
{
    const char *tmp = getenv("TMPDIR");
    const uint8_t *bytes;
    size_t len;
    int fd;

    initramfs_bench_image(&bytes, &len);
    if (!bytes || !len)
        return fail(e, "this perch carries no perchbench");
    snprintf(path, size, "%s/perchbench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    if (fd < 0)
        return fail(e, "cannot create %s: %s", path, strerror(errno));
    if (write(fd, bytes, len) != (ssize_t)len || fchmod(fd, 0700) < 0) {
        fail(e, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return -1;
    }
    close(fd);
    return 0;
}

/* Run the binary with args, its stdout into the capture. */
static int run_native(const char *path, char **args, struct capture *c,
                      struct error *e)
{
    int fds[2], status;
    uint8_t buf[4096];
    ssize_t n;
    pid_t pid;

    if (pipe(fds) < 0)
        return fail(e, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0)
        return fail(e, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(path, args);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            capture_bytes(c, buf, n);
    close(fds[0]);
    capture_bytes(c, (const uint8_t *)"\n", 1);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return fail(e, "native perchbench failed: %s", c->last);
    return 0;
}

/* "perchbench list": the names, in the order `all` runs them. */
static int read_names(const char *path, struct bench_set *set, struct error *e)
{
    char *args[] = { (char *)path, "list", NULL };
    int fds[2], status;
    FILE *f;
    char line[256];
    pid_t pid;

    if (pipe(fds) < 0 || (pid = fork()) < 0)
        return fail(e, "cannot run perchbench: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(path, args);
        _exit(127);
    }
    close(fds[1]);
    f = fdopen(fds[0], "r");
    while (f && fgets(line, sizeof(line), f))
        if (set->n < BENCH_MAX &&
            sscanf(line, "%32s", set->names[set->n]) == 1)
            set->n++;
    if (f)
        fclose(f);
    waitpid(pid, &status, 0);
    if (!set->n)
        return fail(e, "perchbench list named no benchmarks");
    return 0;
}

static int native_side(const char *path, struct bench_set *set, struct error *e)
{
    char *args[BENCH_MAX + 8];
    struct capture c = { .set = set, .res = set->native.r[0] };
    int a = 0;

    args[a++] = (char *)path;
    args[a++] = "--cpu";
    args[a++] = "0";
    if (set->quick)
        args[a++] = "--quick";
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i])
            args[a++] = set->names[i];
    args[a] = NULL;
    progress("%s", "native run", "all chosen benchmarks");
    if (run_native(path, args, &c, e))
        return -1;
    set->native.runs = 1;
    return 0;
}

/* ---- the guest side ---------------------------------------------------- */

/* perch run's options for one side, through perch run's own parser: the
 * --vs words (if any), then -- /bin/perchbench --marks ... */
struct guest_config {
    char *argv[VS_WORDS_MAX + BENCH_MAX + 8];
    char words[512];
    struct options o;
};

static int split_vs(struct guest_config *g, const char *vs, int *argc,
                    struct error *e)
{
    char *save, *w;

    if (strlen(vs) >= sizeof(g->words))
        return fail(e, "--vs \"%s\" is too long", vs);
    strcpy(g->words, vs);
    for (w = strtok_r(g->words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (!strcmp(w, "--"))
            return fail(e, "bad --vs \"%s\": '--' (the guest's command is "
                           "perchbench's)", vs);
        if (*argc >= VS_WORDS_MAX)
            return fail(e, "bad --vs \"%s\": too many words", vs);
        g->argv[(*argc)++] = w;
    }
    return 0;
}

static int guest_config(struct guest_config *g, struct bench_set *set,
                        const char *vs, struct error *e)
{
    struct error inner;
    int argc = 0;

    g->argv[argc++] = "perch";
    g->argv[argc++] = "run";
    if (vs && split_vs(g, vs, &argc, e))
        return -1;
    g->argv[argc++] = "--";
    g->argv[argc++] = "/bin/perchbench";
    g->argv[argc++] = "--marks";
    if (set->quick)
        g->argv[argc++] = "--quick";
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i])
            g->argv[argc++] = set->names[i];
    g->argv[argc] = NULL;
    if (cli_parse(argc, g->argv, &g->o, &inner))
        return fail(e, "bad --vs \"%s\": %s", vs ? vs : "", inner.msg);
    if (g->o.command != CMD_RUN || g->o.stats)
        return fail(e, "bad --vs \"%s\": only perch run's options", vs ? vs : "");
    return 0;
}

static int guest_run_once(struct bench_set *set, struct bench_side *side,
                          struct guest_config *g, int number, int total,
                          struct error *e)
{
    struct capture c = { .set = set, .res = side->r[side->runs] };
    struct launch_io io = { capture_bytes, capture_mark, &c };
    struct error inner = { "" };
    int status;

    snprintf(c.progress, sizeof(c.progress), "guest run %d/%d (%s)",
             number, total, side->label);
    progress("%s", c.progress, "booting");
    status = launch_with(&g->o, &io, &inner);
    capture_bytes(&c, (const uint8_t *)"\n", 1);
    if (status != 0)
        return fail(e, "%s: status %d: %s", c.progress, status,
                    inner.msg[0] ? inner.msg : c.last);
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i] && (!c.res[i].have || !c.res[i].counted))
            return fail(e, "%s: no result or marks for %s (last line: %s)",
                        c.progress, set->names[i], c.last);
    side->runs++;
    return 0;
}

/* default, vs, default, vs...: interleaved, so drift on the machine
 * falls on both sides alike. */
static int guest_sides(struct bench_set *set, struct guest_config *base,
                       struct guest_config *other, struct error *e)
{
    int per_round = set->vs ? 2 : 1, total = set->rounds * per_round, k = 0;

    for (int r = 0; r < set->rounds; r++) {
        if (guest_run_once(set, &set->base, base, ++k, total, e))
            return -1;
        if (set->vs && guest_run_once(set, &set->other, other, ++k, total, e))
            return -1;
    }
    return 0;
}

/* ---- the command line -------------------------------------------------- */

static int parse_args(int argc, char **argv, struct bench_set *set,
                      const char **names, int *nnames, struct error *e)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--quick")) {
            set->quick = true;
        } else if (!strcmp(a, "--vs") || !strcmp(a, "--out")) {
            if (i + 1 >= argc)
                return fail(e, "%s needs a value", a);
            *(a[2] == 'v' ? &set->vs : &set->out_dir) = argv[++i];
        } else if (a[0] == '-') {
            return fail(e, "unknown bench option '%s'", a);
        } else if (*nnames < BENCH_MAX) {
            names[(*nnames)++] = a;
        } else {
            return fail(e, "too many benchmark names");
        }
    }
    return 0;
}

/* "pipe cow exec ...": what a wrong name could have been. */
static void known_names(const struct bench_set *set, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (int i = 0; i < set->n && len < size; i++)
        len += snprintf(buf + len, size - len, "%s%s", i ? " " : "",
                        set->names[i]);
}

static int choose(struct bench_set *set, const char **names, int nnames,
                  struct error *e)
{
    char known[BENCH_MAX * (BENCH_NAME_MAX + 1) + 1];

    for (int i = 0; i < nnames; i++) {
        int k = strcmp(names[i], "all") ? find_name(set, names[i]) : -2;

        if (k == -1) {
            known_names(set, known, sizeof(known));
            return fail(e, "no benchmark called '%s' (perch bench knows: all %s)",
                        names[i], known);
        }
        for (int j = 0; j < set->n; j++)
            if (k == -2 || j == k)
                set->chosen[j] = true;
    }
    for (int j = 0; j < set->n && !nnames; j++)
        set->chosen[j] = true;
    return 0;
}

/* mkdir -p DIR, then prove it takes a file: fail before the long part. */
static int check_out_dir(const char *dir, struct error *e)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return fail(e, "cannot create --out directory %s: %s", dir, strerror(errno));
    snprintf(path, sizeof(path), "%s/.perch-bench-probe", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return fail(e, "cannot write to --out directory %s: %s", dir, strerror(errno));
    close(fd);
    unlink(path);
    return 0;
}

/* Everything that can be wrong with the request, checked before any run. */
static int prepare(int argc, char **argv, struct bench_set *set, char *exe,
                   size_t exe_size, struct error *e)
{
    const char *names[BENCH_MAX];
    int nnames = 0;

    set->out_dir = BENCH_DEFAULT_OUT;
    if (parse_args(argc, argv, set, names, &nnames, e))
        return STATUS_USAGE;
    set->rounds = set->vs ? (set->quick ? 2 : 3) : 1;
    set->native.label = "native";
    set->base.label = "default";
    set->other.label = set->vs ? set->vs : "";
    if (write_binary(exe, exe_size, e))
        return STATUS_ERROR;
    if (read_names(exe, set, e))
        return STATUS_ERROR;
    if (choose(set, names, nnames, e))
        return STATUS_USAGE;
    if (check_out_dir(set->out_dir, e))
        return STATUS_ERROR;
    return 0;
}

static int run_all(struct bench_set *set, const char *exe, struct error *e)
{
    static struct guest_config base, other;

    if (guest_config(&base, set, NULL, e))
        return STATUS_ERROR;
    if (set->vs && guest_config(&other, set, set->vs, e))
        return STATUS_USAGE;
    if (native_side(exe, set, e) || guest_sides(set, &base, &other, e)) {
        progress_done();
        return STATUS_ERROR;
    }
    progress_done();
    bench_summarize(&set->native, set->n);
    bench_summarize(&set->base, set->n);
    bench_summarize(&set->other, set->n);
    bench_print_table(stdout, set);
    fflush(stdout);
    return bench_write_files(set, e) ? STATUS_ERROR : 0;
}

int bench_main(int argc, char **argv, struct error *e)
{
    static struct bench_set set;    /* large: every round's results */
    char exe[4096] = "";
    int status;

    memset(&set, 0, sizeof(set));
    status = prepare(argc, argv, &set, exe, sizeof(exe), e);
    if (!status)
        status = run_all(&set, exe, e);
    if (exe[0])
        unlink(exe);
    return status;
}
