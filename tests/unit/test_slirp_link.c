/*
 * Unit tests of --net user's link (launcher/net/slirp_link.c), no KVM needed:
 * frames a guest would send go in through net_link_send(), and what
 * libslirp answers comes out through the deliver callback after
 * net_link_poll_done(), read back with tests/unit/net_frames.c. Sockets
 * only ever on 127.0.0.1, on ports that were free.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "net_frames.h"
#include "net_session.h"

static struct frames got;

/* A session (net_session.h) that failed says why. */
#define CHECK_SESSION(call, why)                                           \
    do {                                                                   \
        if (call) {                                                        \
            printf("FAIL %s: %s at %s:%d\n", check_case_name, why,         \
                   __FILE__, __LINE__);                                    \
            check_case_failed = 1;                                         \
            return;                                                        \
        }                                                                  \
    } while (0)

static int open_link(struct net_link **link, const char *value, struct error *e)
{
    struct net_option o;

    if (net_option_parse(value, &o, e) || net_link_open(link, &o, e))
        return -1;
    got.n = 0;
    net_link_attach(*link, frames_collect, &got);
    return 0;
}

static bool is_arp_reply(const uint8_t *f, size_t len)
{
    char sip[16], tip[16];
    uint8_t mac[6];
    uint16_t op;

    return frames_arp(f, len, &op, sip, mac, tip) && op == 2;
}

/* The gateway answers for itself, with slirp's MAC for 10.0.2.2; the
 * answer waits for poll_done, and poll_fill says not to sleep on it. */
static void arp_for_the_gateway(void)
{
    struct net_link *link;
    struct error e;
    uint8_t frame[64], mac[6];
    struct pollfd fds[NET_LINK_MAX_POLLFDS];
    char sip[16], tip[16];
    uint16_t op;
    int timeout = -1, i;

    CHECK(open_link(&link, "user", &e) == 0);
    net_link_send(link, frame, frames_arp_request(frame, "10.0.2.2"));
    CHECK(got.n == 0);   /* never inside net_link_send */
    net_link_poll_fill(link, fds, &timeout);
    CHECK(timeout == 0);
    net_link_poll_done(link, fds, 0);
    i = frames_wait(link, &got, is_arp_reply, 1000);
    CHECK(i >= 0);
    CHECK(frames_arp(got.bytes[i], got.len[i], &op, sip, mac, tip));
    CHECK(!strcmp(sip, "10.0.2.2") && !strcmp(tip, "10.0.2.15"));
    CHECK(!memcmp(mac, frames_gateway_mac, 6));
    CHECK(!memcmp(got.bytes[i], frames_guest_mac, 6));   /* to the guest */
    net_link_close(link);
}

static bool is_dhcp_reply(const uint8_t *f, size_t len)
{
    char a[16], r[16], d[16];
    int type;

    return frames_dhcp_reply(f, len, 0x2a2a2a2a, &type, a, r, d);
}

static void dhcp_offers_the_usual_network(void)
{
    struct net_link *link;
    struct error e;
    uint8_t frame[600];
    char addr[16], router[16], dns[16];
    int type, i;

    CHECK(open_link(&link, "user", &e) == 0);
    net_link_send(link, frame, frames_dhcp_discover(frame, 0x2a2a2a2a));
    i = frames_wait(link, &got, is_dhcp_reply, 1000);
    CHECK(i >= 0);
    CHECK(frames_dhcp_reply(got.bytes[i], got.len[i], 0x2a2a2a2a, &type, addr, router, dns));
    CHECK(type == 2);   /* OFFER */
    CHECK(!strcmp(addr, "10.0.2.15"));
    CHECK(!strcmp(router, "10.0.2.2"));
    CHECK(!strcmp(dns, "10.0.2.3"));
    net_link_close(link);
}

/* Nothing is delivered before a back end attaches: it is dropped. */
static void frames_before_attach_are_dropped(void)
{
    struct net_link *link;
    struct net_option o;
    struct error e;
    uint8_t frame[64];

    CHECK(net_option_parse("user", &o, &e) == 0 && net_link_open(&link, &o, &e) == 0);
    got.n = 0;
    net_link_send(link, frame, frames_arp_request(frame, "10.0.2.2"));
    frames_round(link, 10);
    net_link_attach(link, frames_collect, &got);
    frames_round(link, 10);
    CHECK(got.n == 0);
    net_link_close(link);
}

