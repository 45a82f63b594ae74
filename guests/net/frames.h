/*
 * The frames the net guest sends and reads: Ethernet II carrying ARP or
 * IPv4, and in IPv4 ICMP echo and UDP (DHCP), laid out byte by byte in
 * network order (no packed structs), with their checksums.
 */
#ifndef NET_FRAMES_H
#define NET_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#define ETH_ALEN  6
#define ETH_HLEN  14
#define ETH_P_IP  0x0800
#define ETH_P_ARP 0x0806
#define IP_HLEN   20
#define IPPROTO_ICMP 1
#define IPPROTO_UDP  17
#define ARPOP_REQUEST 1
#define ARPOP_REPLY   2
#define DHCPDISCOVER  1
#define DHCPOFFER     2

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* libslirp's network behind --net user: the address its DHCP offers
 * first, and its gateway (which answers ARP, ICMP echo and DHCP itself,
 * from the Ethernet address 52:55 followed by its IPv4 address). */
#define SLIRP_GUEST   IP4(10, 0, 2, 15)
#define SLIRP_GATEWAY IP4(10, 0, 2, 2)

/* The largest frame: an Ethernet header and a 64 KiB IP datagram. */
#define FRAME_MAX (ETH_HLEN + 65536)

extern const uint8_t eth_broadcast[ETH_ALEN];

/* slirp's Ethernet address for one of its own IPv4 addresses. */
void slirp_mac(uint8_t mac[ETH_ALEN], uint32_t ip);

/* ---- Building: each returns the frame's length ---- */

/* An ARP request (to everyone) or reply (to tha). */
unsigned frame_arp(uint8_t *f, uint16_t op, const uint8_t sha[ETH_ALEN], uint32_t sip,
                   const uint8_t tha[ETH_ALEN], uint32_t tip);

/* An echo request from SLIRP_GUEST with `payload` bytes of echo_pattern. */
unsigned frame_icmp_echo(uint8_t *f, const uint8_t src[ETH_ALEN], const uint8_t dst[ETH_ALEN],
                         uint32_t dst_ip, uint16_t id, uint16_t seq, unsigned payload);

/* A DHCPDISCOVER from 0.0.0.0:68 to 255.255.255.255:67, asking for a
 * broadcast answer, padded to a full BOOTP message of 548 bytes. */
unsigned frame_dhcp_discover(uint8_t *f, const uint8_t mac[ETH_ALEN], uint32_t xid);

/* The byte an echo's payload holds at i. */
uint8_t echo_pattern(uint16_t seq, unsigned i);

/* ---- Reading: false unless the frame is one, well formed ---- */

struct arp_view {
    uint16_t op;
    const uint8_t *sha, *tha;
    uint32_t sip, tip;
};
bool read_arp(const uint8_t *f, unsigned len, struct arp_view *a);

/* An IPv4 frame (or fragment) whose header checksum holds. */
struct ip4_view {
    uint32_t src, dst;
    uint8_t proto;
    uint16_t id;
    unsigned frag_at;          /* the fragment's offset, bytes */
    bool more;                 /* IP_MF */
    const uint8_t *data;
    unsigned len;
};
bool read_ip4(const uint8_t *f, unsigned len, struct ip4_view *ip);

/* An IPv4 datagram gathered from its fragments, in any order. */
struct ip4_datagram {
    uint16_t id;
    uint32_t src;
    uint8_t proto;
    unsigned total, have;      /* total: 0 until the last fragment came */
    uint8_t got[65536 / 8 / 8];   /* a bit per 8 bytes */
    uint8_t data[65536];
};
void ip4_datagram_start(struct ip4_datagram *d, uint32_t src, uint8_t proto, uint16_t id);
/* True once the datagram is whole; fragments of others are ignored. */
bool ip4_datagram_add(struct ip4_datagram *d, const struct ip4_view *ip);

/* An echo reply (type 0) whose ICMP checksum holds. */
struct echo_view {
    uint16_t id, seq;
    const uint8_t *payload;
    unsigned len;
};
bool read_echo_reply(const uint8_t *icmp, unsigned len, struct echo_view *e);

/* A BOOTP reply to port 68 (the UDP header on), its DHCP options read. */
struct dhcp_view {
    uint32_t xid, yiaddr, server;
    uint8_t type;              /* option 53 */
    const uint8_t *chaddr;
};
bool read_dhcp(const uint8_t *udp, unsigned len, struct dhcp_view *d);

#endif
