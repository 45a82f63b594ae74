/* Open the link --net names: its kind chooses slirp_link.c or tap_link.c
 * (net_link.h). */
#include "net_link_kinds.h"

int net_link_open(struct net_link **link, const struct net_option *o,
                  struct error *e)
{
    switch (o->kind) {
    case NET_USER: return slirp_link_open(link, o, e);
    case NET_TAP: return tap_link_open(link, o, e);
    case NET_NONE: break;
    }
    return fail(e, "no --net to open");
}
