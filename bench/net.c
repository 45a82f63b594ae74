/*
 * perchbench's net group: TCP between this perchbench, which listens on
 * --net-listen ADDR:PORT (in a guest, the port perch or QEMU forwards to;
 * natively 127.0.0.1), and a peer, `perchbench netpeer ADDR:PORT`, which
 * `perch bench` starts on the host and which connects to it (through the
 * forwarded port, or natively over loopback):
 *
 *   nettx   256 MiB from here to the peer in 64 KiB writes, timed until
 *           the peer says it has them all
 *   netrx   256 MiB from the peer, timed from asking to the last byte
 *   netrr   1-byte request, 1-byte answer: 20000 round trips a pass, or
 *           2 s, whichever ends first
 *
 * Passes are samples as in the disk group (3; 1 with --quick, which also
 * moves 16 MiB and 1000 round trips). The result line gives MB/s or
 * trips/s; ops counts 64 KiB chunks or round trips.
 *
 * The wire: the peer waits for HELLO (a forwarder may take a connection
 * before the guest listens, then drop it: the peer connects again), then
 * obeys lines: "T N" (read N bytes, answer 'k'), "R N" (send N bytes),
 * "E" (echo each byte until it has echoed a 'q'). End of file ends it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "groups.h"

#define MIB              (1024L * 1024)
#define NET_BYTES        (256 * MIB)
#define QUICK_NET_BYTES  (16 * MIB)
#define CHUNK            (64 * 1024L)
#define RR_TRIPS         20000
#define QUICK_RR_TRIPS   1000
#define RR_PASS_NS       2000000000ull
#define CLOCK_EVERY      64
#define ACCEPT_MS        180000     /* for the peer to come */
#define PEER_TRY_MS      100
#define PEER_GIVE_UP_MS  1800000    /* perch bench ends a peer it no longer needs */
#define HELLO            "perchbench-net\n"
#define COMMAND_MAX      32

static int listener = -1, conn = -1;

static long net_bytes(void)
{
    return opt.quick ? QUICK_NET_BYTES : NET_BYTES;
}

/* "A.B.C.D:PORT" into addr; false if it is not one. */
static bool parse_addr(const char *text, struct sockaddr_in *addr)
{
    char host[INET_ADDRSTRLEN], *end;
    const char *colon = strrchr(text, ':');
    long port;

    if (!colon || colon == text || colon - text >= (long)sizeof(host))
        return false;
    memcpy(host, text, colon - text);
    host[colon - text] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    memset(addr, 0, sizeof(*addr));
    addr->sin_family = AF_INET;
    addr->sin_port = htons((uint16_t)port);
    return !errno && *end == '\0' && end != colon + 1 && port > 0 &&
           port < 65536 && inet_pton(AF_INET, host, &addr->sin_addr) == 1;
}

static void no_delay(int fd)
{
    int one = 1;

    /* Round trips of one byte must not wait for Nagle's algorithm. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
        die("TCP_NODELAY: %s", strerror(errno));
}

bool net_addr_ok(const char *text)
{
    struct sockaddr_in a;

    return parse_addr(text, &a);
}

void net_listen(const char *where)
{
    struct sockaddr_in addr;
    int one = 1;

    if (!parse_addr(where, &addr))
        die("--net-listen %s is not A.B.C.D:PORT", where);
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0)
        die("socket: %s", strerror(errno));
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
        listen(listener, 1) < 0)
        die("cannot listen on %s: %s", where, strerror(errno));
}

/* The peer's connection, once: the first net benchmark waits for it. */
static void net_connection(void)
{
    struct pollfd p = { .fd = listener, .events = POLLIN };
    int n;

    if (conn >= 0)
        return;
    while ((n = poll(&p, 1, ACCEPT_MS)) < 0 && errno == EINTR)
        ;
    if (n == 0)
        die("no peer connected to --net-listen %s in %d s", opt.net_listen,
            ACCEPT_MS / 1000);
    conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0)
        die("accept: %s", strerror(errno));
    no_delay(conn);
    write_all(conn, HELLO, strlen(HELLO));
}

/* "T N", "R N", "E": what the peer is to do next. */
static void command(char what, long n)
{
    char line[COMMAND_MAX];

    write_all(conn, line, n ? snprintf(line, sizeof(line), "%c %ld\n", what, n)
                            : snprintf(line, sizeof(line), "%c\n", what));
}

static void read_exactly(int fd, char *buf, long bytes)
{
    if (!read_all(fd, buf, bytes))
        die("the peer closed the connection");
}

/* bytes in CHUNK pieces, one way or the other. */
static void stream(int fd, bool send, char *buf, long bytes)
{
    for (long done = 0; done < bytes; done += CHUNK) {
        long n = bytes - done < CHUNK ? bytes - done : CHUNK;

        if (send)
            write_all(fd, buf, n);
        else
            read_exactly(fd, buf, n);
    }
}

static uint64_t tx_pass(char *buf)
{
    uint64_t t0 = now_ns();
    char ack;

    command('T', net_bytes());
    stream(conn, true, buf, net_bytes());
    read_exactly(conn, &ack, 1);
    return now_ns() - t0;
}

static uint64_t rx_pass(char *buf)
{
    uint64_t t0 = now_ns();

    command('R', net_bytes());
    stream(conn, false, buf, net_bytes());
    return now_ns() - t0;
}