static uint16_t fwd_port;

/* A connection to the forwarded port on 127.0.0.1 becomes a SYN to the
 * guest's port 80, and then a connection both ways. */
static void a_forward_reaches_the_guest(void)
{
    char value[64], why[128];
    struct net_link *link;
    struct error e;

    fwd_port = frames_free_port();
    CHECK(fwd_port);
    snprintf(value, sizeof(value), "user,hostfwd=tcp::%u-:80", fwd_port);
    CHECK(open_link(&link, value, &e) == 0);
    CHECK_SESSION(session_host_connects_in(link, &got, fwd_port, why), why);
    net_link_close(link);
}

/* NAT outwards: 10.0.2.2 is the host's 127.0.0.1, for TCP and UDP. */
static void the_guest_reaches_the_host(void)
{
    struct session_host h;
    struct net_link *link;
    struct error e;
    char why[128];

    CHECK(session_host_open(&h) == 0);
    CHECK(open_link(&link, "user", &e) == 0);
    CHECK_SESSION(session_guest_connects_out(link, &got, &h, why), why);
    CHECK_SESSION(session_guest_udp(link, &got, &h, why), why);
    net_link_close(link);
    session_host_close(&h);
}

/* The forward listens on 127.0.0.1 alone, not on every address. */
static void the_forward_listens_on_loopback_only(void)
{
    char value[64];
    struct net_link *link;
    struct error e;
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), bound;

    fwd_port = frames_free_port();
    snprintf(value, sizeof(value), "user,hostfwd=tcp::%u-:80", fwd_port);
    CHECK(open_link(&link, value, &e) == 0);
    /* Had it bound 0.0.0.0, 127.0.0.2's port would be taken too. */
    a = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(fwd_port) };
    inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
    bound = bind(s, (struct sockaddr *)&a, len);
    close(s);
    CHECK(bound == 0);
    net_link_close(link);
}

/* A port another program listens on: one line, before anything runs. */
static void a_port_in_use_is_refused(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    char value[64], want[128];
    struct net_link *link = NULL;
    struct error e = { "" };

    CHECK(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(s, 1) == 0);
    CHECK(getsockname(s, (struct sockaddr *)&a, &len) == 0);
    snprintf(value, sizeof(value), "user,hostfwd=tcp::%u-:22", ntohs(a.sin_port));
    CHECK(open_link(&link, value, &e) == -1);
    snprintf(want, sizeof(want), "--net: cannot listen on 127.0.0.1:%u (tcp) to forward "
             "to the guest's port 22: Address already in use", ntohs(a.sin_port));
    CHECK(!strcmp(e.msg, want));
    close(s);
}

/* A frame with nothing in it, or one truncated anywhere: no crash (ASan
 * runs this too), whatever slirp makes of it. */
static void short_frames_are_harmless(void)
{
    struct net_link *link;
    struct error e;
    uint8_t frame[600];
    size_t n;

    CHECK(open_link(&link, "user", &e) == 0);
    n = frames_dhcp_discover(frame, 1);
    for (size_t cut = 0; cut <= n; cut += 7)
        net_link_send(link, frame, cut);
    n = frames_tcp_build(frame, &(struct frames_tcp_seg){
        .dst_ip = "10.0.2.2", .src_port = 1000, .dst_port = 9, .flags = FRAMES_SYN });
    for (size_t cut = 0; cut < n; cut++)
        net_link_send(link, frame, cut);
    frames_round(link, 10);
    net_link_close(link);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(arp_for_the_gateway);
    RUN(dhcp_offers_the_usual_network);
    RUN(frames_before_attach_are_dropped);
    RUN(a_forward_reaches_the_guest);
    RUN(the_guest_reaches_the_host);
    RUN(the_forward_listens_on_loopback_only);
    RUN(a_port_in_use_is_refused);
    RUN(short_frames_are_harmless);
    return check_exit_status();
}
