/*
 * gdb's `monitor` commands (qRcmd): the guest kernel's symbols, from its
 * own kallsyms (or a System.map beside it: launcher/symbols/), for a gdb
 * that has no vmlinux:
 *   monitor sym [ADDR]   ADDR (default: the stopped rip) as name+offset
 *   monitor addr NAME    the address of kernel function NAME
 *   monitor help
 */
#ifndef PERCH_GDB_MONITOR_H
#define PERCH_GDB_MONITOR_H

#include <stddef.h>

#include "gdb_target.h"

/* Run `cmd` (NUL-ended, as gdb's user typed it) and write what it says,
 * one or more lines, into out[size]. */
void gdb_monitor(const struct gdb_target *t, const char *cmd, char *out, size_t size);

#endif
