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

void gdb_stop_reply(const struct gdb_stop *stop, bool swbreak, struct gdb_reply *r)
{
    say(r, "T%02x%sthread:%02x;", stop->why & 0xff,
        swbreak && stop->why == PERCH_GDB_STOP_BREAKPOINT ? "swbreak:;" : "",
        stop->cpu + 1);
}

/* Register n as hex, or unavailable, x for each digit, when perch has no
 * value of it (the x87 and SSE ones when KVM gave none; every one of a
 * vCPU that is not up). */
static void put_register(const struct gdb_target *t, unsigned n, struct gdb_reply *r)
{
    uint8_t v[GDB_REG_MAX];
    size_t known = gdb_target_get_reg(t, n, v);

    if (known) {
        put_hex(r, v, known);
        return;
    }
    for (size_t i = 0; i < 2 * gdb_target_reg_size(n) && r->len + 1 < sizeof(r->data); i++)
        r->data[r->len++] = 'x';
    r->data[r->len] = 0;
}

static void read_registers(const struct gdb_target *t, struct gdb_reply *r)
{
    r->len = 0;
    for (unsigned n = 0; n < GDB_NR_REGS; n++)
        put_register(t, n, r);
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

static const char *read_register(const struct gdb_target *t, struct cursor *c, struct gdb_reply *r)
{
    uint64_t n;

    if (!take_hex(c, &n) || !at_end(c))
        return "E01";
    if (n >= 256 || !gdb_target_reg_size((unsigned)n))
        return "E00";
    r->len = 0;
    put_register(t, (unsigned)n, r);
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

/* A thread id: -1 (all), 0 (any) or a vCPU's, 1 to nr_vcpus; false for
 * anything else, a thread the guest does not have among them. */
static bool take_thread(const struct gdb_target *t, struct cursor *c, long *id)
{
    uint64_t v;

    if (take_char(c, '-')) {
        *id = -1;
        return take_char(c, '1');
    }
    if (!take_hex(c, &v) || v > t->nr_vcpus)
        return false;
    *id = (long)v;
    return true;
}

/* Hg THREAD: whose registers and page tables the packets that follow
 * use; any is the first vCPU. Hc THREAD: the one a plain s steps; any or
 * all: the Hg one. */
static const char *select_thread(struct gdb_target *t, struct cursor *c)
{
    bool general = take_char(c, 'g');
    long id;

    if ((!general && !take_char(c, 'c')) || !take_thread(t, c, &id) || !at_end(c) ||
        (general && id < 0))
        return "E01";
    if (general)
        t->cpu = id > 0 ? (unsigned)id - 1 : 0;
    else
        t->step_cpu = id > 0 ? (int)id - 1 : -1;
    return "OK";
}

static const char *thread_alive(const struct gdb_target *t, struct cursor *c)
{
    long id;

    return take_thread(t, c, &id) && at_end(c) && id > 0 ? "OK" : "E01";
}

/* plan[i]: what vCPU i was asked (enum gdb_go, -1: nothing) into t->go.
 * While one steps the others stay stopped, so that the step ends where
 * gdb looks (docs/usage.md, "gdb"); a vCPU that is not up has nothing to
 * step. */
static enum gdb_action go(struct gdb_target *t, const int *plan, struct gdb_reply *r)
{
    bool steps = false, any = false;

    for (unsigned i = 0; i < t->nr_vcpus; i++) {
        if (plan[i] == GDB_GO_STEP && !t->vcpu[i].has_regs) {
            say(r, "E01");
            return GDB_REPLY;
        }
        steps |= plan[i] == GDB_GO_STEP;
    }
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++) {
        bool named = i < t->nr_vcpus && plan[i] >= 0;

        t->go[i] = !named || (steps && plan[i] == GDB_GO_CONTINUE) ? GDB_GO_STAY
                                                                    : (uint8_t)plan[i];
        any |= t->go[i] != GDB_GO_STAY;
    }
    if (any)
        return GDB_RESUME;
    say(r, "E01");
    return GDB_REPLY;
}

/* c [ADDR] / s [ADDR]: every vCPU goes on, or the Hc one (else the Hg
 * one) steps; at ADDR, the Hg one's rip, if given. */
static enum gdb_action resume(struct gdb_target *t, struct cursor *c,
                              enum gdb_go how, struct gdb_reply *r)
{
    unsigned stepper = t->step_cpu >= 0 ? (unsigned)t->step_cpu : t->cpu;
    int plan[PERCH_MAX_VCPUS];
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
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++)
        plan[i] = how == GDB_GO_CONTINUE ? GDB_GO_CONTINUE : i == stepper ? GDB_GO_STEP : -1;
    return go(t, plan, r);
}

