/* Conversations through a link, the guest played by hand-made frames. See net_session.h. */
#include "net_session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WAIT_MS 3000

static int failed(char why[128], const char *what)
{
    snprintf(why, 128, "%s", what);
    return -1;
}

/* A socket of type on 127.0.0.1 (port 0: any), non-blocking; its port. */
static int loopback_socket(int type, uint16_t *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int s = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
        getsockname(s, (struct sockaddr *)&a, &len) ||
        (type == SOCK_STREAM && listen(s, 1))) {
        if (s >= 0)
            close(s);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return s;
}

/* Rounds of the link until fd is ready for events, or WAIT_MS. */
static bool link_until_ready(struct net_link *link, int fd, short events)
{
    for (int ms = 0; ms < WAIT_MS; ms += 10) {
        struct pollfd p = { .fd = fd, .events = events };

        if (poll(&p, 1, 0) == 1)
            return true;
        frames_round(link, 10);
    }
    return false;
}

/* What the next frame of interest must be: TCP to the guest with these
 * flags set (and, if want_data, a payload). */
static struct {
    uint16_t guest_port;
    uint8_t flags;
    bool data;
} want;

static bool is_wanted(const uint8_t *f, size_t len)
{
    struct frames_tcp_seg t;

    return frames_tcp_read(f, len, &t) && t.dst_port == want.guest_port &&
           (t.flags & want.flags) == want.flags && (!want.data || t.len);
}

static bool wait_segment(struct net_link *link, struct frames *got, uint8_t flags,
                         bool data, struct frames_tcp_seg *seg)
{
    int i;

    want.flags = flags;
    want.data = data;
    i = frames_wait(link, got, is_wanted, WAIT_MS);
    return i >= 0 && frames_tcp_read(got->bytes[i], got->len[i], seg);
}

static void send_segment(struct net_link *link, const struct frames_tcp_seg *seg)
{
    uint8_t frame[256];

    net_link_send(link, frame, frames_tcp_build(frame, seg));
}

/* slirp learns the guest's MAC from its ARP request. */
static void introduce_guest(struct net_link *link)
{
    uint8_t frame[64];

    net_link_send(link, frame, frames_arp_request(frame, "10.0.2.2"));
    frames_round(link, 10);
}

static int talk_out(struct net_link *link, struct frames *got, int listener,
                    uint16_t port, char why[128])
{
    struct frames_tcp_seg me = { .dst_ip = "10.0.2.2", .src_port = 40000,
                                 .dst_port = port, .seq = 1000, .flags = FRAMES_SYN },
                          them;
    char buf[16];
    int peer;

    want.guest_port = me.src_port;
    send_segment(link, &me);
    if (!wait_segment(link, got, FRAMES_SYN | FRAMES_ACK, false, &them) ||
        them.ack != 1001)
        return failed(why, "no SYN+ACK for the guest's SYN");
    if (!link_until_ready(link, listener, POLLIN) || (peer = accept(listener, NULL, NULL)) < 0)
        return failed(why, "the host's listener saw no connection");
    me = (struct frames_tcp_seg){ .dst_ip = "10.0.2.2", .src_port = 40000, .dst_port = port,
                                  .seq = 1001, .ack = them.seq + 1,
                                  .flags = FRAMES_ACK | FRAMES_PSH,
                                  .payload = (const uint8_t *)"hello", .len = 5 };
    send_segment(link, &me);
    if (!link_until_ready(link, peer, POLLIN) || read(peer, buf, sizeof(buf)) != 5 ||
        memcmp(buf, "hello", 5) || write(peer, "world", 5) != 5) {
        close(peer);
        return failed(why, "the guest's data did not reach the host");
    }
    if (!wait_segment(link, got, FRAMES_ACK, true, &them) || them.len != 5 ||
        memcmp(them.payload, "world", 5)) {
        close(peer);
        return failed(why, "the host's data did not reach the guest");
    }
    me.seq += 5;
    me.ack = them.seq + 5;
    me.flags = FRAMES_FIN | FRAMES_ACK;
    me.len = 0;
    send_segment(link, &me);
    /* The guest's FIN: the host reads the end of the stream. */
    if (!link_until_ready(link, peer, POLLIN) || read(peer, buf, sizeof(buf)) != 0) {
        close(peer);
        return failed(why, "the guest's FIN did not reach the host");
    }
    close(peer);
    return 0;
}

