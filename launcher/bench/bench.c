/*
 * `perch bench`: run perchbench natively, in the guest, under TCG and
 * under UML. The order: check the command line, write the embedded binary
 * into a temporary folder, ask it for its benchmark names (so names are
 * checked against the binary that will run), choose among them
 * (bench_parse.c), check DIR, busybox (for the work and smp groups), the
 * disk image (for the disk group), a port (for the net group), QEMU and
 * UML, run it natively, then the guest runs (default, vs, default, vs, ...
 * when --vs), then QEMU's run, then UML's, then the report.
 */
#include "bench.h"
#include "bench_set.h"
#include "bench_seeds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../run/cli.h"
#include "../base/file.h"
#include "../base/program.h"
#include "../run/launch.h"
#include "../base/status.h"

#define VS_WORDS_MAX   32
#define LIST_MAX_BYTES 4096

/* ---- the embedded perchbench, natively --------------------------------- */

/* `perchbench list`'s output, whole. */
struct list_output {
    char text[LIST_MAX_BYTES];
    size_t len;
};

static void list_bytes(void *arg, const uint8_t *p, size_t n)
{
    struct list_output *l = arg;
    size_t room = sizeof(l->text) - 1 - l->len;

    memcpy(l->text + l->len, p, n < room ? n : room);
    l->len += n < room ? n : room;
    l->text[l->len] = '\0';
}

/* The names, in the order `all` runs them, so names are checked against
 * the binary that will run. */
static int read_names(const char *path, struct bench_set *set, struct error *e)
{
    char *args[] = { (char *)path, "list", NULL };
    static struct list_output out;
    char *save, *line;
    int status;

    out.len = 0;
    out.text[0] = '\0';
    if (program_run(args, list_bytes, &out, &status, e))
        return -1;
    for (line = strtok_r(out.text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        if (bench_parse_list_line(set, line, e))
            return -1;
    if (!set->n)
        return fail(e, "perchbench list named no benchmarks");
    return 0;
}

static int native_side(const struct bench_dir *d, struct bench_set *set,
                       struct error *e)
{
    char *args[BENCH_MAX + 16], listen[32];
    struct bench_capture c;
    struct error peer_e;
    int a = 0, status, rc;
    bool ok;
    pid_t peer;

    args[a++] = (char *)d->exe;
    args[a++] = "--cpu";
    args[a++] = "0";
    if (set->quick)
        args[a++] = "--quick";
    if (bench_needs_busybox(set)) {
        args[a++] = "--bin";
        args[a++] = (char *)d->bin;
        args[a++] = "--tmp";
        args[a++] = (char *)d->work;
    }
    if (set->disk_image[0]) {
        args[a++] = "--disk";
        args[a++] = set->disk_image;
        if (bench_disk_fresh(set, e))
            return -1;
    }
    if (set->net_port) {
        snprintf(listen, sizeof(listen), "127.0.0.1:%u", set->net_port);
        args[a++] = "--net-listen";
        args[a++] = listen;
    }
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i])
            args[a++] = set->names[i];
    args[a] = NULL;
    bench_capture_start(&c, set, set->native.r[0], "native run");
    bench_progress(c.progress, "all chosen benchmarks");
    if (bench_net_peer_start(set, d, &peer, e))
        return -1;
    rc = program_run(args, bench_capture_bytes, &c, &status, e);
    bench_capture_end(&c);
    ok = !rc && WIFEXITED(status) && !WEXITSTATUS(status);
    if (bench_net_peer_end(peer, ok, &peer_e) && ok)
        return fail(e, "native run: %s", peer_e.msg);
    if (rc)
        return -1;
    if (!ok)
        return fail(e, "native perchbench failed: %s", c.last);
    set->native.runs = 1;
    return 0;
}

/* ---- the guest side ---------------------------------------------------- */

/* perch run's options for one side, through perch run's own parser: the
 * disk image (first, so it is xvda), the forwarded port, --cpus N (when
 * not perch run's 1, so that --vs "--cpus 2" may set the vs side's), the
 * --vs words (if any), then -- /bin/perchbench --marks ... */
struct guest_config {
    char *argv[VS_WORDS_MAX + BENCH_MAX + 18];
    char words[512];
    char net[64], listen[32], cpus[16];
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

/* device: the image's name in the guest (BENCH_DISK_PERCH, _QEMU, _UML);
 * with_net: the guest runs the net group, if chosen (not under UML). */
static int guest_config(struct guest_config *g, struct bench_set *set,
                        const char *vs, const char *device, bool with_net,
                        struct error *e)
{
    bool net = with_net && set->net_port;
    struct error inner;
    int argc = 0;

