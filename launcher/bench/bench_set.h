/*
 * What the files of `perch bench` share (bench.h is the command itself):
 * a benchmark's results, a side's, the set of one run, and each file's
 * functions.
 *
 * bench.c runs the sides, bench_parse.c reads their output (and the
 * words that choose what they run), bench_dir.c makes their files,
 * bench_disk.c the disk group's image, bench_net.c the net group's port
 * and peer, bench_machine.c a run on another machine
 * than perch, which bench_qemu.c makes QEMU's and bench_uml.c UML's,
 * bench_restore.c the restore row's saved guest, bench_report.c prints and
 * writes the results (bench_seeds.h: the patch emails' experiments).
 */
#ifndef PERCH_BENCH_SET_H
#define PERCH_BENCH_SET_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../run/cli.h"
#include "../base/error.h"
#include "../base/program.h"
#include "../boot/default_guest.h"
#include "../console/osc_filter.h"
#include "../run/stats.h"

#define BENCH_MAX          32     /* benchmarks perchbench may name (its
                                     MAX_BENCHES) */
#define BENCH_NAME_MAX     32     /* as OSC_MARK_NAME_MAX */
#define BENCH_UNIT_MAX     7      /* "ns", "MB/s", "IOPS", "trips/s" */
#define BENCH_ROUNDS_MAX   3
#define BENCH_DEFAULT_OUT  "build/bench-results"
/* Results of a run: one slot a benchmark, then boot to /init, then
 * `perch restore` to the saved guest's first output (bench_restore.c). */
#define BENCH_BOOT         BENCH_MAX
#define BENCH_RESTORE      (BENCH_MAX + 1)
#define BENCH_SLOTS        (BENCH_MAX + 2)

/* The rows that time perch starting a guest (boot, restore): ns a start,
 * lower is better, not perchbench's. */
static inline bool bench_is_start(int k)
{
    return k >= BENCH_BOOT;
}
/* perch's /init writes this mark first (initramfs/init.c): boot is over. */
#define BENCH_BOOT_MARK    "init"
#define BENCH_LINE_MAX     512

/* perchbench's groups, as `perchbench list` names them (bench_parse.c).
 * The smp group's rows come in pairs, NAME_seq and NAME_par: two jobs one
 * after the other and at once. */
enum bench_group { BENCH_MICRO, BENCH_WORK, BENCH_DISK, BENCH_NET, BENCH_SMP,
                   BENCH_GROUPS };
extern const char *const bench_group_names[BENCH_GROUPS];

/* One benchmark in one run, as perchbench printed it. */
struct bench_result {
    bool have;                     /* its result line came */
    double median, min, max;       /* ns per operation, or the rate */
    long ops;                      /* operations inside the marks */
    bool counted;                  /* both of its marks came (perch only) */
    struct perch_counters begin, end;
};

/* One benchmark on one side, across the rounds. Per-op counts are from
 * guest memory (stats.h): numbers to print, nothing more. */
struct bench_summary {
    bool have, counted;
    double median, min, max;
    double traps;                                /* KVM's exits per op (-1: none kept) */
    double visits, exits, hypercalls;            /* per operation */
    double trapped;                              /* trapped PTE writes per op */
    double visit[PERCH_VISIT_COUNT];
};

/* One configuration: native, perch's defaults, the --vs options, TCG,
 * UML. */
struct bench_side {
    const char *label;
    unsigned cpus;                 /* its vCPUs (native: 1, pinned) */
    int runs;
    struct bench_result r[BENCH_ROUNDS_MAX][BENCH_SLOTS];
    struct bench_summary s[BENCH_SLOTS];
};

