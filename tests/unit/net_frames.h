/*
 * Ethernet frames for the tests of the guest's network link (test_slirp_link.c,
 * test_sandbox.c): what a guest would send (an ARP request, a DHCP
 * DISCOVER, a TCP SYN), built here byte by byte from the protocols'
 * layouts, and readers for what comes back, so that a test checks what
 * slirp answered without trusting perch's code to say so. Also a link
 * driver: rounds of poll_fill, poll() and poll_done, collecting frames.
 */
#ifndef PERCH_TESTS_NET_FRAMES_H
#define PERCH_TESTS_NET_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../launcher/net/net_link.h"

/* The guest's card, and slirp's address for 10.0.2.2 (52:55 and the IP). */
extern const uint8_t frames_guest_mac[6];
extern const uint8_t frames_gateway_mac[6];

#define FRAMES_MAX 64
#define FRAMES_ETH_ARP  0x0806
#define FRAMES_ETH_IPV4 0x0800

/* What a link delivered: up to FRAMES_MAX frames, 2 KiB each (slirp's
 * frames are 1514 bytes at most at its default MTU). */
struct frames {
    uint8_t bytes[FRAMES_MAX][2048];
    size_t len[FRAMES_MAX];
    unsigned n;
};

/* The deliver function for net_link_attach(arg = a struct frames). */
void frames_collect(void *arg, const uint8_t *frame, size_t len);

/* One round of the device thread's loop: poll_fill, poll() for at most
 * max_wait_ms (less if the link says so), poll_done. */
void frames_round(struct net_link *link, int max_wait_ms);

/* Rounds until f holds a frame that match() accepts or ms have passed:
 * its index, or -1. */
int frames_wait(struct net_link *link, struct frames *f,
                bool (*match)(const uint8_t *frame, size_t len), int ms);

/* From the guest (10.0.2.15, frames_guest_mac); each returns the length. */
size_t frames_arp_request(uint8_t *frame, const char *target_ip);
size_t frames_arp_reply(uint8_t *frame, const uint8_t to_mac[6], const char *to_ip);
size_t frames_dhcp_discover(uint8_t *frame, uint32_t xid);

/* A TCP segment either way: built from the guest (10.0.2.15), or read
 * from a frame slirp sent (then payload points into that frame). */
struct frames_tcp_seg {
    char dst_ip[16];
    uint16_t src_port, dst_port;
    uint32_t seq, ack;
    uint8_t flags;              /* FRAMES_SYN, ... */
    const uint8_t *payload;
    size_t len;
};
#define FRAMES_FIN 0x01
#define FRAMES_SYN 0x02
#define FRAMES_PSH 0x08
#define FRAMES_ACK 0x10
size_t frames_tcp_build(uint8_t *frame, const struct frames_tcp_seg *seg);
bool frames_tcp_read(const uint8_t *frame, size_t len, struct frames_tcp_seg *seg);

/* A UDP datagram from the guest's port to dst_ip's. */
size_t frames_udp(uint8_t *frame, const char *dst_ip, uint16_t src_port,
                  uint16_t dst_port, const void *payload, size_t len);
/* A UDP datagram slirp sent to the guest: its ports and payload. */
bool frames_udp_read(const uint8_t *frame, size_t len, uint16_t *src_port,
                     uint16_t *dst_port, const uint8_t **payload, size_t *payload_len);

/* Readers: the Ethernet type, and (0 if not that kind of frame) fields. */
uint16_t frames_type(const uint8_t *frame, size_t len);
/* ARP: op (1 request, 2 reply), the sender's IP and MAC, the target's IP. */
bool frames_arp(const uint8_t *frame, size_t len, uint16_t *op, char sender_ip[16],
                uint8_t sender_mac[6], char target_ip[16]);
/* A DHCP reply: its message type (2 OFFER), the offered address and the
 * router and DNS options' first addresses. */
bool frames_dhcp_reply(const uint8_t *frame, size_t len, uint32_t xid, int *type,
                       char yiaddr[16], char router[16], char dns[16]);

/* A TCP port on 127.0.0.1 that was free a moment ago. */
uint16_t frames_free_port(void);

#endif
