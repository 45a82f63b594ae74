/*
 * The GDB remote protocol's framing, a byte at a time: "$data#cs"
 * packets, the Ctrl-C byte between them, acks and noise. No I/O here, so
 * that hostile bytes can be fed to it without a socket (tests/fuzz).
 */
#ifndef PERCH_GDB_FRAME_H
#define PERCH_GDB_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdb_commands.h"

enum gdb_frame_event {
    GDB_FRAME_NONE,          /* inside a packet, or an ack: nothing yet */
    GDB_FRAME_PACKET,        /* data[0 .. len) is a packet, checksum good */
    GDB_FRAME_BAD_CHECKSUM,  /* a packet whose checksum did not match: '-' */
    GDB_FRAME_TOO_LONG,      /* a packet longer than GDB_PACKET_MAX: dropped */
    GDB_FRAME_INTERRUPT,     /* Ctrl-C (0x03) between packets */
    GDB_FRAME_NOISE,         /* a byte that belongs to no packet */
};

struct gdb_framer {
    char data[GDB_PACKET_MAX];
    size_t len;
    int phase;               /* 0 between packets, 1 data, 2-3 checksum */
    bool overflow, bad_digit;
    uint8_t sum, check;
};

/* Start between packets. */
void gdb_frame_reset(struct gdb_framer *f);

/* Take one byte. Without acks (QStartNoAckMode) the checksum is not
 * checked, as the protocol says. */
enum gdb_frame_event gdb_frame_byte(struct gdb_framer *f, char c, bool no_ack);

#endif
