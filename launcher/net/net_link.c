/* The guest's network link, whatever its kind: what the back end and the
 * kinds (slirp_link.c, tap_link.c) share. See net_link.h. */
#include "net_link_kinds.h"

void net_link_attach(struct net_link *link, net_link_deliver_fn *deliver, void *arg)
{
    link->deliver = deliver;
    link->deliver_arg = arg;
}

unsigned net_link_sandbox_extra(const struct net_link *link)
{
    return link->ops->sandbox_extra;
}

void net_link_send(struct net_link *link, const uint8_t *frame, size_t len)
{
    if (len <= NET_LINK_MAX_FRAME)
        link->ops->send(link, frame, len);
}

unsigned net_link_poll_fill(struct net_link *link, struct pollfd *fds, int *timeout_ms)
{
    return link->ops->poll_fill(link, fds, timeout_ms);
}

void net_link_poll_done(struct net_link *link, const struct pollfd *fds, unsigned n)
{
    link->ops->poll_done(link, fds, n);
}

void net_link_close(struct net_link *link)
{
    if (link)
        link->ops->close(link);
}

void net_link_deliver(struct net_link *link, const uint8_t *frame, size_t len)
{
    if (link->deliver)
        link->deliver(link->deliver_arg, frame, len);
}

void net_link_lower_timeout(int *timeout_ms, int64_t ms)
{
    if (ms < 0)
        ms = 0;
    if (*timeout_ms < 0 || ms < *timeout_ms)
        *timeout_ms = (int)ms;
}
