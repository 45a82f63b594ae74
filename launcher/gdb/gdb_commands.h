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
    GDB_CONTINUE,     /* c, vCont;c: no reply until the next stop */
    GDB_STEP,         /* s, vCont;s */
    GDB_DETACH,       /* D: reply OK, breakpoints out, the guest goes on */
    GDB_KILL,         /* k: perch ends */
    GDB_NO_ACK,       /* QStartNoAckMode: reply OK, then no more acks */
};

struct gdb_reply {
    char data[GDB_PACKET_MAX + 1];
    size_t len;
};

/* Serve one packet (its data, len bytes, not NUL-ended) while the guest is
 * stopped with signal `why` (PERCH_GDB_STOP_*). Anything perch does not
 * know gets the empty reply, as the protocol asks. */
enum gdb_action gdb_command(struct gdb_target *t, uint32_t why, const char *pkt,
                            size_t len, struct gdb_reply *r);

/* The stop reply for a stop `why` (PERCH_GDB_STOP_*): "T05thread:01;",
 * with swbreak (the client asked for it in qSupported) at a breakpoint:
 * the pc is already back at the int3, so gdb must not move it again. */
void gdb_stop_reply(uint32_t why, bool swbreak, struct gdb_reply *r);

#endif
