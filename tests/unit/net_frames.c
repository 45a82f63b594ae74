/* Frames a guest would send and readers of slirp's answers, for the network tests. See net_frames.h. */
#include "net_frames.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const uint8_t frames_guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
const uint8_t frames_gateway_mac[6] = { 0x52, 0x55, 10, 0, 2, 2 };

#define GUEST_IP "10.0.2.15"
#define ETH_HLEN 14
#define IP_HLEN  20

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v & 0xff;
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_ip(uint8_t *p, const char *text)
{
    struct in_addr a;

    inet_pton(AF_INET, text, &a);
    memcpy(p, &a, 4);
}

static void get_ip(const uint8_t *p, char out[16])
{
    inet_ntop(AF_INET, p, out, 16);
}

/* The Internet checksum of n bytes, starting from sum. */
static uint16_t checksum(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += get16(p + i);
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static size_t ethernet(uint8_t *f, const uint8_t dst[6], uint16_t type)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, frames_guest_mac, 6);
    put16(f + 12, type);
    return ETH_HLEN;
}

/* An IPv4 header for payload bytes of proto at f; returns its length. */
static size_t ipv4(uint8_t *f, const char *src, const char *dst, uint8_t proto,
                   size_t payload)
{
    memset(f, 0, IP_HLEN);
    f[0] = 0x45;
    put16(f + 2, (uint16_t)(IP_HLEN + payload));
    f[8] = 64;
    f[9] = proto;
    put_ip(f + 12, src);
    put_ip(f + 16, dst);
    put16(f + 10, checksum(f, IP_HLEN, 0));
    return IP_HLEN;
}

static size_t arp(uint8_t *frame, uint16_t op, const uint8_t dst_mac[6],
                  const char *target_ip)
{
    static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    size_t n = ethernet(frame, op == 1 ? broadcast : dst_mac, FRAMES_ETH_ARP);
    uint8_t *a = frame + n;

    put16(a, 1);            /* Ethernet */
    put16(a + 2, 0x0800);   /* IPv4 */
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, frames_guest_mac, 6);
    put_ip(a + 14, GUEST_IP);
    memset(a + 18, 0, 6);
    if (op == 2)
        memcpy(a + 18, dst_mac, 6);
    put_ip(a + 24, target_ip);
    memset(a + 28, 0, 60 - n - 28);   /* to Ethernet's minimum */
    return 60;
}

size_t frames_arp_request(uint8_t *frame, const char *target_ip)
{
    return arp(frame, 1, NULL, target_ip);
}

size_t frames_arp_reply(uint8_t *frame, const uint8_t to_mac[6], const char *to_ip)
{
    return arp(frame, 2, to_mac, to_ip);
}

/* BOOTP's 236 bytes, the magic cookie, option 53 DISCOVER, the end; from
 * 0.0.0.0:68 to the broadcast address's port 67. */
size_t frames_dhcp_discover(uint8_t *frame, uint32_t xid)
{
    static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    size_t bootp = 300, n = ethernet(frame, broadcast, FRAMES_ETH_IPV4);
    uint8_t *udp = frame + n + IP_HLEN, *b = udp + 8;

    ipv4(frame + n, "0.0.0.0", "255.255.255.255", 17, 8 + bootp);
    put16(udp, 68);
    put16(udp + 2, 67);
    put16(udp + 4, (uint16_t)(8 + bootp));
    put16(udp + 6, 0);   /* no checksum: allowed over IPv4 */
    memset(b, 0, bootp);
    b[0] = 1;            /* BOOTREQUEST */
    b[1] = 1;
    b[2] = 6;
    memcpy(b + 4, &xid, 4);
    put16(b + 10, 0x8000);   /* answer by broadcast */
    memcpy(b + 28, frames_guest_mac, 6);
    memcpy(b + 236, (const uint8_t[]){ 99, 130, 83, 99, 53, 1, 1, 255 }, 8);
    return n + IP_HLEN + 8 + bootp;
}

/* The TCP or UDP checksum: the pseudo-header of ip's addresses, then the
 * n bytes of the segment at p. */
static uint16_t l4_checksum(const uint8_t *ip, uint8_t proto, const uint8_t *p, size_t n)
{
    uint32_t sum = get16(ip + 12) + get16(ip + 14) + get16(ip + 16) + get16(ip + 18) +
                   proto + (uint32_t)n;

    return checksum(p, n, sum);
}

size_t frames_tcp_build(uint8_t *frame, const struct frames_tcp_seg *seg)
{
    size_t n = ethernet(frame, frames_gateway_mac, FRAMES_ETH_IPV4);
    uint8_t *ip = frame + n, *t = ip + IP_HLEN;

    ipv4(ip, GUEST_IP, seg->dst_ip, 6, 20 + seg->len);
    memset(t, 0, 20);
    put16(t, seg->src_port);
    put16(t + 2, seg->dst_port);
    put16(t + 4, (uint16_t)(seg->seq >> 16));
    put16(t + 6, (uint16_t)seg->seq);
    put16(t + 8, (uint16_t)(seg->ack >> 16));
    put16(t + 10, (uint16_t)seg->ack);
    t[12] = 5 << 4;
    t[13] = seg->flags;
    put16(t + 14, 65535);
    if (seg->len)
        memcpy(t + 20, seg->payload, seg->len);
    put16(t + 16, l4_checksum(ip, 6, t, 20 + seg->len));
    return n + IP_HLEN + 20 + seg->len;
}

