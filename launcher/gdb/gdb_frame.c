/* The GDB remote protocol's framing, a byte at a time (gdb_frame.h). */
#include "gdb_frame.h"

#include "../../lib/hex.h"

void gdb_frame_reset(struct gdb_framer *f)
{
    f->phase = 0;
    f->len = 0;
}

static enum gdb_frame_event between_packets(struct gdb_framer *f, char c)
{
    if (c == '$') {
        f->phase = 1;
        f->len = 0;
        f->sum = f->check = 0;
        f->overflow = f->bad_digit = false;
        return GDB_FRAME_NONE;
    }
    if (c == 0x03)
        return GDB_FRAME_INTERRUPT;
    return c == '+' || c == '-' ? GDB_FRAME_NONE : GDB_FRAME_NOISE;
}

/* The data: every byte counts towards the checksum; what does not fit is
 * counted and dropped, and the packet with it. */
static void data_byte(struct gdb_framer *f, char c)
{
    if (c == '#') {
        f->phase = 2;
        return;
    }
    f->sum += (uint8_t)c;
    if (f->len < sizeof(f->data))
        f->data[f->len++] = c;
    else
        f->overflow = true;
}

enum gdb_frame_event gdb_frame_byte(struct gdb_framer *f, char c, bool no_ack)
{
    int d;

    if (f->phase == 0)
        return between_packets(f, c);
    if (f->phase == 1) {
        data_byte(f, c);
        return GDB_FRAME_NONE;
    }
    d = hex_digit(c);
    f->check = (uint8_t)(f->check << 4 | (d < 0 ? 0 : d));
    f->bad_digit |= d < 0;
    if (f->phase++ == 2)
        return GDB_FRAME_NONE;
    f->phase = 0;
    if (f->bad_digit || (!no_ack && f->check != f->sum))
        return GDB_FRAME_BAD_CHECKSUM;
    return f->overflow ? GDB_FRAME_TOO_LONG : GDB_FRAME_PACKET;
}
