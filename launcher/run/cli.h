/* perch's command line: `perch run [OPTIONS] [KERNEL] [-- CMD ARGS...]`,
 * `perch bench [...]` (bench.h), `perch image ...` (image.h), `perch cpu
 * record` (cpu_profile.h), --help, --version. */
#ifndef PERCH_CLI_H
#define PERCH_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "../disk/disk.h"
#include "../base/error.h"
#include "../net/net_option.h"

#define DEFAULT_MEM_MIB 256
/* The Host's frame table maps 128 GiB of frames (abi/layout.h). */
#define MAX_MEM_MIB 65536
/* --cpus N (QEMU's -smp N): guest vCPUs, each on its own host thread. */
#define MAX_CPUS 64

enum command { CMD_RUN, CMD_HELP, CMD_VERSION, CMD_BENCH, CMD_IMAGE, CMD_CPU, CMD_LIST,
               CMD_SHUTDOWN, CMD_MEM_SET, CMD_SAVE, CMD_RESTORE };

struct options {
    enum command command;
    const char *kernel;        /* NULL: Debian's cloud kernel (default_guest.h) */
    const char *initrd;
    const char *cmdline;
    uint64_t mem_mib;
    unsigned cpus;             /* --cpus N, -smp N: 1 to MAX_CPUS, default 1 */
    bool stats;
    bool stats_cpu;            /* --stats-cpu: MSRs and CPUID leaves asked */
    bool strict;
    const char *cpu_profile;   /* --cpu-profile FILE; NULL: this CPU as it is */
    bool no_guest_isolation;   /* guest user on the guest kernel's L4 */
    bool no_sandbox;           /* --no-sandbox: the guest-facing threads unconfined */
    bool small_disk_requests;  /* --small-disk-requests: blkfront's defaults */
    uint32_t optimizations_off;   /* PERCH_OPT_* (abi/layout.h) */
    struct disk_option disks[MAX_DISKS];
    unsigned nr_disks;
    const char *root;          /* --root DEV: boot the disk's own init */
    const char *name;          /* --name NAME for perch list and shutdown */
    const char *guest;         /* perch shutdown and mem-set GUEST: a pid or a name */
    bool wait;                 /* perch shutdown --wait (-w) */
    const char *save_file;     /* perch save GUEST FILE */
    bool leave_running;        /* perch save --leave-running */
    const char *restore;       /* perch restore FILE */
    struct net_option net;     /* --net; kind NET_NONE when absent */
    uint16_t gdb_port;         /* --gdb: 0 when absent */
    bool gdb_wait;             /* --gdb-wait: hold the guest for gdb */
    char **cmd;                /* after `--`: run in the guest; NULL: a shell */
    int cmd_argc;
    char **bench_args;         /* `perch bench`'s (or image's) words, parsed
                                * in bench.c (image.c) */
    int bench_argc;
};

/* Returns 0, or -1 with e saying what is wrong with the command line. */
int cli_parse(int argc, char **argv, struct options *o, struct error *e);
void cli_print_help(void);

/* --cpus's value: a number of vCPUs, 1 to MAX_CPUS, into *cpus. name is
 * the option as the user spelled it, for the message ("--cpus", "-smp").
 * Returns 0, or -1 with e saying what is wrong. (perch bench's --cpus too.) */
int cli_parse_cpus(const char *s, const char *name, unsigned *cpus,
                   struct error *e);

/* More vCPUs than the host has online cores is allowed; this says so, once,
 * one line on stderr ("perch: note: 4 vCPUs on 2 host cores: ..."), and
 * nothing otherwise. main() calls it for perch run, bench.c once for its
 * runs; the launch does not. */
void cli_note_cpus(const struct options *o);

#endif