struct bench_set {
    bool quick;
    bool qemu;                     /* --qemu, and QEMU is installed */
    bool use_uml;                  /* --uml, and linux.uml is installed */
    const char *vs;                /* NULL: no second guest column */
    bool seeds;                    /* --seeds: the patch emails' experiments */
    const char *out_dir;
    unsigned cpus;                 /* --cpus N: the guest's and TCG's vCPUs
                                    * (--vs may set the vs column's own;
                                    * UML has one) */
    int rounds;                    /* guest runs per side */
    int n;                         /* benchmarks, in perchbench's order */
    char names[BENCH_MAX][BENCH_NAME_MAX + 1];
    enum bench_group group[BENCH_MAX];
    char unit[BENCH_MAX][BENCH_UNIT_MAX + 1];   /* "ns" (per operation; work:
                                                   per run), or a rate */
    bool rate[BENCH_MAX];          /* a rate: higher is better */
    bool chosen[BENCH_MAX];
    char disk_image[PATH_MAX];     /* the disk group's; "": none chosen */
    char disk_fs[32];              /* its file system's name, for the table */
    unsigned net_port;             /* the net group's on 127.0.0.1; 0: none */
    struct bench_side native, base, other, tcg, uml;
};

/* ---- bench_parse.c: perch bench's words, perchbench's output --------- */

/* The words after "bench" into set (with the defaults: DIR
 * BENCH_DEFAULT_OUT, 1 vCPU) and the benchmark names into names
 * (*nnames of them, at most BENCH_MAX). Returns 0, or -1 with e saying
 * what is wrong. */
int bench_parse_args(int argc, char **argv, struct bench_set *set,
                     const char **names, int *nnames, struct error *e);

/* One line of `perchbench list`, "NAME GROUP UNIT WHAT", into benchmark
 * set->n (set->n grows); a line that is not one is skipped. Returns 0, or
 * -1 for an unknown group or unit, or one benchmark too many. */
int bench_parse_list_line(struct bench_set *set, const char *line,
                          struct error *e);

/* Mark set->chosen for each of the nnames words: a benchmark's name, a
 * group's, or "all" (every group but net and smp; also what no word at
 * all chooses). Returns 0, or -1 with e naming a word that chose nothing
 * and every word perch bench knows. */
int bench_choose(struct bench_set *set, const char **names, int nnames,
                 struct error *e);


/* Lines of perchbench's output, and its marks, for one run. */
struct bench_capture {
    struct bench_set *set;
    struct bench_result *res;      /* [BENCH_SLOTS] for this run */
    unsigned long long start_ns;   /* CLOCK_MONOTONIC when the run began */
    char line[BENCH_LINE_MAX];
    size_t len;
    char last[BENCH_LINE_MAX];     /* the last line, for error messages */
    char progress[96];             /* "guest run 1/2 (default)" */
};

/* A run starts now: its results go to res. */
void bench_capture_start(struct bench_capture *c, struct bench_set *set,
                         struct bench_result *res, const char *progress);
/* Output bytes, in any pieces (launch_io's output). */
void bench_capture_bytes(void *arg, const uint8_t *p, size_t n);
/* A mark, with perch's counters then (NULL where there are none: TCG). */
void bench_capture_mark(void *arg, const char *name, bool end,
                        const struct perch_counters *now);
/* The output ended: the last line, even without its newline. */
void bench_capture_end(struct bench_capture *c);

/* A serial console's raw bytes (QEMU's): the guest's exit-status sequence
 * and marks taken out as perch's console does, the rest to the capture. */
struct bench_serial {
    struct bench_capture *capture;
    struct osc_filter osc;
    struct osc_guest_said said;    /* exit_status: -1 if none */
};

void bench_serial_start(struct bench_serial *s, struct bench_capture *c);
void bench_serial_bytes(void *arg, const uint8_t *p, size_t n);
void bench_serial_end(struct bench_serial *s);

/* The index of a benchmark name in set, or -1. */
int bench_find(const struct bench_set *set, const char *name);

/* Whether a chosen benchmark is of group g. */
bool bench_any_chosen(const struct bench_set *set, enum bench_group g);

/* Whether a chosen benchmark is a shell script (the work and smp groups):
 * natively, those need busybox's folder and one to write in. */
bool bench_needs_busybox(const struct bench_set *set);

/* The first chosen benchmark whose line (and, when counted, both marks)
 * res lacks, or NULL; the net group's only when with_net (a side that
 * does not run it: UML). */