size_t frames_udp(uint8_t *frame, const char *dst_ip, uint16_t src_port,
                  uint16_t dst_port, const void *payload, size_t len)
{
    size_t n = ethernet(frame, frames_gateway_mac, FRAMES_ETH_IPV4);
    uint8_t *ip = frame + n, *u = ip + IP_HLEN;

    ipv4(ip, GUEST_IP, dst_ip, 17, 8 + len);
    put16(u, src_port);
    put16(u + 2, dst_port);
    put16(u + 4, (uint16_t)(8 + len));
    put16(u + 6, 0);
    memcpy(u + 8, payload, len);
    put16(u + 6, l4_checksum(ip, 17, u, 8 + len));
    return n + IP_HLEN + 8 + len;
}

uint16_t frames_type(const uint8_t *frame, size_t len)
{
    return len < ETH_HLEN ? 0 : get16(frame + 12);
}

bool frames_arp(const uint8_t *frame, size_t len, uint16_t *op, char sender_ip[16],
                uint8_t sender_mac[6], char target_ip[16])
{
    const uint8_t *a = frame + ETH_HLEN;

    if (frames_type(frame, len) != FRAMES_ETH_ARP || len < ETH_HLEN + 28)
        return false;
    *op = get16(a + 6);
    memcpy(sender_mac, a + 8, 6);
    get_ip(a + 14, sender_ip);
    get_ip(a + 24, target_ip);
    return true;
}

/* The IPv4 payload of proto, or NULL. */
static const uint8_t *ip_payload(const uint8_t *frame, size_t len, uint8_t proto,
                                 size_t *payload_len)
{
    const uint8_t *ip = frame + ETH_HLEN;
    size_t hl, total;

    if (frames_type(frame, len) != FRAMES_ETH_IPV4 || len < ETH_HLEN + IP_HLEN ||
        ip[9] != proto)
        return NULL;
    hl = (size_t)(ip[0] & 0xf) * 4;
    total = get16(ip + 2);   /* the frame may be padded beyond it */
    if (hl < IP_HLEN || total < hl || ETH_HLEN + total > len)
        return NULL;
    *payload_len = total - hl;
    return ip + hl;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) << 16 | get16(p + 2);
}

bool frames_tcp_read(const uint8_t *frame, size_t len, struct frames_tcp_seg *seg)
{
    size_t n, off;
    const uint8_t *t = ip_payload(frame, len, 6, &n);

    if (!t || n < 20 || (off = (size_t)(t[12] >> 4) * 4) < 20 || off > n)
        return false;
    get_ip(frame + ETH_HLEN + 16, seg->dst_ip);
    seg->src_port = get16(t);
    seg->dst_port = get16(t + 2);
    seg->seq = get32(t + 4);
    seg->ack = get32(t + 8);
    seg->flags = t[13];
    seg->payload = t + off;
    seg->len = n - off;
    return true;
}

bool frames_udp_read(const uint8_t *frame, size_t len, uint16_t *src_port,
                     uint16_t *dst_port, const uint8_t **payload, size_t *payload_len)
{
    size_t n;
    const uint8_t *u = ip_payload(frame, len, 17, &n);

    if (!u || n < 8)
        return false;
    *src_port = get16(u);
    *dst_port = get16(u + 2);
    *payload = u + 8;
    *payload_len = n - 8;
    return true;
}

/* The first address of option code in a DHCP options area, "" if none. */
static void option_ip(const uint8_t *o, size_t n, uint8_t code, char out[16])
{
    out[0] = 0;
    for (size_t i = 0; i + 1 < n && o[i] != 255;) {
        if (o[i] == 0) {
            i++;
            continue;
        }
        if (o[i] == code && o[i + 1] >= 4 && i + 6 <= n) {
            get_ip(o + i + 2, out);
            return;
        }
        i += 2 + o[i + 1];
    }
}

bool frames_dhcp_reply(const uint8_t *frame, size_t len, uint32_t xid, int *type,
                       char yiaddr[16], char router[16], char dns[16])
{
    size_t n;
    const uint8_t *u = ip_payload(frame, len, 17, &n), *b, *o;

    if (!u || n < 8 + 240 || get16(u + 2) != 68)
        return false;
    b = u + 8;
    if (b[0] != 2 || memcmp(b + 4, &xid, 4))
        return false;
    get_ip(b + 16, yiaddr);
    o = b + 240;
    n -= 8 + 240;
    *type = 0;
    for (size_t i = 0; i + 2 < n && o[i] != 255; i += o[i] ? 2 + o[i + 1] : 1)
        if (o[i] == 53)
            *type = o[i + 2];
    option_ip(o, n, 3, router);
    option_ip(o, n, 6, dns);
    return true;
}

void frames_collect(void *arg, const uint8_t *frame, size_t len)
{
    struct frames *f = arg;

    if (f->n == FRAMES_MAX || len > sizeof(f->bytes[0]))
        return;
    memcpy(f->bytes[f->n], frame, len);
    f->len[f->n++] = len;
}

void frames_round(struct net_link *link, int max_wait_ms)
{
    struct pollfd fds[NET_LINK_MAX_POLLFDS];
    int timeout = max_wait_ms;
    unsigned n = net_link_poll_fill(link, fds, &timeout);

    if (timeout < 0 || timeout > max_wait_ms)
        timeout = max_wait_ms;
    poll(fds, n, timeout);
    net_link_poll_done(link, fds, n);
}

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

int frames_wait(struct net_link *link, struct frames *f,
                bool (*match)(const uint8_t *frame, size_t len), int ms)
{
    long long end = now_ms() + ms;
    unsigned seen = 0;

    do {
        frames_round(link, 20);
        for (; seen < f->n; seen++)
            if (match(f->bytes[seen], f->len[seen]))
                return (int)seen;
    } while (now_ms() < end);
    return -1;
}

uint16_t frames_free_port(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    uint16_t port = 0;

    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}
