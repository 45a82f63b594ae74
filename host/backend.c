/*
 * The Launcher's back ends: their ports and their interrupt. See backend.h.
 */
#include "backend.h"

#include "evtchn.h"

static unsigned console_port;   /* 0: none */

void backend_init(uint64_t port)
{
    console_port = 0;
    if (!port)
        return;
    /* The Launcher chose the number; a bad one is perch's own bug. */
    if (port >= EVTCHN_2L_NR_CHANNELS || evtchn_bind_backend((unsigned)port))
        host_fatal("perch cannot bind the console's event channel %lu", port);
    console_port = (unsigned)port;
}

void backend_interrupt(void)
{
    unsigned port = console_port;

    if (port && evtchn_state.port[port].state == EVTCHN_BACKEND)
        evtchn_raise(port);
}