const char *bench_missing(const struct bench_set *set,
                          const struct bench_result *res, bool counted,
                          bool with_net);

/* Progress on stderr: in place on a terminal, lines otherwise. */
void bench_progress(const char *what, const char *detail);
void bench_progress_done(void);

/* ---- bench_dir.c: the run's temporary folder ------------------------- */

struct bench_dir {
    char path[PATH_MAX];           /* "": none made */
    char exe[PATH_MAX];            /* the embedded perchbench */
    char bin[PATH_MAX];            /* busybox and its links, for work */
    char work[PATH_MAX];           /* the workloads' files, natively */
};

/* The restore row's saved guest (bench_restore.c). */
struct bench_restore {
    char name[32];                 /* its --name while it runs */
    char file[PATH_MAX];           /* the snapshot, in the bench folder */
    char err[PATH_MAX];            /* what the last perch said on stderr */
    bool ready;
};

/* $TMPDIR/perch-bench-XXXXXX with perchbench in it. */
int bench_dir_create(struct bench_dir *d, struct error *e);
/* bin/ with perch's cached busybox and its applets' links, and work/. */
int bench_dir_busybox(struct bench_dir *d, struct error *e);

/* Boot a guest that prints and save it into d (this perch's own `perch
 * run` and `perch save`). 0, or -1 with e. */
int bench_restore_prepare(struct bench_restore *r, const struct bench_dir *d,
                          struct error *e);
/* One `perch restore` of it: start to first output into res, in ns. */
int bench_restore_once(const struct bench_restore *r, struct bench_result *res,
                       struct error *e);
/* The snapshot's file taken away. */
void bench_restore_release(struct bench_restore *r);
/* name in the folder, with these bytes, into path. */
int bench_dir_file(const struct bench_dir *d, const char *name,
                   const void *bytes, size_t size, char *path,
                   struct error *e);
void bench_dir_remove(struct bench_dir *d);

/* ---- bench_disk.c: the disk group's image ---------------------------- */

/* Sparse, in DIR, beside bench.csv: perchbench uses its first 256 MiB. */
#define BENCH_DISK_MIB     272
#define BENCH_DISK_NAME    "perch-bench-disk.img"
/* The guest's names for it: perch's blkfront, QEMU's virtio-blk, UML's
 * ubd0. */
#define BENCH_DISK_PERCH   "/dev/xvda"
#define BENCH_DISK_QEMU    "/dev/vda"
#define BENCH_DISK_UML     "/dev/ubda"

/* Make the image in set->out_dir, name its file system, and prove it takes
 * O_DIRECT, before any run. */
int bench_disk_create(struct bench_set *set, struct error *e);
/* Empty and sparse again: every side starts from the same file. */
int bench_disk_fresh(const struct bench_set *set, struct error *e);
void bench_disk_remove(struct bench_set *set);

/* ---- bench_net.c: the net group's port and peer ----------------------- */

/* Where the guest's perchbench listens, forwarded from set->net_port. */
#define BENCH_NET_GUEST_PORT 5201

int bench_net_pick_port(struct bench_set *set, struct error *e);
/* The peer for one side's run, started before it (*pid 0: no net group). */
int bench_net_peer_start(const struct bench_set *set, const struct bench_dir *d,
                         pid_t *pid, struct error *e);
/* After the run: if it went well (ok), the peer must have ended well too;
 * else, or if it lingers, it is killed. Returns 0, or -1 with e saying why. */
int bench_net_peer_end(pid_t pid, bool ok, struct error *e);

/* ---- bench_machine.c: a run on another machine than perch ----------- */

/* How a machine (QEMU, UML) runs the guest: one run, its console's raw
 * bytes on its stdout, read as a serial console. */
struct bench_machine {
    const char *what;              /* "TCG run": its progress and errors */
    struct bench_side *side;       /* its results' column */
    char *const *argv;             /* the machine's command line */
    struct program_watch *watch;   /* NULL: run plainly (program_run) */
    bool with_net;                 /* it runs the net group (a peer) */
};

