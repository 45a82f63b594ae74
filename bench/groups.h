/* The groups beside the micro-benchmarks, as the driver (perchbench.c)
 * runs them: the work group of timed shell workloads (work.c), the smp
 * group of two jobs one after the other and at once (smp.c, timed as the
 * work group's), the disk group of O_DIRECT I/O (disk.c) and the net
 * group of TCP (net.c). */
#ifndef PERCHBENCH_GROUPS_H
#define PERCHBENCH_GROUPS_H

#include <stddef.h>

#include "common.h"

/* work.c: the workloads, in the order `all` runs them, and their driver. */
extern const struct bench work_benches[];
extern const int work_count;
void run_work(const struct bench *b, struct result *res);

/* A benchmark of group that is a shell script, run_work's: setup once
 * (NULL: none), then script timed whole, one run an operation. */
#define TIMED_SCRIPT(name, group, what, setup, script) \
    { name, group, what, "ns", NULL, 0, run_work, setup, script }

/* smp.c: pairs of rows, NAME_seq and NAME_par, as `list` names them. */
extern const struct bench smp_benches[];
extern const int smp_count;

/* disk.c: the disk group, in the order `list` names them. */
extern const struct bench disk_benches[];
extern const int disk_count;

/* net.c: the net group; listening on --net-listen (before the first
 * benchmark, so a peer that comes early waits in the backlog); the peer,
 * `perchbench netpeer A.B.C.D:PORT`, whose exit status main returns. */
extern const struct bench net_benches[];
extern const int net_count;
bool net_addr_ok(const char *text);
void net_listen(const char *where);
int net_peer(const char *where);

#endif
