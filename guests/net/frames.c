/* The frames the net guest sends and reads (frames.h). */
#include "frames.h"

#include "rt.h"

#define BOOTP_SERVER 67
#define BOOTP_CLIENT 68
/* op..file, then the magic cookie and options: 236 + 312 bytes, the
 * size of slirp's struct bootp_t, the most its reply holds. */
#define BOOTP_FIXED  236u
#define BOOTP_VEND   312u

const uint8_t eth_broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t dhcp_cookie[4] = { 99, 130, 83, 99 };

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* The Internet checksum's running sum (RFC 1071). */
static uint32_t sum16(const uint8_t *p, unsigned n, uint32_t sum)
{
    for (unsigned i = 0; i + 1 < n; i += 2)
        sum += get16(p + i);
    if (n & 1)
        sum += (uint32_t)p[n - 1] << 8;
    return sum;
}

static uint16_t fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

void slirp_mac(uint8_t mac[ETH_ALEN], uint32_t ip)
{
    mac[0] = 0x52;
    mac[1] = 0x55;
    put32(mac + 2, ip);
}

uint8_t echo_pattern(uint16_t seq, unsigned i)
{
    return (uint8_t)(seq + i * 7);
}

static void eth(uint8_t *f, const uint8_t dst[ETH_ALEN], const uint8_t src[ETH_ALEN],
                uint16_t type)
{
    memcpy(f, dst, ETH_ALEN);
    memcpy(f + ETH_ALEN, src, ETH_ALEN);
    put16(f + 12, type);
}

/* An IPv4 header of IP_HLEN bytes in front of `len` bytes of data. */
static void ip4(uint8_t *h, uint8_t proto, uint32_t src, uint32_t dst, unsigned len,
                uint16_t id)
{
    memset(h, 0, IP_HLEN);
    h[0] = 0x45;
    put16(h + 2, (uint16_t)(IP_HLEN + len));
    put16(h + 4, id);
    h[8] = 64;
    h[9] = proto;
    put32(h + 12, src);
    put32(h + 16, dst);
    put16(h + 10, fold(sum16(h, IP_HLEN, 0)));
}

unsigned frame_arp(uint8_t *f, uint16_t op, const uint8_t sha[ETH_ALEN], uint32_t sip,
                   const uint8_t tha[ETH_ALEN], uint32_t tip)
{
    uint8_t *a = f + ETH_HLEN;

    eth(f, op == ARPOP_REQUEST ? eth_broadcast : tha, sha, ETH_P_ARP);
    put16(a, 1);                   /* Ethernet */
    put16(a + 2, ETH_P_IP);
    a[4] = ETH_ALEN;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, sha, ETH_ALEN);
    put32(a + 14, sip);
    if (op == ARPOP_REQUEST)
        memset(a + 18, 0, ETH_ALEN);
    else
        memcpy(a + 18, tha, ETH_ALEN);
    put32(a + 24, tip);
    return ETH_HLEN + 28;
}

unsigned frame_icmp_echo(uint8_t *f, const uint8_t src[ETH_ALEN], const uint8_t dst[ETH_ALEN],
                         uint32_t dst_ip, uint16_t id, uint16_t seq, unsigned payload)
{
    uint8_t *icmp = f + ETH_HLEN + IP_HLEN;

    eth(f, dst, src, ETH_P_IP);
    ip4(f + ETH_HLEN, IPPROTO_ICMP, SLIRP_GUEST, dst_ip, 8 + payload, seq);
    icmp[0] = 8;                   /* echo request */
    icmp[1] = 0;
    put16(icmp + 2, 0);
    put16(icmp + 4, id);
    put16(icmp + 6, seq);
    for (unsigned i = 0; i < payload; i++)
        icmp[8 + i] = echo_pattern(seq, i);
    put16(icmp + 2, fold(sum16(icmp, 8 + payload, 0)));
    return ETH_HLEN + IP_HLEN + 8 + payload;
}

unsigned frame_dhcp_discover(uint8_t *f, const uint8_t mac[ETH_ALEN], uint32_t xid)
{
    uint8_t *udp = f + ETH_HLEN + IP_HLEN, *bp = udp + 8, *opt = bp + BOOTP_FIXED;
    unsigned len = 8 + BOOTP_FIXED + BOOTP_VEND;
    uint32_t pseudo;

    eth(f, eth_broadcast, mac, ETH_P_IP);
    ip4(f + ETH_HLEN, IPPROTO_UDP, 0, 0xffffffffu, len, 1);
    memset(udp, 0, len);
    put16(udp, BOOTP_CLIENT);
    put16(udp + 2, BOOTP_SERVER);
    put16(udp + 4, (uint16_t)len);
    bp[0] = 1;                     /* BOOTREQUEST */
    bp[1] = 1;                     /* Ethernet */
    bp[2] = ETH_ALEN;
    put32(bp + 4, xid);
    put16(bp + 10, 0x8000);        /* answer by broadcast: we have no address */
    memcpy(bp + 28, mac, ETH_ALEN);
    memcpy(opt, dhcp_cookie, sizeof(dhcp_cookie));
    opt[4] = 53;                   /* message type */
    opt[5] = 1;
    opt[6] = DHCPDISCOVER;
    opt[7] = 255;                  /* end; zeros pad the rest */
    pseudo = sum16(f + ETH_HLEN + 12, 8, IPPROTO_UDP + len);
    put16(udp + 6, fold(sum16(udp, len, pseudo)));
    return ETH_HLEN + IP_HLEN + len;
}

