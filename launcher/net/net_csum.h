/*
 * The TCP or UDP checksum of an Ethernet frame, filled in by the back end
 * for a front end that left it to the "hardware" (netif's
 * NETTXF_csum_blank, Linux's CHECKSUM_PARTIAL): slirp and the wire after
 * a tap take only frames whose checksums are right.
 *
 * The sum is computed afresh over the pseudo-header and the whole
 * segment, whatever the field held (Linux leaves the pseudo-header's sum
 * there, a hostile guest anything). Only IPv4 is done: perch does not
 * advertise feature-ipv6-csum-offload, so an honest netfront sums IPv6
 * itself (RFC 791, 793 and 768 have the layouts).
 */
#ifndef PERCH_NET_CSUM_H
#define PERCH_NET_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An Ethernet header: two addresses and the type. */
#define NET_ETH_HLEN 14

/* Fill in the checksum of the TCP or UDP segment in frame (len bytes).
 * false, leaving the frame as it was, unless it is an unfragmented IPv4
 * packet carrying TCP or UDP whose headers fit in the frame. */
bool net_csum_fill(uint8_t *frame, size_t len);

#endif