    g->argv[argc++] = "perch";
    g->argv[argc++] = "run";
    if (set->disk_image[0]) {
        g->argv[argc++] = "--disk";
        g->argv[argc++] = set->disk_image;
    }
    if (net) {
        snprintf(g->net, sizeof(g->net), "user,hostfwd=tcp::%u-:%u",
                 set->net_port, BENCH_NET_GUEST_PORT);
        g->argv[argc++] = "--net";
        g->argv[argc++] = g->net;
    }
    if (set->cpus != 1) {
        snprintf(g->cpus, sizeof(g->cpus), "%u", set->cpus);
        g->argv[argc++] = "--cpus";
        g->argv[argc++] = g->cpus;
    }
    if (vs && split_vs(g, vs, &argc, e))
        return -1;
    g->argv[argc++] = "--";
    g->argv[argc++] = "/bin/perchbench";
    g->argv[argc++] = "--marks";
    if (set->quick)
        g->argv[argc++] = "--quick";
    if (set->disk_image[0]) {
        g->argv[argc++] = "--disk";
        g->argv[argc++] = (char *)device;
    }
    if (net) {
        snprintf(g->listen, sizeof(g->listen), "0.0.0.0:%u", BENCH_NET_GUEST_PORT);
        g->argv[argc++] = "--net-listen";
        g->argv[argc++] = g->listen;
    }
    for (int i = 0; i < set->n; i++)
        if (set->chosen[i] && (with_net || set->group[i] != BENCH_NET))
            g->argv[argc++] = set->names[i];
    g->argv[argc] = NULL;
    if (cli_parse(argc, g->argv, &g->o, &inner))
        return fail(e, "bad --vs \"%s\": %s", vs ? vs : "", inner.msg);
    if (g->o.command != CMD_RUN || g->o.stats)
        return fail(e, "bad --vs \"%s\": only perch run's options", vs ? vs : "");
    return 0;
}

static int guest_run_once(struct bench_set *set, const struct bench_dir *d,
                          struct bench_side *side, struct guest_config *g,
                          int number, int total, struct error *e)
{
    struct bench_capture c;
    struct launch_io io = { bench_capture_bytes, bench_capture_mark, &c };
    struct error inner = { "" }, peer_e;
    const char *missing = NULL;
    char what[96];
    int status;
    pid_t peer;

    snprintf(what, sizeof(what), "guest run %d/%d (%s)", number, total,
             side->label);
    if (set->disk_image[0] && bench_disk_fresh(set, e))
        return -1;
    bench_capture_start(&c, set, side->r[side->runs], what);
    bench_progress(what, "booting");
    if (bench_net_peer_start(set, d, &peer, e))
        return -1;
    status = launch_with(&g->o, &io, &inner);
    bench_capture_end(&c);
    if (!status)
        missing = bench_missing(set, c.res, true, true);
    if (bench_net_peer_end(peer, !status && !missing, &peer_e) && !status &&
        !missing)
        return fail(e, "%s: %s", what, peer_e.msg);
    if (status != 0)
        return fail(e, "%s: status %d: %s", what, status,
                    inner.msg[0] ? inner.msg : c.last);
    if (missing)
        return fail(e, "%s: no result or marks for %s (last line: %s)",
                    what, missing, c.last);
    side->runs++;
    return 0;
}

/* The restore row, after each of perch's default runs; a machine where
 * the guest cannot be saved has none (a note says why). */
static void prepare_restore(struct bench_restore *r, const struct bench_dir *d)
{
    struct error e;

    if (bench_restore_prepare(r, d, &e))
        fprintf(stderr, "perch: note: %s: no restore row\n", e.msg);
}

static int restore_once(struct bench_set *set, const struct bench_restore *r,
                        struct error *e)
{
    if (!r->ready)
        return 0;
    bench_progress("restore row", "perch restore");
    return bench_restore_once(r, &set->base.r[set->base.runs - 1][BENCH_RESTORE], e);
}

/* default, vs, default, vs...: interleaved, so drift on the machine
 * falls on both sides alike. */
static int guest_sides(struct bench_set *set, const struct bench_dir *d,
                       struct guest_config *base, struct guest_config *other,
                       struct error *e)
{
    int per_round = set->vs ? 2 : 1, total = set->rounds * per_round, k = 0, rc = 0;
    struct bench_restore restore = { .ready = false };