int session_host_open(struct session_host *h)
{
    h->listener = loopback_socket(SOCK_STREAM, &h->tcp_port);
    h->udp = loopback_socket(SOCK_DGRAM, &h->udp_port);
    if (h->listener >= 0 && h->udp >= 0)
        return 0;
    session_host_close(h);
    return -1;
}

void session_host_close(struct session_host *h)
{
    if (h->listener >= 0)
        close(h->listener);
    if (h->udp >= 0)
        close(h->udp);
    h->listener = h->udp = -1;
}

int session_guest_connects_out(struct net_link *link, struct frames *got,
                               const struct session_host *h, char why[128])
{
    introduce_guest(link);
    return talk_out(link, got, h->listener, h->tcp_port, why);
}

static bool is_udp_answer(const uint8_t *f, size_t len)
{
    const uint8_t *p;
    uint16_t sport, dport;
    size_t n;

    return frames_udp_read(f, len, &sport, &dport, &p, &n) && dport == 40001 &&
           n == 4 && !memcmp(p, "pong", 4);
}

int session_guest_udp(struct net_link *link, struct frames *got,
                      const struct session_host *h, char why[128])
{
    struct sockaddr_in from;
    socklen_t len = sizeof(from);
    uint8_t frame[128];
    char buf[16];
    bool ok;

    introduce_guest(link);
    net_link_send(link, frame, frames_udp(frame, "10.0.2.2", 40001, h->udp_port, "ping", 4));
    ok = link_until_ready(link, h->udp, POLLIN) &&
         recvfrom(h->udp, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len) == 4 &&
         !memcmp(buf, "ping", 4) &&
         sendto(h->udp, "pong", 4, 0, (struct sockaddr *)&from, len) == 4 &&
         frames_wait(link, got, is_udp_answer, WAIT_MS) >= 0;
    return ok ? 0 : failed(why, "the datagram or its answer was lost");
}

static int talk_in(struct net_link *link, struct frames *got, int s, char why[128])
{
    struct frames_tcp_seg them, me;
    char buf[16];

    want.guest_port = 80;
    if (!wait_segment(link, got, FRAMES_SYN, false, &them))
        return failed(why, "no SYN to the guest's port 80");
    me = (struct frames_tcp_seg){ .dst_ip = "10.0.2.2", .src_port = 80,
                                  .dst_port = them.src_port, .seq = 5000,
                                  .ack = them.seq + 1, .flags = FRAMES_SYN | FRAMES_ACK };
    send_segment(link, &me);
    if (!link_until_ready(link, s, POLLOUT) || write(s, "in", 2) != 2)
        return failed(why, "the host's connection did not complete");
    if (!wait_segment(link, got, FRAMES_ACK, true, &them) || them.len != 2 ||
        memcmp(them.payload, "in", 2))
        return failed(why, "the host's data did not reach the guest");
    me.seq = 5001;
    me.ack = them.seq + 2;
    me.flags = FRAMES_ACK | FRAMES_PSH;
    me.payload = (const uint8_t *)"out";
    me.len = 3;
    send_segment(link, &me);
    if (!link_until_ready(link, s, POLLIN) || read(s, buf, sizeof(buf)) != 3 ||
        memcmp(buf, "out", 3))
        return failed(why, "the guest's data did not reach the host");
    return 0;
}

int session_host_connects_in(struct net_link *link, struct frames *got,
                             uint16_t host_port, char why[128])
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(host_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), rc;

    if (s < 0)
        return failed(why, "no socket");
    introduce_guest(link);
    if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0 && errno != EINPROGRESS) {
        close(s);
        return failed(why, "cannot connect to the forwarded port");
    }
    rc = talk_in(link, got, s, why);
    close(s);
    return rc;
}
