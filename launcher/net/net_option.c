/*
 * --net's value, word by word. QEMU's spelling, so a QEMU user's
 * `-netdev user,hostfwd=tcp::2222-:22` carries over as
 * `--net user,hostfwd=tcp::2222-:22`; but a forward listens on 127.0.0.1
 * only, so any other host address is refused rather than quietly
 * narrowed. Every mistake is one line quoting the whole value.
 */
#include "net_option.h"

#include <stdbool.h>
#include <string.h>

#define USAGE "user[,hostfwd=tcp::HOSTPORT-:GUESTPORT]... or tap=NAME"
#define FWD_USAGE "[tcp|udp]:[127.0.0.1]:HOSTPORT-[10.0.2.15]:GUESTPORT"

/* A piece of the value: not NUL-ended, so never printed with %s alone. */
struct word {
    const char *s;
    size_t n;
};

static bool is(struct word w, const char *text)
{
    return w.n == strlen(text) && !memcmp(w.s, text, w.n);
}

/* Split w at the first sep: *head before it, w after (false: no sep). */
static bool split(struct word *w, char sep, struct word *head)
{
    const char *at = memchr(w->s, sep, w->n);

    if (!at)
        return false;
    *head = (struct word){ w->s, (size_t)(at - w->s) };
    w->n -= head->n + 1;
    w->s = at + 1;
    return true;
}

/* 1 to 65535 in decimal, nothing else. */
static bool port(struct word w, uint16_t *out)
{
    unsigned v = 0;

    if (!w.n || w.n > 5)
        return false;
    for (size_t i = 0; i < w.n; i++) {
        if (w.s[i] < '0' || w.s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(w.s[i] - '0');
    }
    if (v == 0 || v > 65535)
        return false;
    *out = (uint16_t)v;
    return true;
}

/* One hostfwd=...: the protocol, the host side, then the guest side. */
static int parse_hostfwd(const char *value, struct word w, struct net_hostfwd *f,
                         struct error *e)
{
    struct word whole = w, proto, host_addr, host_port, guest_addr;

    if (!split(&w, ':', &proto) || !split(&w, ':', &host_addr) ||
        !split(&w, '-', &host_port) || !split(&w, ':', &guest_addr))
        return fail(e, "--net '%s': hostfwd '%.*s' is not " FWD_USAGE, value,
                    (int)whole.n, whole.s);
    if (!proto.n || is(proto, "tcp"))
        f->udp = false;
    else if (is(proto, "udp"))
        f->udp = true;
    else
        return fail(e, "--net '%s': hostfwd protocol '%.*s' is neither tcp nor udp",
                    value, (int)proto.n, proto.s);
    if (host_addr.n && !is(host_addr, "127.0.0.1"))
        return fail(e, "--net '%s': hostfwd host address '%.*s' refused: forwarded "
                       "ports listen on 127.0.0.1 only", value,
                    (int)host_addr.n, host_addr.s);
    if (guest_addr.n && !is(guest_addr, "10.0.2.15"))
        return fail(e, "--net '%s': hostfwd guest address '%.*s' refused: the guest "
                       "is 10.0.2.15", value, (int)guest_addr.n, guest_addr.s);
    if (!port(host_port, &f->host_port))
        return fail(e, "--net '%s': host port '%.*s' is not a number from 1 to 65535",
                    value, (int)host_port.n, host_port.s);
    if (!port(w, &f->guest_port))
        return fail(e, "--net '%s': guest port '%.*s' is not a number from 1 to 65535",
                    value, (int)w.n, w.s);
    return 0;
}

/* A host port can be forwarded once per protocol: the second bind fails. */
static int check_repeat(const char *value, const struct net_option *o,
                        struct error *e)
{
    const struct net_hostfwd *last = &o->fwd[o->nr_fwd - 1];

    for (const struct net_hostfwd *f = o->fwd; f < last; f++)
        if (f->host_port == last->host_port && f->udp == last->udp)
            return fail(e, "--net '%s': host port %u is forwarded twice", value,
                        last->host_port);
    return 0;
}

/* user, then its options (opts: what follows "user,"; NULL: none), each
 * a hostfwd= between commas. */
static int parse_user(const char *value, const char *opts, struct net_option *o,
                      struct error *e)
{
    struct word rest = { opts, opts ? strlen(opts) : 0 };
    bool more = opts != NULL;

    o->kind = NET_USER;
    while (more) {
        struct word opt;

        more = split(&rest, ',', &opt);
        if (!more)
            opt = rest;
        if (opt.n < 8 || memcmp(opt.s, "hostfwd=", 8))
            return fail(e, "--net '%s': unknown user option '%.*s' (only hostfwd="
                           FWD_USAGE ")", value, (int)opt.n, opt.s);
        if (o->nr_fwd == NET_MAX_HOSTFWD)
            return fail(e, "--net '%s': at most %d hostfwd", value, NET_MAX_HOSTFWD);
        opt.s += 8, opt.n -= 8;
        if (parse_hostfwd(value, opt, &o->fwd[o->nr_fwd++], e) ||
            check_repeat(value, o, e))
            return -1;
    }
    return 0;
}

/* Not '/', ':' or white space, as Linux (dev_valid_name), nor a comma (an
 * option, in QEMU's spelling), nor anything but printable ASCII. */
static bool name_char(char c)
{
    return c > ' ' && c < 0x7f && !strchr("/:,", c);
}

/* An interface name as Linux takes one: 1 to 15 bytes, not . or .. */
static int parse_tap(const char *value, const char *name, struct net_option *o,
                     struct error *e)
{
    size_t n = strlen(name);
    bool valid = strcmp(name, ".") && strcmp(name, "..");

    if (!n)
        return fail(e, "--net '%s': tap= needs an interface name", value);
    if (n >= sizeof(o->tap))
        return fail(e, "--net '%s': interface name is longer than %zu bytes", value,
                    sizeof(o->tap) - 1);
    for (size_t i = 0; i < n; i++)
        valid = valid && name_char(name[i]);
    if (!valid)
        return fail(e, "--net '%s': '%s' cannot be an interface name", value, name);
    o->kind = NET_TAP;
    memcpy(o->tap, name, n + 1);
    return 0;
}

int net_option_parse(const char *value, struct net_option *o, struct error *e)
{
    size_t kind = strcspn(value, ",=");

    memset(o, 0, sizeof(*o));
    if (!strcmp(value, "user"))
        return parse_user(value, NULL, o, e);
    if (!strncmp(value, "user,", 5))
        return parse_user(value, value + 5, o, e);
    if (!strncmp(value, "tap=", 4))
        return parse_tap(value, value + 4, o, e);
    if (!value[0])
        return fail(e, "--net needs a value: " USAGE);
    if (!strcmp(value, "tap"))
        return fail(e, "--net 'tap' needs a name: tap=NAME");
    return fail(e, "--net '%s': unknown network '%.*s' (" USAGE ")", value,
                (int)kind, value);
}