bool read_arp(const uint8_t *f, unsigned len, struct arp_view *a)
{
    const uint8_t *p = f + ETH_HLEN;

    if (len < ETH_HLEN + 28 || get16(f + 12) != ETH_P_ARP || get16(p) != 1 ||
        get16(p + 2) != ETH_P_IP || p[4] != ETH_ALEN || p[5] != 4)
        return false;
    a->op = get16(p + 6);
    a->sha = p + 8;
    a->sip = get32(p + 14);
    a->tha = p + 18;
    a->tip = get32(p + 24);
    return true;
}

bool read_ip4(const uint8_t *f, unsigned len, struct ip4_view *ip)
{
    const uint8_t *h = f + ETH_HLEN;
    unsigned hlen, total;

    if (len < ETH_HLEN + IP_HLEN || get16(f + 12) != ETH_P_IP || h[0] >> 4 != 4)
        return false;
    hlen = (h[0] & 15u) * 4;
    total = get16(h + 2);
    if (hlen < IP_HLEN || total < hlen || ETH_HLEN + total > len || fold(sum16(h, hlen, 0)))
        return false;
    ip->src = get32(h + 12);
    ip->dst = get32(h + 16);
    ip->proto = h[9];
    ip->id = get16(h + 4);
    ip->frag_at = (get16(h + 6) & 0x1fffu) * 8;
    ip->more = get16(h + 6) & 0x2000u;
    ip->data = h + hlen;
    ip->len = total - hlen;
    return true;
}

void ip4_datagram_start(struct ip4_datagram *d, uint32_t src, uint8_t proto, uint16_t id)
{
    d->src = src;
    d->proto = proto;
    d->id = id;
    d->total = d->have = 0;
    memset(d->got, 0, sizeof(d->got));
}

bool ip4_datagram_add(struct ip4_datagram *d, const struct ip4_view *ip)
{
    unsigned end = ip->frag_at + ip->len;

    if (ip->src != d->src || ip->proto != d->proto || ip->id != d->id || end > sizeof(d->data) ||
        (ip->more && ip->len % 8))
        return false;
    for (unsigned b = ip->frag_at / 8; b * 8 < end; b++) {
        if (d->got[b / 8] & (1u << (b % 8)))
            return false;          /* a fragment again, or overlapping: not counted */
    }
    for (unsigned b = ip->frag_at / 8; b * 8 < end; b++)
        d->got[b / 8] |= (uint8_t)(1u << (b % 8));
    memcpy(d->data + ip->frag_at, ip->data, ip->len);
    d->have += ip->len;
    if (!ip->more)
        d->total = end;
    return d->total && d->have == d->total;
}

bool read_echo_reply(const uint8_t *icmp, unsigned len, struct echo_view *e)
{
    if (len < 8 || icmp[0] != 0 || icmp[1] != 0 || fold(sum16(icmp, len, 0)))
        return false;
    e->id = get16(icmp + 4);
    e->seq = get16(icmp + 6);
    e->payload = icmp + 8;
    e->len = len - 8;
    return true;
}

/* Option `code`'s value of at least `want` bytes, or NULL. */
static const uint8_t *dhcp_option(const uint8_t *opt, unsigned n, uint8_t code, unsigned want)
{
    for (unsigned i = 4; i < n && opt[i] != 255;) {
        if (opt[i] == 0) {
            i++;
            continue;
        }
        if (i + 2 > n || i + 2 + opt[i + 1] > n)
            return NULL;
        if (opt[i] == code)
            return opt[i + 1] >= want ? opt + i + 2 : NULL;
        i += 2 + opt[i + 1];
    }
    return NULL;
}

bool read_dhcp(const uint8_t *udp, unsigned len, struct dhcp_view *d)
{
    const uint8_t *bp = udp + 8, *opt = bp + BOOTP_FIXED, *type, *server;
    unsigned n;

    if (len < 8 + BOOTP_FIXED + 4 || get16(udp + 2) != BOOTP_CLIENT || get16(udp + 4) > len ||
        get16(udp + 4) < 8 + BOOTP_FIXED + 4 || bp[0] != 2 || memcmp(opt, dhcp_cookie, 4))
        return false;
    n = get16(udp + 4) - 8 - BOOTP_FIXED;
    type = dhcp_option(opt, n, 53, 1);
    server = dhcp_option(opt, n, 54, 4);
    d->xid = get32(bp + 4);
    d->yiaddr = get32(bp + 16);
    d->chaddr = bp + 28;
    d->type = type ? *type : 0;
    d->server = server ? get32(server) : 0;
    return true;
}
