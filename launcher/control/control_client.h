/*
 * `perch list` and `perch shutdown`: the asking end of the control socket
 * (control.h).
 */
#ifndef PERCH_CONTROL_CLIENT_H
#define PERCH_CONTROL_CLIENT_H

#include <limits.h>
#include <stdbool.h>
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

#endif