/* perch's initramfs for o's command, with these modules (NULL: none), as
 * the file name in d; its path into path. */
int bench_machine_initrd(const struct bench_dir *d, const char *name,
                         const struct options *o,
                         const struct default_guest_module_set *modules,
                         char *path, struct error *e);

/* One run of m, with a fresh disk image and the net group's peer if
 * chosen, into m->side; e names m->what, the machine's status (or its
 * quiet limit) and its last console line if it fails. */
int bench_machine_run(struct bench_set *set, const struct bench_dir *d,
                      const struct bench_machine *m, struct error *e);

/* ---- bench_qemu.c: the TCG side -------------------------------------- */

#define BENCH_QEMU "qemu-system-x86_64"
/* The disk image's -drive options: through the host's page cache, with
 * io_uring, as perch's back end does. */
#define BENCH_QEMU_DRIVE_CACHE "cache=writeback,aio=io_uring"

/* -drive's value for the disk image: a raw virtio disk, with QEMU's
 * option syntax (a comma in a value doubled). Returns 0, or -1 if it does
 * not fit in size. */
int bench_qemu_drive(const char *image, char *out, size_t size,
                     struct error *e);

/* QEMU's command line for one TCG run of the guest o describes (its
 * memory and vCPUs: -smp N, with N > 1 on -accel tcg,thread=multi, a host
 * thread a vCPU as perch's), booting kernel with initrd, and set's disk
 * image and forwarded port if any. The words live in q. Returns 0, or -1
 * if the image's path is too long. */
struct bench_qemu_args {
    char *argv[40];
    char mem[32], smp[16], netdev[96];
    char drive[2 * PATH_MAX + 64];
};
int bench_qemu_args(struct bench_qemu_args *q, const struct bench_set *set,
                    const struct options *o, const char *kernel,
                    const char *initrd, struct error *e);

/* One TCG run of the guest o describes (its memory, vCPUs and command), on
 * Debian's cloud kernel with perch's initramfs, into set->tcg. */
int bench_qemu_run(struct bench_set *set, const struct bench_dir *d,
                   const struct options *o, struct error *e);

/* ---- bench_uml.c: the UML side ------------------------------------------ */

/* Debian's user-mode-linux: Linux built as a host program. */
#define BENCH_UML "linux.uml"
#define BENCH_UML_PACKAGE "user-mode-linux"
/* The longest UML may print nothing before it is taken for hung: longer
 * than any one benchmark, whose marks and line are output. */
#define BENCH_UML_QUIET_S 300

/* UML's command line for one run of the guest o describes (its memory;
 * one CPU), booting initrd, with set's disk image as ubd0 if any, and its
 * environment: TMPDIR (where UML keeps the guest's memory file) tmpdir,
 * and LD_PRELOAD the library that lets UML write a process's whole XSAVE
 * area (launcher/bench/preload/uml_xstate.c), at preload. The words live
 * in u. Returns 0, or -1 if the image's path has what ubd0= would split
 * it at (',' or ':'). */
struct bench_uml_args {
    char *argv[16];
    char *env[3];
    char mem[32];
    char initrd[PATH_MAX + 16], ubd[PATH_MAX + 16], tmpdir[PATH_MAX + 16];
    char preload[PATH_MAX + 16];
};
int bench_uml_args(struct bench_uml_args *u, const struct bench_set *set,
                   const struct options *o, const char *initrd,
                   const char *tmpdir, const char *preload, struct error *e);

/* One UML run of the guest o describes (its memory and command; not the
 * net group), with perch's initramfs without modules, into set->uml. */
int bench_uml_run(struct bench_set *set, const struct bench_dir *d,
                  const struct options *o, struct error *e);

/* ---- bench_report.c ---------------------------------------------------- */

void bench_summarize(struct bench_side *side, int n);
void bench_print_table(FILE *out, const struct bench_set *set);
int bench_write_files(const struct bench_set *set, struct error *e);

#endif
