/*
 * The control socket: every running `perch run` listens on a UNIX socket,
 * DIR/PID.sock, so that `perch list`, `perch shutdown` and `perch mem-set`
 * reach it. DIR is
 * $XDG_RUNTIME_DIR/perch, else /tmp/perch-UID: a folder of the user's own,
 * mode 0700, checked before use. One request a connection, one line each
 * way:
 *   "info"     -> "ok pid=N name=NAME vcpus=N mem_mib=N uptime_s=N disks=A,B"
 *                 (name and disks "-" when none)
 *   "shutdown" -> "ok" once the guest is asked to power off, as `xl
 *                 shutdown` asks (xenstore's control/shutdown), else
 *                 "error WHY"
 *   "mem-set MIB" -> "ok" once the guest's memory target is set (xenstore's
 *                 memory/target, as `xl mem-set`), else "error WHY"; a size
 *                 outside the guest's range is refused with a WHY that
 *                 names its bounds in MiB
 *   "save [--leave-running]", with an open file passed beside it
 *              (SCM_RIGHTS) -> "ok" once the guest is saved into it (`perch
 *                 save`, launcher/run/save.h), else "error WHY"
 * A peer of another user is refused; a line longer than CONTROL_LINE_MAX or
 * a request not of these ends the connection with "error ...".
 */
#ifndef PERCH_CONTROL_H
#define PERCH_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"

#define CONTROL_LINE_MAX 1024
#define CONTROL_NAME_MAX 32

/* The folder of the sockets, into dir (PATH_MAX bytes); with create, made
 * if missing. 0; 1 when it is missing and not to be made; -1 with e unless
 * it is a folder this user owns that nobody else may enter. */
int control_dir(char dir[PATH_MAX], bool create, struct error *e);

/* Whether name can be a guest's --name: 1 to CONTROL_NAME_MAX of
 * [A-Za-z0-9._-], not all digits (a pid names a guest too). */
bool control_name_ok(const char *name);

#endif
