/*
 * The GDB remote protocol's packets (GDB manual, "Remote Protocol"), one
 * at a time, against a stopped guest: what each asks, the reply, and
 * whether the guest should go on.
 */
#ifndef PERCH_GDB_COMMANDS_H
#define PERCH_GDB_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdb_target.h"

/* The longest packet perch takes and gives (qSupported's PacketSize),
 * data only: without '$', '#' and the checksum. */
#define GDB_PACKET_MAX 4096

enum gdb_action {
    GDB_REPLY,        /* send the reply, stay stopped */
    GDB_RESUME,       /* c, s, vCont: target.go says which vCPUs go on
                       * and how; no reply until the next stop */
    GDB_DETACH,       /* D: reply OK, breakpoints out, the guest goes on */
    GDB_KILL,         /* k: perch ends */
    GDB_NO_ACK,       /* QStartNoAckMode: reply OK, then no more acks */
};

struct gdb_reply {
    char data[GDB_PACKET_MAX + 1];
    size_t len;
};

/* What stopped the guest: the vCPU whose stop gdb hears of (the others
 * were stopped for it) and its signal (PERCH_GDB_STOP_*). gdb's thread N
 * is vCPU N - 1, as QEMU numbers them. */
struct gdb_stop {
    uint32_t why;
    unsigned cpu;
};

/* Serve one packet (its data, len bytes, not NUL-ended) while the guest is
 * stopped. Anything perch does not know gets the empty reply, as the
 * protocol asks; a thread the guest does not have, an error. */
enum gdb_action gdb_command(struct gdb_target *t, const struct gdb_stop *stop,
                            const char *pkt, size_t len, struct gdb_reply *r);

/* The stop reply: "T05thread:01;", with swbreak (the client asked for it
 * in qSupported) at a breakpoint: the pc is already back at the int3, so
 * gdb must not move it again. */
void gdb_stop_reply(const struct gdb_stop *stop, bool swbreak, struct gdb_reply *r);

#endif
