/* The TCP or UDP checksum of an IPv4 frame, filled in. See net_csum.h. */
#include "net_csum.h"

#define ETHERTYPE_IPV4 0x0800
#define IP_PROTO_TCP 6
#define IP_PROTO_UDP 17
#define IPV4_MIN_HLEN 20
#define IPV4_FRAGMENT 0x3fff      /* more-fragments flag and offset */
#define TCP_MIN_HLEN 20
#define TCP_CSUM_AT 16
#define UDP_HLEN 8
#define UDP_CSUM_AT 6

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* The one's-complement sum of n bytes as big-endian 16-bit words (an odd
 * last byte padded with zero), added to acc; folded by the caller. */
static uint64_t sum_words(const uint8_t *p, size_t n, uint64_t acc)
{
    for (; n > 1; p += 2, n -= 2)
        acc += be16(p);
    if (n)
        acc += (uint64_t)p[0] << 8;
    return acc;
}

static uint16_t fold(uint64_t acc)
{
    while (acc >> 16)
        acc = (acc & 0xffff) + (acc >> 16);
    return (uint16_t)acc;
}

/* Where the checksum field of this transport lies in a segment of l4_len
 * bytes, or 0 if there is none to fill. */
static size_t csum_offset(uint8_t proto, size_t l4_len)
{
    if (proto == IP_PROTO_TCP && l4_len >= TCP_MIN_HLEN)
        return TCP_CSUM_AT;
    if (proto == IP_PROTO_UDP && l4_len >= UDP_HLEN)
        return UDP_CSUM_AT;
    return 0;
}

bool net_csum_fill(uint8_t *frame, size_t len)
{
    const uint8_t *ip = frame + NET_ETH_HLEN;
    size_t ihl, total, l4_len, at;
    uint8_t *l4;
    uint64_t acc;
    uint16_t csum;

    if (len < NET_ETH_HLEN + IPV4_MIN_HLEN || be16(frame + 12) != ETHERTYPE_IPV4 ||
        ip[0] >> 4 != 4)
        return false;
    ihl = (size_t)(ip[0] & 15) * 4;
    total = be16(ip + 2);
    if (ihl < IPV4_MIN_HLEN || total < ihl || total > len - NET_ETH_HLEN ||
        (be16(ip + 6) & IPV4_FRAGMENT))
        return false;
    l4 = frame + NET_ETH_HLEN + ihl;
    l4_len = total - ihl;
    at = csum_offset(ip[9], l4_len);
    if (!at)
        return false;
    /* The pseudo-header: source and destination, protocol, length. */
    acc = sum_words(ip + 12, 8, (uint64_t)ip[9] + l4_len);
    l4[at] = l4[at + 1] = 0;
    csum = (uint16_t)~fold(sum_words(l4, l4_len, acc));
    if (ip[9] == IP_PROTO_UDP && csum == 0)
        csum = 0xffff;          /* 0 would say "no checksum" */
    l4[at] = (uint8_t)(csum >> 8);
    l4[at + 1] = (uint8_t)csum;
    return true;
}
