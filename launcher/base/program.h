/* Running another program (QEMU, UML, perchbench natively, mmdebstrap) and
 * taking all it writes, for perch bench and perch image. */
#ifndef PERCH_LAUNCHER_PROGRAM_H
#define PERCH_LAUNCHER_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* argv[0] through PATH, stdin /dev/null, stdout and stderr into sink.
 * Returns its wait status in *status, or -1 if it could not start. */
int program_run(char *const argv[], void (*sink)(void *, const uint8_t *, size_t),
                void *arg, int *status, struct error *e);

/* What program_run_watched does beyond program_run. */
struct program_watch {
    char *const *env;         /* NAME=VALUE words set for it, NULL-ended;
                               * NULL: perch's environment as it is */
    unsigned quiet_limit_s;   /* killed after this long without output;
                               * 0: never */
    bool timed_out;           /* out: it was killed for that */
};

/* As program_run, for a program whose helper processes may outlive it
 * and hold its output open, so that the output would never end
 * (linux.uml's, when it is killed): it runs in a process group of its
 * own, all of which is killed once it has ended, once it has been quiet
 * for w->quiet_limit_s, or when SIGINT, SIGTERM or SIGHUP ends perch
 * (the group is not the terminal's, so Ctrl-C reaches perch alone). */
int program_run_watched(char *const argv[], struct program_watch *w,
                        void (*sink)(void *, const uint8_t *, size_t),
                        void *arg, int *status, struct error *e);

#endif