/* One ;ACTION[:THREAD] of vCont: the vCPUs it names that no earlier
 * action named take it. C and S carry a signal, which a guest kernel
 * cannot take: ignored, as QEMU does. */
static bool take_action(const struct gdb_target *t, struct cursor *c, int *plan)
{
    uint64_t signal;
    long id = -1;
    int how;

    if (!take_char(c, ';') || at_end(c))
        return false;
    switch (*c->p++) {
    case 'c': how = GDB_GO_CONTINUE; break;
    case 's': how = GDB_GO_STEP; break;
    case 'C': how = GDB_GO_CONTINUE; if (!take_hex(c, &signal)) return false; break;
    case 'S': how = GDB_GO_STEP; if (!take_hex(c, &signal)) return false; break;
    default: return false;
    }
    if (take_char(c, ':') && !take_thread(t, c, &id))
        return false;
    for (unsigned i = 0; i < t->nr_vcpus; i++)
        if (plan[i] < 0 && (id <= 0 || (unsigned)id == i + 1))
            plan[i] = how;
    return true;
}

/* vCont;ACTION[:THREAD][;ACTION[:THREAD]]...: a vCPU no action names
 * stays stopped. */
static enum gdb_action vcont(struct gdb_target *t, struct cursor *c, struct gdb_reply *r)
{
    int plan[PERCH_MAX_VCPUS];

    if (take_char(c, '?')) {
        say(r, "vCont;c;C;s;S");
        return GDB_REPLY;
    }
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++)
        plan[i] = -1;
    do {
        if (!take_action(t, c, plan)) {
            say(r, "E01");
            return GDB_REPLY;
        }
    } while (!at_end(c));
    return go(t, plan, r);
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

/* qfThreadInfo: every vCPU, all in one reply (qsThreadInfo ends it). */
static void list_threads(const struct gdb_target *t, struct gdb_reply *r)
{
    say(r, "m");
    for (unsigned i = 0; i < t->nr_vcpus && r->len + 4 < sizeof(r->data); i++)
        r->len += (size_t)snprintf(r->data + r->len, sizeof(r->data) - r->len,
                                   "%s%x", i ? "," : "", i + 1);
}

/* qThreadExtraInfo,THREAD: what gdb's `info threads` shows beside it, the
 * vCPU's number as the guest has it (Linux's CPU number), hex-encoded. */
static void describe_thread(const struct gdb_target *t, const char *pkt, size_t len,
                            struct gdb_reply *r)
{
    struct cursor c = { pkt + strlen("qThreadExtraInfo,"), pkt + len };
    char text[48];
    long id;

    if (!take_thread(t, &c, &id) || !at_end(&c) || id <= 0) {
        say(r, "E01");
        return;
    }
    snprintf(text, sizeof(text), "vCPU %u%s", (unsigned)id - 1,
             t->vcpu[id - 1].has_regs ? "" : ", not up");
    r->len = 0;
    put_hex(r, (const uint8_t *)text, strlen(text));
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
        say(r, "QC%x", t->cpu + 1);
    else if (is(pkt, len, "qfThreadInfo"))
        list_threads(t, r);
    else if (is(pkt, len, "qThreadExtraInfo,"))
        describe_thread(t, pkt, len, r);
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

enum gdb_action gdb_command(struct gdb_target *t, const struct gdb_stop *stop,
                            const char *pkt, size_t len, struct gdb_reply *r)
{
    struct cursor c = { pkt + (len ? 1 : 0), pkt + len };
    const char *word;

    r->len = 0;
    r->data[0] = 0;
    if (!len)
        return GDB_REPLY;
    switch (pkt[0]) {
    case '?': gdb_stop_reply(stop, t->swbreak, r); break;
    case 'g': read_registers(t, r); break;
    case 'G': case 'p': case 'P': case 'm': case 'M': case 'Z': case 'z':
        word = worded(t, pkt[0], &c, r);
        if (word)
            say(r, "%s", word);
        break;
    case 'c': return resume(t, &c, GDB_GO_CONTINUE, r);
    case 's': return resume(t, &c, GDB_GO_STEP, r);
    case 'C': case 'S':   /* with a signal: ignored, and its address too */
        c.p = c.end;
        return resume(t, &c, pkt[0] == 'C' ? GDB_GO_CONTINUE : GDB_GO_STEP, r);
    case 'H': say(r, "%s", select_thread(t, &c)); break;
    case 'T': say(r, "%s", thread_alive(t, &c)); break;   /* is the thread alive */
    case 'D': say(r, "OK"); return GDB_DETACH;
    case 'k': return GDB_KILL;
    case 'q': case 'Q': return query(t, pkt, len, r);
    case 'v':
        if (is(pkt, len, "vCont")) {
            c.p = pkt + 5;
            return vcont(t, &c, r);
        }
        break;
    }
    return GDB_REPLY;
}