    prepare_restore(&restore, d);
    for (int r = 0; !rc && r < set->rounds; r++) {
        rc = guest_run_once(set, d, &set->base, base, ++k, total, e) ||
             restore_once(set, &restore, e) ||
             (set->vs && guest_run_once(set, d, &set->other, other, ++k, total, e));
    }
    bench_restore_release(&restore);
    return rc ? -1 : 0;
}

/* ---- the command line -------------------------------------------------- */

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

/* --qemu without QEMU, --uml without UML: the other columns still come. */
static void check_machine(bool *wanted, const char *program,
                          const char *package, const char *column)
{
    if (!*wanted || file_in_path(program))
        return;
    fprintf(stderr, "perch bench: note: no %s in PATH (apt-get install "
                    "%s): no %s column\n", program, package, column);
    *wanted = false;
}

/* UML does not run the net group: with nothing else chosen, no UML run
 * (and no column of dashes). */
static void check_uml_has_work(struct bench_set *set)
{
    if (!set->use_uml || bench_any_chosen(set, BENCH_MICRO) ||
        bench_any_chosen(set, BENCH_WORK) || bench_any_chosen(set, BENCH_SMP) ||
        bench_any_chosen(set, BENCH_DISK))
        return;
    fprintf(stderr, "perch bench: note: the net group does not run under "
                    "UML: no UML column\n");
    set->use_uml = false;
}

/* Everything that can be wrong with the request, checked before any run. */
static int prepare(int argc, char **argv, struct bench_set *set,
                   struct bench_dir *d, struct error *e)
{
    const char *names[BENCH_MAX];
    int nnames = 0;

    if (bench_parse_args(argc, argv, set, names, &nnames, e))
        return STATUS_USAGE;
    set->rounds = set->vs ? (set->quick ? 2 : 3) : 1;
    set->native.label = "native";
    set->base.label = "default";
    set->other.label = set->vs ? set->vs : "";
    set->tcg.label = "TCG";
    set->uml.label = "UML";
    if (bench_dir_create(d, e) || read_names(d->exe, set, e))
        return STATUS_ERROR;
    if (bench_choose(set, names, nnames, e))
        return STATUS_USAGE;
    if (check_out_dir(set->out_dir, e) ||
        (bench_needs_busybox(set) && bench_dir_busybox(d, e)) ||
        (bench_any_chosen(set, BENCH_DISK) && bench_disk_create(set, e)) ||
        (bench_any_chosen(set, BENCH_NET) && bench_net_pick_port(set, e)))
        return STATUS_ERROR;
    check_machine(&set->qemu, BENCH_QEMU, "qemu-system-x86", "TCG");
    check_machine(&set->use_uml, BENCH_UML, BENCH_UML_PACKAGE, "UML");
    check_uml_has_work(set);
    return 0;
}

/* UML, where it runs: Debian's linux.uml 6.1 dies on some hosts of its
 * own accord (on Intel CPUs with AMX, "ptrace set fp regs failed": its
 * buffer for the FPU state is smaller than the host's XSAVE area). Then
 * the table goes without its column, saying why, as without QEMU. */
static void uml_side(struct bench_set *set, const struct bench_dir *d,
                     const struct options *o)
{
    struct error e;

    if (set->use_uml && bench_uml_run(set, d, o, &e)) {
        fprintf(stderr, "perch: note: %s: no UML column\n", e.msg);
        set->use_uml = false;
    }
}

/* native, the guest runs, TCG, UML: the emulators last. */
static int run_sides(struct bench_set *set, const struct bench_dir *d,
                     struct guest_config *base, struct guest_config *other,
                     struct guest_config *tcg, struct guest_config *uml,
                     struct error *e)
{
    int rc = native_side(d, set, e) || guest_sides(set, d, base, other, e) ||
             (set->qemu && bench_qemu_run(set, d, &tcg->o, e));

    if (!rc)
        uml_side(set, d, &uml->o);
    bench_progress_done();
    return rc ? -1 : 0;
}

static int run_all(struct bench_set *set, const struct bench_dir *d,
                   struct error *e)
{
    static struct guest_config base, other, tcg, uml;

    if (guest_config(&base, set, NULL, BENCH_DISK_PERCH, true, e) ||
        guest_config(&tcg, set, NULL, BENCH_DISK_QEMU, true, e) ||
        guest_config(&uml, set, NULL, BENCH_DISK_UML, false, e))
        return STATUS_ERROR;
    if (set->vs && guest_config(&other, set, set->vs, BENCH_DISK_PERCH, true, e))
        return STATUS_USAGE;
    set->native.cpus = 1;
    set->base.cpus = base.o.cpus;
    set->other.cpus = other.o.cpus;
    set->tcg.cpus = tcg.o.cpus;
    set->uml.cpus = 1;   /* UML has no SMP */
    cli_note_cpus(set->vs && other.o.cpus > base.o.cpus ? &other.o : &base.o);
    if (run_sides(set, d, &base, &other, &tcg, &uml, e))
        return STATUS_ERROR;
    bench_summarize(&set->native, set->n);
    bench_summarize(&set->base, set->n);
    bench_summarize(&set->other, set->n);
    bench_summarize(&set->tcg, set->n);
    bench_summarize(&set->uml, set->n);
    bench_print_table(stdout, set);
    fflush(stdout);
    return bench_write_files(set, e) ? STATUS_ERROR : 0;
}

/* The seed's rows join those chosen (perchbench may lack one: then no
 * figure, a dash in the tables). */
static void choose_seed_rows(struct bench_set *set, const struct seed *s)
{
    for (unsigned i = 0; i < SEED_ROWS && s->rows[i]; i++) {
        int k = bench_find(set, s->rows[i]);

        if (k >= 0)
            set->chosen[k] = true;
    }
}

/* Each seed (bench_seeds.h): natively, then perch by default and with its
 * switch (interleaved), over the seed's rows alone. */
static int run_seed(struct bench_set *set, const struct bench_dir *d, const struct seed *s,
                    struct seed_result *res, struct error *e)
{
    static struct guest_config base, other;

