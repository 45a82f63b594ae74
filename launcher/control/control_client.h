/*
 * `perch list`, `perch shutdown` and `perch mem-set`: the asking end of the control socket
 * (control.h).
 */
#ifndef PERCH_CONTROL_CLIENT_H
#define PERCH_CONTROL_CLIENT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/error.h"

/* The socket of the running guest `guest` (its pid, or its --name) into
 * path (PATH_MAX bytes; may be NULL): 0, or -1 with e. */
int control_find(const char *guest, char *path, struct error *e);

/* `perch list`: a line for every running guest, under a header. */
int control_list(FILE *out, struct error *e);

/* `perch shutdown [--wait] GUEST`: the guest is asked to power off; with
 * wait, until its perch has ended (its socket gone), at most
 * CONTROL_WAIT_S seconds. */
#define CONTROL_WAIT_S 120
int control_shutdown(const char *guest, bool wait, struct error *e);

/* `perch mem-set GUEST MIB`: the guest's memory target (its balloon
 * follows). 0, STATUS_USAGE with e for a size the guest refuses (below
 * its floor, above its --mem), STATUS_ERROR with e for the rest. */
int control_mem_set(const char *guest, uint64_t mib, struct error *e);

/* `perch save [--leave-running] GUEST FILE`: the guest into FILE (made
 * anew, mode 0600; taken away again if the save fails). 0, or
 * STATUS_ERROR with e. */
int control_save(const char *guest, const char *file, bool leave_running, struct error *e);

#endif
