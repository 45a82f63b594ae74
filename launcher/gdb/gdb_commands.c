/* The GDB remote protocol's packets against a stopped guest (gdb_commands.h). */
#include "gdb_commands.h"
#include "../../lib/hex.h"
#include "gdb_monitor.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A packet being read: every number in it is checked before use. */
struct cursor {
    const char *p, *end;
};

static void say(struct gdb_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(struct gdb_reply *r, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(r->data, sizeof(r->data), fmt, ap);
    va_end(ap);
    r->len = n < 0 ? 0 : (size_t)n < sizeof(r->data) ? (size_t)n : sizeof(r->data) - 1;
}

/* A hex number of 1 to 16 digits; false (cursor unchanged) if none or
 * too long for 64 bits. */
static bool take_hex(struct cursor *c, uint64_t *v)
{
    const char *p = c->p;
    uint64_t x = 0;
    int d;

    while (p < c->end && (d = hex_digit(*p)) >= 0) {
        if (p - c->p == 16)
            return false;
        x = x << 4 | (uint64_t)d;
        p++;
    }
    if (p == c->p)
        return false;
    c->p = p;
    *v = x;
    return true;
}

static bool take_char(struct cursor *c, char ch)
{
    if (c->p == c->end || *c->p != ch)
        return false;
    c->p++;
    return true;
}

static bool at_end(const struct cursor *c)
{
    return c->p == c->end;
}

/* Hex pairs into bytes: the number of bytes, or -1 for a stray digit. */
static long take_bytes(struct cursor *c, uint8_t *out, size_t max)
{
    size_t n = 0;

    while (c->end - c->p >= 2 && n < max) {
        int hi = hex_digit(c->p[0]), lo = hex_digit(c->p[1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[n++] = (uint8_t)(hi << 4 | lo);
        c->p += 2;
    }
    return at_end(c) ? (long)n : -1;
}

static void put_hex(struct gdb_reply *r, const uint8_t *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n && r->len + 2 < sizeof(r->data); i++) {
        r->data[r->len++] = digits[bytes[i] >> 4];
        r->data[r->len++] = digits[bytes[i] & 15];
    }
    r->data[r->len] = 0;
}

void gdb_stop_reply(uint32_t why, bool swbreak, struct gdb_reply *r)
{
    say(r, "T%02x%sthread:01;", why & 0xff,
        swbreak && why == PERCH_GDB_STOP_BREAKPOINT ? "swbreak:;" : "");
}

static void read_registers(const struct gdb_target *t, struct gdb_reply *r)
{
    uint8_t v[GDB_REG_MAX];

    r->len = 0;
    for (unsigned n = 0; n < GDB_NR_REGS; n++)
        put_hex(r, v, gdb_target_get_reg(t, n, v));
}

/* G: as many whole registers as the packet holds, in g's order. */
static const char *write_registers(struct gdb_target *t, struct cursor *c)
{
    uint8_t bytes[GDB_PACKET_MAX / 2];
    long n = take_bytes(c, bytes, sizeof(bytes));
    size_t at = 0;

    if (n < 0)
        return "E01";
    for (unsigned reg = 0; reg < GDB_NR_REGS; reg++) {
        size_t size = reg < 17 ? 8 : 4;

        if (at + size > (size_t)n)
            break;
        gdb_target_set_reg(t, reg, bytes + at, size);
        at += size;
    }
    return "OK";
}

/* "ADDR,LEN", the start of m, M, Z and z. */
static bool take_range(struct cursor *c, uint64_t *addr, uint64_t *len)
{
    return take_hex(c, addr) && take_char(c, ',') && take_hex(c, len);
}

/* p: a register perch has no value of (the x87 and SSE ones, when KVM
 * gave none) reads as unavailable, x for each digit. */
static const char *read_register(const struct gdb_target *t, struct cursor *c, struct gdb_reply *r)
{
    uint64_t n;
    uint8_t v[GDB_REG_MAX];
    size_t size, known;

    if (!take_hex(c, &n) || !at_end(c))
        return "E01";
    size = n < 256 ? gdb_target_reg_size((unsigned)n) : 0;
    if (!size)
        return "E00";
    known = gdb_target_get_reg(t, (unsigned)n, v);
    r->len = 0;
    if (known) {
        put_hex(r, v, known);
        return NULL;
    }
    memset(r->data, 'x', 2 * size);
    r->len = 2 * size;
    r->data[r->len] = 0;
    return NULL;
}

/* qXfer:features:read:target.xml:OFFSET,LENGTH: the part asked for, 'm'
 * when more follows, 'l' for the last. The XML has no byte the binary
 * reply would have to escape ($, #, }, *). */
static const char *read_features(const char *pkt, size_t len, struct gdb_reply *r)
{
    static const char prefix[] = "qXfer:features:read:target.xml:";
    struct cursor c = { pkt + sizeof(prefix) - 1, pkt + len };
    size_t total = strlen(gdb_target_xml), n;
    uint64_t off, want;

    if (len < sizeof(prefix) - 1 || memcmp(pkt, prefix, sizeof(prefix) - 1))
        return "E00";
    if (!take_range(&c, &off, &want) || !at_end(&c))
        return "E01";
    if (off > total)
        return "E01";
    n = total - (size_t)off;
    if (want < n)
        n = (size_t)want;
    if (n > GDB_PACKET_MAX - 1)
        n = GDB_PACKET_MAX - 1;
    r->data[0] = off + n < total ? 'm' : 'l';
    memcpy(r->data + 1, gdb_target_xml + off, n);
    r->len = n + 1;
    r->data[r->len] = 0;
    return NULL;
}

static const char *write_register(struct gdb_target *t, struct cursor *c)
{
    uint64_t n;
    uint8_t v[8];
    long size;

    if (!take_hex(c, &n) || !take_char(c, '='))
        return "E01";
    size = take_bytes(c, v, sizeof(v));
    if (size < 0 || n >= GDB_NR_REGS ||
        gdb_target_set_reg(t, (unsigned)n, v, (size_t)size))
        return "E00";
    return "OK";
}


/* m: what can be read from addr on, up to what a reply holds; E14 (EFAULT)
 * when not even the first byte is the guest's. */
static const char *read_memory(const struct gdb_target *t, struct cursor *c, struct gdb_reply *r)
{
    uint8_t bytes[GDB_PACKET_MAX / 2];
    uint64_t addr, len;
    size_t got;

    if (!take_range(c, &addr, &len) || !at_end(c))
        return "E01";
    if (len > sizeof(bytes))
        len = sizeof(bytes);
    got = gdb_target_read(t, addr, bytes, (size_t)len);
    if (!got && len)
        return "E14";
    r->len = 0;
    put_hex(r, bytes, got);
    return NULL;
}

static const char *write_memory(struct gdb_target *t, struct cursor *c)
{
    uint8_t bytes[GDB_PACKET_MAX / 2];
    uint64_t addr, len;
    long n;

    if (!take_range(c, &addr, &len) || !take_char(c, ':'))
        return "E01";
    n = take_bytes(c, bytes, sizeof(bytes));
    if (n < 0 || (uint64_t)n != len)
        return "E01";
    if (gdb_target_write(t, addr, bytes, (size_t)n) != (size_t)n)
        return "E14";
    return "OK";
}

/* Z0/z0: software breakpoints; the other kinds (hardware, watchpoints)
 * get the empty reply: not offered. */
static const char *breakpoint(struct gdb_target *t, bool insert, struct cursor *c)
{
    uint64_t addr, kind;

    if (!take_char(c, '0'))
        return "";
    if (!take_char(c, ',') || !take_range(c, &addr, &kind))
        return "E01";
    if (insert ? gdb_target_insert(t, addr) : gdb_target_remove(t, addr))
        return "E14";
    return "OK";
}

/* c [ADDR] / s [ADDR]: resume, at ADDR if given. */
static enum gdb_action resume(struct gdb_target *t, struct cursor *c,
                              enum gdb_action how, struct gdb_reply *r)
{
    uint64_t addr;
    uint8_t bytes[8];

    if (!at_end(c)) {
        if (!take_hex(c, &addr) || !at_end(c)) {
            say(r, "E01");
            return GDB_REPLY;
        }
        for (int i = 0; i < 8; i++)
            bytes[i] = (uint8_t)(addr >> (8 * i));
        gdb_target_set_reg(t, 16, bytes, 8);
    }
    return how;
}

/* vCont;ACTION[:THREAD][;ACTION...]: one thread, so the first action is
 * the one for it; C and S carry a signal, which a guest kernel cannot
 * take: ignored, as QEMU does. */
static enum gdb_action vcont(struct cursor *c, struct gdb_reply *r)
{
    if (take_char(c, '?')) {
        say(r, "vCont;c;C;s;S");
        return GDB_REPLY;
    }
    if (take_char(c, ';') && c->p < c->end) {
        switch (*c->p) {
        case 'c': case 'C': return GDB_CONTINUE;
        case 's': case 'S': return GDB_STEP;
        }
    }
    say(r, "E01");
    return GDB_REPLY;
}

static bool is(const char *pkt, size_t len, const char *word)
{
    size_t n = strlen(word);

    return len >= n && !memcmp(pkt, word, n);
}

/* qRcmd,HEX: a `monitor` command, its output hex-encoded as the reply
 * (gdb prints it). A command longer than any perch knows is refused. */
static const char *monitor(const struct gdb_target *t, const char *pkt, size_t len,
                           struct gdb_reply *r)
{
    struct cursor c = { pkt + 6, pkt + len };
    char cmd[KERNEL_SYMBOL_NAME_MAX + 32], out[GDB_PACKET_MAX / 2];
    long n = take_bytes(&c, (uint8_t *)cmd, sizeof(cmd) - 1);

    if (n < 0 || !at_end(&c))
        return "E01";
    cmd[n] = '\0';
    if (strlen(cmd) != (size_t)n)
        return "E01";   /* a NUL inside */
    gdb_monitor(t, cmd, out, sizeof(out));
    r->len = 0;
    put_hex(r, (const uint8_t *)out, strlen(out));
    return NULL;
}

/* Does the client's qSupported offer `feature` ("swbreak+")? */
static bool offers(const char *pkt, size_t len, const char *feature)
{
    size_t n = strlen(feature);

    for (size_t i = 1; i + n <= len; i++)
        if ((pkt[i - 1] == ':' || pkt[i - 1] == ';') &&
            !memcmp(pkt + i, feature, n) && (i + n == len || pkt[i + n] == ';'))
            return true;
    return false;
}

/* The q and Q packets perch answers; the empty reply for the rest. */
static enum gdb_action query(struct gdb_target *t, const char *pkt, size_t len,
                             struct gdb_reply *r)
{
    r->len = 0;
    r->data[0] = 0;
    if (is(pkt, len, "qSupported")) {
        t->swbreak = offers(pkt, len, "swbreak+");
        say(r, "PacketSize=%x;QStartNoAckMode+;vContSupported+;"
               "qXfer:features:read+%s", GDB_PACKET_MAX,
            t->swbreak ? ";swbreak+" : "");
    }
    else if (is(pkt, len, "qXfer:features:read:") || is(pkt, len, "qRcmd,")) {
        const char *error = pkt[1] == 'X' ? read_features(pkt, len, r)
                                          : monitor(t, pkt, len, r);

        if (error)
            say(r, "%s", error);
    }
    else if (is(pkt, len, "QStartNoAckMode")) {
        say(r, "OK");
        return GDB_NO_ACK;
    } else if (is(pkt, len, "qAttached"))
        say(r, "1");   /* attached to a running guest: detach, not kill, at quit */
    else if (len == 2 && is(pkt, len, "qC"))
        say(r, "QC1");
    else if (is(pkt, len, "qfThreadInfo"))
        say(r, "m1");
    else if (is(pkt, len, "qsThreadInfo"))
        say(r, "l");
    else if (is(pkt, len, "qSymbol"))
        say(r, "OK");
    return GDB_REPLY;
}

/* The packets whose reply is a word (OK, an error, empty), or that fill
 * the reply themselves (NULL). */
static const char *worded(struct gdb_target *t, char kind, struct cursor *c,
                          struct gdb_reply *r)
{
    switch (kind) {
    case 'G': return write_registers(t, c);
    case 'p': return read_register(t, c, r);
    case 'P': return write_register(t, c);
    case 'm': return read_memory(t, c, r);
    case 'M': return write_memory(t, c);
    case 'Z': return breakpoint(t, true, c);
    default:  return breakpoint(t, false, c);
    }
}

enum gdb_action gdb_command(struct gdb_target *t, uint32_t why, const char *pkt,
                            size_t len, struct gdb_reply *r)
{
    struct cursor c = { pkt + (len ? 1 : 0), pkt + len };
    const char *word;

    r->len = 0;
    r->data[0] = 0;
    if (!len)
        return GDB_REPLY;
    switch (pkt[0]) {
    case '?': gdb_stop_reply(why, t->swbreak, r); break;
    case 'g': read_registers(t, r); break;
    case 'G': case 'p': case 'P': case 'm': case 'M': case 'Z': case 'z':
        word = worded(t, pkt[0], &c, r);
        if (word)
            say(r, "%s", word);
        break;
    case 'c': return resume(t, &c, GDB_CONTINUE, r);
    case 's': return resume(t, &c, GDB_STEP, r);
    case 'C': return GDB_CONTINUE;   /* with a signal: ignored */
    case 'S': return GDB_STEP;
    case 'H': say(r, "OK"); break;   /* one thread: Hg, Hc all name it */
    case 'T': say(r, "OK"); break;   /* is the thread alive: it is */
    case 'D': say(r, "OK"); return GDB_DETACH;
    case 'k': return GDB_KILL;
    case 'q': case 'Q': return query(t, pkt, len, r);
    case 'v':
        if (is(pkt, len, "vCont")) {
            c.p = pkt + 5;
            return vcont(&c, r);
        }
        break;
    }
    return GDB_REPLY;
}
