/*
 * Whole conversations through a link, the guest's side played with the
 * frames of net_frames.h and the host's with sockets on 127.0.0.1: the
 * slirp link's unit tests check they work, the sandbox's that they still
 * work under its filter. Each returns 0, or -1 with why filled in.
 */
#ifndef PERCH_TESTS_NET_SESSION_H
#define PERCH_TESTS_NET_SESSION_H

#include "net_frames.h"

/* The host's end, made beforehand (bind and listen are not what the
 * sandbox lets the device thread do): a TCP listener and a UDP socket on
 * 127.0.0.1, non-blocking. */
struct session_host {
    int listener, udp;
    uint16_t tcp_port, udp_port;
};
int session_host_open(struct session_host *h);
void session_host_close(struct session_host *h);

/* The guest connects to 10.0.2.2:h->tcp_port, which is the host's
 * 127.0.0.1, sends "hello", gets "world", and closes. */
int session_guest_connects_out(struct net_link *link, struct frames *got,
                               const struct session_host *h, char why[128]);

/* The guest sends a UDP datagram to 10.0.2.2:h->udp_port and gets the
 * answer back. */
int session_guest_udp(struct net_link *link, struct frames *got,
                      const struct session_host *h, char why[128]);

/* The host connects to 127.0.0.1:host_port, forwarded to the guest's
 * port 80: the guest answers the handshake, data goes both ways. */
int session_host_connects_in(struct net_link *link, struct frames *got,
                             uint16_t host_port, char why[128]);

#endif
