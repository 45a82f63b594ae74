#include "mark_seq.h"

#include <string.h>

void mark_seq_init(struct mark_seq *s, mark_seq_fn *on_mark, void *arg)
{
    s->nheld = 0;
    s->on_mark = on_mark;
    s->arg = arg;
}

static bool body_byte(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
           c == ';';
}

/* Does byte c continue the held beginning of a mark? */
static bool continues(const struct mark_seq *s, uint8_t c)
{
    if (s->nheld < MARK_SEQ_PREFIX_LEN)
        return c == (uint8_t)MARK_SEQ_PREFIX[s->nheld];
    return s->nheld < MARK_SEQ_HELD_MAX && body_byte(c);
}

/* The held body is "NAME;begin" or "NAME;end": report it. False if it is
 * anything else (not ours: it goes out as it came). */
static bool finish(struct mark_seq *s)
{
    char body[MARK_SEQ_HELD_MAX + 1];
    size_t len = s->nheld - MARK_SEQ_PREFIX_LEN;
    char *semi;
    bool end;

    memcpy(body, s->held + MARK_SEQ_PREFIX_LEN, len);
    body[len] = '\0';
    semi = strchr(body, ';');
    if (!semi || semi == body || semi - body > MARK_SEQ_NAME_MAX)
        return false;
    *semi = '\0';
    if (!strcmp(semi + 1, "end"))
        end = true;
    else if (!strcmp(semi + 1, "begin"))
        end = false;
    else
        return false;   /* also a second ';' */
    if (s->on_mark)
        s->on_mark(s->arg, body, end);
    s->nheld = 0;
    return true;
}

size_t mark_seq_flush(struct mark_seq *s, uint8_t *out)
{
    size_t n = s->nheld;

    memcpy(out, s->held, n);
    s->nheld = 0;
    return n;
}

/* One byte with something held: hold it, end the mark, or give the held
 * bytes up. Returns the bytes put into out. */
static size_t step_held(struct mark_seq *s, uint8_t c, uint8_t *out)
{
    size_t n;

    if (continues(s, c)) {
        s->held[s->nheld++] = c;
        return 0;
    }
    if (c == MARK_SEQ_END && s->nheld > MARK_SEQ_PREFIX_LEN && finish(s))
        return 0;
    /* Only the first held byte is an ESC, so no mark starts inside the
     * held bytes; c itself may start one. */
    n = mark_seq_flush(s, out);
    if (c == (uint8_t)MARK_SEQ_PREFIX[0]) {
        s->held[s->nheld++] = c;
        return n;
    }
    out[n] = c;
    return n + 1;
}

size_t mark_seq_filter(struct mark_seq *s, const uint8_t *in, size_t n,
                       uint8_t *out)
{
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        if (s->nheld)
            len += step_held(s, in[i], out + len);
        else if (in[i] == (uint8_t)MARK_SEQ_PREFIX[0])
            s->held[s->nheld++] = in[i];
        else
            out[len++] = in[i];
    }
    return len;
}