/* Round trips until the pass's count or its time is up; then 'q', whose
 * echo ends the peer's echoing. */
static uint64_t rr_pass(long *trips)
{
    long most = opt.quick ? QUICK_RR_TRIPS : RR_TRIPS, n = 0;
    uint64_t t0, t;
    char c = 'x';

    command('E', 0);
    t0 = now_ns();
    while (n < most) {
        write_all(conn, &c, 1);
        read_exactly(conn, &c, 1);
        if (++n % CLOCK_EVERY == 0 && now_ns() - t0 >= RR_PASS_NS)
            break;
    }
    t = now_ns() - t0;
    c = 'q';
    write_all(conn, &c, 1);
    read_exactly(conn, &c, 1);
    *trips = n;
    return t;
}

static void net_stream(const struct bench *b, struct result *res)
{
    bool tx = !strcmp(b->name, "nettx");
    char *buf = malloc(CHUNK);
    long chunks = (net_bytes() + CHUNK - 1) / CHUNK;
    int n = opt.work_samples;
    double rate[MAX_SAMPLES];

    if (!buf)
        die("out of memory");
    memset(buf, 0x5a, CHUNK);
    current = b->name;
    net_connection();
    mark(b->name, "begin");
    for (int s = 0; s < n; s++)
        rate[s] = (double)net_bytes() * 1e3 /
                  (double)(tx ? tx_pass(buf) : rx_pass(buf));
    mark(b->name, "end");
    free(buf);
    current = NULL;
    report_result(b, rate, n, chunks, chunks * n, res);
}

static void net_round_trips(const struct bench *b, struct result *res)
{
    int n = opt.work_samples;
    long trips, ops = 0;
    double rate[MAX_SAMPLES];

    current = b->name;
    net_connection();
    mark(b->name, "begin");
    for (int s = 0; s < n; s++) {
        uint64_t ns = rr_pass(&trips);

        rate[s] = (double)trips * 1e9 / (double)(ns ? ns : 1);
        ops += trips;
    }
    mark(b->name, "end");
    current = NULL;
    report_result(b, rate, n, opt.quick ? QUICK_RR_TRIPS : RR_TRIPS, ops, res);
}

/* ---- the peer ------------------------------------------------------------ */

/* A connection that has said HELLO, or -1 to try again. */
static int peer_try(const struct sockaddr_in *addr)
{
    char hello[sizeof(HELLO) - 1];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        die("socket: %s", strerror(errno));
    if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0) {
        size_t got = 0;
        ssize_t n;

        while (got < sizeof(hello) &&
               ((n = read(fd, hello + got, sizeof(hello) - got)) > 0 ||
                (n < 0 && errno == EINTR)))
            got += n > 0 ? n : 0;
        if (got == sizeof(hello) && !memcmp(hello, HELLO, sizeof(hello))) {
            no_delay(fd);
            return fd;
        }
    }
    close(fd);
    return -1;
}

/* One command line, or false at end of file. */
static bool read_command(int fd, char *line)
{
    int len = 0;

    for (;;) {
        char c;

        if (!read_all(fd, &c, 1))
            return false;
        if (c == '\n')
            break;
        if (len == COMMAND_MAX - 1)
            die("a command line too long from the benchmark");
        line[len++] = c;
    }
    line[len] = '\0';
    return true;
}

/* The benchmark may be a guest's: what it asks is bounded by what a
 * benchmark of the group moves. */
static void peer_serve(int fd)
{
    char line[COMMAND_MAX], *buf = malloc(CHUNK), c;
    long n;

    if (!buf)
        die("out of memory");
    memset(buf, 0xa5, CHUNK);
    while (read_command(fd, line)) {
        bool sized = sscanf(line + 1, " %ld", &n) == 1 && n > 0 && n <= NET_BYTES;

        if (line[0] == 'T' && sized) {
            stream(fd, false, buf, n);
            write_all(fd, "k", 1);
        } else if (line[0] == 'R' && sized) {
            stream(fd, true, buf, n);
        } else if (!strcmp(line, "E")) {
            do {
                read_exactly(fd, &c, 1);
                write_all(fd, &c, 1);
            } while (c != 'q');
        } else {
            die("an unknown command from the benchmark: '%s'", line);
        }
    }
    free(buf);
}

int net_peer(const char *where)
{
    struct sockaddr_in addr;
    int fd = -1;

    current = "netpeer";
    if (!parse_addr(where, &addr))
        die("%s is not A.B.C.D:PORT", where);
    for (int ms = 0; fd < 0; ms += PEER_TRY_MS) {
        if (ms >= PEER_GIVE_UP_MS)
            die("no benchmark answered at %s in %d s", where, PEER_GIVE_UP_MS / 1000);
        fd = peer_try(&addr);
        if (fd < 0)
            sleep_ms(PEER_TRY_MS);
    }
    peer_serve(fd);
    close(fd);
    return 0;
}

#define NET(name, unit, what, drive) \
    { name, "net", what, unit, NULL, 0, drive, NULL, NULL }

const struct bench net_benches[] = {
    NET("nettx", "MB/s", "TCP of 256 MiB to the peer (guest to host)", net_stream),
    NET("netrx", "MB/s", "TCP of 256 MiB from the peer (host to guest)", net_stream),
    NET("netrr", "trips/s", "TCP round trips of 1 byte each way", net_round_trips),
};
const int net_count = sizeof(net_benches) / sizeof(net_benches[0]);
