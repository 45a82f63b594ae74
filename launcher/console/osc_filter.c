/* The console's one escape-sequence filter: "\033]perch-KIND;PAYLOAD\007". */
#include "osc_filter.h"

#include <string.h>

_Static_assert(OSC_EXIT_PAYLOAD_MAX <= OSC_PAYLOAD_MAX &&
               OSC_MARK_PAYLOAD_MAX <= OSC_PAYLOAD_MAX,
               "every kind's payload fits the held bytes");

void osc_filter_init(struct osc_filter *f, const struct osc_kind *kinds,
                     size_t nkinds, void *arg)
{
    f->kinds = kinds;
    f->nkinds = nkinds;
    f->arg = arg;
    f->kind = NULL;
    f->nheld = 0;
}

/* Do the KIND bytes held so far, with c after them, begin a known name?
 * At the ';' that ends one, f->kind becomes that kind. */
static bool kind_continues(struct osc_filter *f, uint8_t c)
{
    const uint8_t *part = f->held + OSC_PREFIX_LEN;
    size_t len = f->nheld - OSC_PREFIX_LEN;

    for (size_t i = 0; i < f->nkinds; i++) {
        const char *name = f->kinds[i].name;
        size_t name_len = strlen(name);

        if (len > name_len || memcmp(name, part, len))
            continue;
        if (len == name_len && c == ';') {
            f->kind = &f->kinds[i];
            return true;
        }
        if (len < name_len && c == (uint8_t)name[len])
            return true;
    }
    return false;
}

static size_t payload_start(const struct osc_filter *f)
{
    return OSC_PREFIX_LEN + strlen(f->kind->name) + 1;
}

/* Does byte c continue the held beginning of a sequence? */
static bool continues(struct osc_filter *f, uint8_t c)
{
    if (f->nheld < OSC_PREFIX_LEN)
        return c == (uint8_t)OSC_PREFIX[f->nheld];
    if (!f->kind)
        return kind_continues(f, c);
    /* No ESC can be in a payload, so only the first held byte is one. */
    return f->nheld - payload_start(f) < f->kind->payload_max &&
           c >= 0x20 && c < 0x7f;
}

/* The held bytes are a whole "KIND;PAYLOAD": does the kind take it? */
static bool take(struct osc_filter *f)
{
    char payload[OSC_PAYLOAD_MAX + 1];
    size_t start = payload_start(f), len = f->nheld - start;

    memcpy(payload, f->held + start, len);
    payload[len] = '\0';
    return f->kind->take(f->arg, payload);
}

size_t osc_filter_flush(struct osc_filter *f, uint8_t *out)
{
    size_t n = f->nheld;

    memcpy(out, f->held, n);
    f->nheld = 0;
    f->kind = NULL;
    return n;
}

/* One byte with something held: hold it, end the sequence, or give the
 * held bytes up. Returns the bytes put into out. */
static size_t step_held(struct osc_filter *f, uint8_t c, uint8_t *out)
{
    size_t n;

    if (continues(f, c)) {
        f->held[f->nheld++] = c;
        return 0;
    }
    if (c == OSC_END && f->kind && take(f)) {
        f->nheld = 0;
        f->kind = NULL;
        return 0;
    }
    /* Not one of ours: no sequence starts inside the held bytes, but c
     * itself may start one. */
    n = osc_filter_flush(f, out);
    if (c == (uint8_t)OSC_PREFIX[0]) {
        f->held[f->nheld++] = c;
        return n;
    }
    out[n] = c;
    return n + 1;
}

size_t osc_filter_feed(struct osc_filter *f, const uint8_t *in, size_t n,
                       uint8_t *out)
{
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        if (f->nheld)
            len += step_held(f, in[i], out + len);
        else if (in[i] == (uint8_t)OSC_PREFIX[0])
            f->held[f->nheld++] = in[i];
        else
            out[len++] = in[i];
    }
    return len;
}

int osc_exit_status(const char *payload)
{
    size_t len = strlen(payload);
    int v = 0;

    if (len == 0 || len > OSC_EXIT_PAYLOAD_MAX)
        return -1;
    for (const char *p = payload; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v <= 255 ? v : -1;
}

static bool name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

bool osc_mark(const char *payload, char name[OSC_MARK_NAME_MAX + 1],
              bool *end)
{
    const char *semi = strchr(payload, ';');
    size_t len = semi ? (size_t)(semi - payload) : 0;

    if (len == 0 || len > OSC_MARK_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!name_byte(payload[i]))
            return false;
    if (!strcmp(semi + 1, "end"))
        *end = true;
    else if (!strcmp(semi + 1, "begin"))
        *end = false;
    else
        return false;   /* also a second ';' */
    memcpy(name, payload, len);
    name[len] = '\0';
    return true;
}

/* "\033]perch-exit;N\007": the status to exit with (the last one wins). */
static bool take_exit(void *arg, const char *payload)
{
    struct osc_guest_said *said = arg;
    int status = osc_exit_status(payload);

    if (status < 0)
        return false;
    said->exit_status = status;
    return true;
}

/* "\033]perch-mark;NAME;begin|end\007": to the listener's callback. */
static bool take_mark(void *arg, const char *payload)
{
    struct osc_guest_said *said = arg;
    char name[OSC_MARK_NAME_MAX + 1];
    bool end;

    if (!osc_mark(payload, name, &end))
        return false;
    if (said->on_mark)
        said->on_mark(said->mark_arg, name, end);
    return true;
}

const struct osc_kind osc_guest_kinds[OSC_GUEST_KINDS] = {
    { "exit", OSC_EXIT_PAYLOAD_MAX, take_exit },
    { "mark", OSC_MARK_PAYLOAD_MAX, take_mark },
};
