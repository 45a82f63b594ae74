/*
 * perchbench's smp group: what several CPUs give. Each job runs twice,
 * one after the other (NAME_seq) and at once (NAME_par), each pair a
 * shell script timed whole as the work group's (run_work, its folder and
 * environment); perch bench divides the one by the other. On one CPU (or
 * pinned to one, as perchbench runs natively) at once is no faster.
 * Not in `all`: it runs when named.
 */
#include "groups.h"

/* 4 MiB through a pipe in 1 KiB writes: thousands of system calls, each
 * end of the pipe a process of its own. */
#define PIPELINE "dd if=/dev/zero bs=1k count=4096 2>/dev/null | md5sum"

/* CPU alone, no system calls (~0.35 s natively). */
#define LOOP "awk 'BEGIN { for (i = 0; i < 1000000; i++) " \
             "s = (s + i * i) % 1000003 }'"

/* The same job twice. At once: the first in the background, and waited
 * for by its pid, so that its failure fails the run. */
#define ONE_AFTER_THE_OTHER(job) job " && " job
#define AT_ONCE(job) job " & " job " && wait $!"

#define SMP(name, what, script) TIMED_SCRIPT(name, "smp", what, NULL, script)

const struct bench smp_benches[] = {
    SMP("pipes_seq", "Time for two dd | md5sum pipelines (4 MiB in 1 KiB "
        "writes each), one after the other", ONE_AFTER_THE_OTHER(PIPELINE)),
    SMP("pipes_par", "Time for the same two pipelines at once",
        AT_ONCE(PIPELINE)),
    SMP("loops_seq", "Time for two awk loops of 1000000 rounds, one after "
        "the other", ONE_AFTER_THE_OTHER(LOOP)),
    SMP("loops_par", "Time for the same two loops at once", AT_ONCE(LOOP)),
};
const int smp_count = sizeof(smp_benches) / sizeof(smp_benches[0]);
