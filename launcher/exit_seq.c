#include "exit_seq.h"

#include <string.h>

void exit_seq_init(struct exit_seq *s)
{
    s->nheld = 0;
    s->status = -1;
}

/* The value of the held digits, or -1 if there are none or it is above
 * 255 (not an exit status: not our sequence). */
static int held_value(const struct exit_seq *s)
{
    size_t digits = s->nheld - EXIT_SEQ_PREFIX_LEN;
    int v = 0;

    if (digits == 0)
        return -1;
    for (size_t i = EXIT_SEQ_PREFIX_LEN; i < s->nheld; i++)
        v = v * 10 + (s->held[i] - '0');
    return v <= 255 ? v : -1;
}

/* Does byte c continue the held beginning of a sequence? */
static int continues(const struct exit_seq *s, uint8_t c)
{
    if (s->nheld < EXIT_SEQ_PREFIX_LEN)
        return c == (uint8_t)EXIT_SEQ_PREFIX[s->nheld];
    return c >= '0' && c <= '9' &&
           s->nheld - EXIT_SEQ_PREFIX_LEN < EXIT_SEQ_DIGITS;
}

size_t exit_seq_flush(struct exit_seq *s, uint8_t *out)
{
    size_t n = s->nheld;

    memcpy(out, s->held, n);
    s->nheld = 0;
    return n;
}

/* One byte with something held: hold it, end the sequence, or give the
 * held bytes up. Returns the bytes put into out. */
static size_t step_held(struct exit_seq *s, uint8_t c, uint8_t *out)
{
    size_t n;

    if (continues(s, c)) {
        s->held[s->nheld++] = c;
        return 0;
    }
    if (c == EXIT_SEQ_END && s->nheld > EXIT_SEQ_PREFIX_LEN &&
        held_value(s) >= 0) {
        s->status = held_value(s);
        s->nheld = 0;
        return 0;
    }
    /* Not ours. Only the first held byte is an ESC, so no sequence can
     * start inside the held bytes; c itself may start one. */
    n = exit_seq_flush(s, out);
    if (c == (uint8_t)EXIT_SEQ_PREFIX[0]) {
        s->held[s->nheld++] = c;
        return n;
    }
    out[n] = c;
    return n + 1;
}

size_t exit_seq_filter(struct exit_seq *s, const uint8_t *in, size_t n,
                       uint8_t *out)
{
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        if (s->nheld)
            len += step_held(s, in[i], out + len);
        else if (in[i] == (uint8_t)EXIT_SEQ_PREFIX[0])
            s->held[s->nheld++] = in[i];
        else
            out[len++] = in[i];
    }
    return len;
}