    memset(&set->native, 0, sizeof(set->native));
    memset(&set->base, 0, sizeof(set->base));
    memset(&set->other, 0, sizeof(set->other));
    set->native.label = "native";
    set->base.label = "default";
    set->other.label = s->switch_off ? s->switch_off : "";
    set->native.cpus = set->base.cpus = set->other.cpus = 1;
    memset(set->chosen, 0, sizeof(set->chosen));
    choose_seed_rows(set, s);
    set->vs = s->switch_off;
    set->rounds = set->vs ? (set->quick ? 2 : 3) : 1;
    if (guest_config(&base, set, NULL, BENCH_DISK_PERCH, false, e) ||
        (set->vs && guest_config(&other, set, set->vs, BENCH_DISK_PERCH, false, e)))
        return -1;
    if (native_side(d, set, e) || guest_sides(set, d, &base, &other, e))
        return -1;
    bench_summarize(&set->native, set->n);
    bench_summarize(&set->base, set->n);
    bench_summarize(&set->other, set->n);
    memcpy(res->native, set->native.s, sizeof(res->native));
    memcpy(res->after, set->base.s, sizeof(res->after));
    memcpy(res->before, set->other.s, sizeof(res->before));
    res->ran = true;
    return 0;
}

/* TCG and UML once over every seed's rows, for comparison (--qemu, --uml). */
static int run_seed_peers(struct bench_set *set, const struct bench_dir *d,
                          struct seed_peers *peers, struct error *e)
{
    static struct guest_config tcg, uml;

    memset(set->chosen, 0, sizeof(set->chosen));
    for (unsigned i = 0; i < bench_nr_seeds; i++)
        choose_seed_rows(set, &bench_seeds[i]);
    set->tcg.label = "TCG";
    set->uml.label = "UML";
    set->tcg.cpus = set->uml.cpus = 1;
    if (guest_config(&tcg, set, NULL, BENCH_DISK_QEMU, false, e) ||
        guest_config(&uml, set, NULL, BENCH_DISK_UML, false, e) ||
        (set->qemu && bench_qemu_run(set, d, &tcg.o, e)))
        return -1;
    uml_side(set, d, &uml.o);
    bench_summarize(&set->tcg, set->n);
    bench_summarize(&set->uml, set->n);
    peers->tcg = set->qemu;
    peers->uml = set->use_uml;
    memcpy(peers->tcg_s, set->tcg.s, sizeof(peers->tcg_s));
    memcpy(peers->uml_s, set->uml.s, sizeof(peers->uml_s));
    return 0;
}

static int run_seeds(struct bench_set *set, const struct bench_dir *d, struct error *e)
{
    static struct seed_result results[8];
    static struct seed_peers peers;
    int rc = 0;

    _Static_assert(sizeof(results) / sizeof(results[0]) >= 5, "a result per seed");
    memset(results, 0, sizeof(results));
    memset(&peers, 0, sizeof(peers));
    for (unsigned i = 0; !rc && i < bench_nr_seeds; i++)
        rc = run_seed(set, d, &bench_seeds[i], &results[i], e);
    if (!rc && (set->qemu || set->use_uml))
        rc = run_seed_peers(set, d, &peers, e);
    bench_progress_done();
    if (rc)
        return STATUS_ERROR;
    bench_seeds_print(stdout, set, results, &peers);
    fflush(stdout);
    return bench_seeds_write(set, results, &peers, e) ? STATUS_ERROR : 0;
}

int bench_main(int argc, char **argv, struct error *e)
{
    static struct bench_set set;    /* large: every round's results */
    static struct bench_dir dir;
    int status;

    memset(&set, 0, sizeof(set));
    dir.path[0] = '\0';
    status = prepare(argc, argv, &set, &dir, e);
    if (!status)
        status = set.seeds ? run_seeds(&set, &dir, e) : run_all(&set, &dir, e);
    bench_dir_remove(&dir);
    bench_disk_remove(&set);
    return status;
}
