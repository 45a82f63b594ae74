/*
 * --net, parsed: `user[,hostfwd=tcp::HOSTPORT-:GUESTPORT]...` (QEMU's
 * -netdev user spelling, udp: forwards too; forwarded ports listen on
 * 127.0.0.1 only) or `tap=NAME`. Parsing checks only the spelling;
 * net_link_open() finds the ports in use and the taps that do not exist.
 */
#ifndef PERCH_LAUNCHER_NET_OPTION_H
#define PERCH_LAUNCHER_NET_OPTION_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"

#define NET_MAX_HOSTFWD 16

enum net_kind { NET_NONE, NET_USER, NET_TAP };

struct net_hostfwd {
    uint16_t host_port;     /* on 127.0.0.1 */
    uint16_t guest_port;    /* on the guest's DHCP address */
    bool udp;               /* udp:...; else tcp */
};

struct net_option {
    enum net_kind kind;
    struct net_hostfwd fwd[NET_MAX_HOSTFWD];
    unsigned nr_fwd;
    char tap[16];           /* IFNAMSIZ, with its NUL */
};

/* Parse one --net value into o. 0, or -1 with e saying what is wrong. */
int net_option_parse(const char *value, struct net_option *o, struct error *e);

#endif
