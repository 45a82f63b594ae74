/*
 * The Launcher's back ends: their lines and their interrupt. See backend.h.
 */
#include "backend.h"

#include "../core/env.h"
#include "evtchn.h"

/* The port of each line, as the Host bound or connected it; 0: none. */
static unsigned line_port[PERCH_LINES];

static void bind_fixed(unsigned line, uint64_t port)
{
    /* The Launcher chose the number; a bad one is perch's own bug. */
    if (port >= EVTCHN_2L_NR_CHANNELS || evtchn_bind_backend((unsigned)port, line))
        host_fatal("perch cannot bind back-end line %u to event channel %lu", line, port);
    line_port[line] = (unsigned)port;
}

void backend_init(uint64_t console_port, uint64_t xenstore_port)
{
    __builtin_memset(line_port, 0, sizeof(line_port));
    if (console_port)
        bind_fixed(PERCH_LINE_CONSOLE, console_port);
    if (xenstore_port)
        bind_fixed(PERCH_LINE_XENSTORE, xenstore_port);
}

/* The Launcher names the port a front end allocated (from xenstore, which
 * the guest writes): the Host takes it only if it is such a port, and
 * answers in lines.connected, then rings the device doorbell. */
static void connect_lines(uint64_t lines)
{
    volatile typeof(perch_shared.lines) *l = &perch_shared.lines;

    for (unsigned line = PERCH_LINE_FIRST_DEVICE; line < PERCH_LINES; line++) {
        unsigned port;

        if (!(lines >> line & 1))
            continue;
        port = l->port[line];
        if (evtchn_connect_backend(port, line) == 0) {
            line_port[line] = port;
            l->connected[line] = port;
        } else {
            l->connected[line] = 0;
        }
        env_notify_backend(line);
    }
}

/* A line's port is raised only while it still belongs to that line: the
 * guest may have closed it and bound the number to something else, which
 * must not see a stray event. */
static void raise_lines(uint64_t lines)
{
    for (unsigned line = 0; line < PERCH_LINES; line++) {
        unsigned port = line_port[line];
        const struct evtchn_port *p = &evtchn_state.port[port];

        if ((lines >> line & 1) && port && p->state == EVTCHN_BACKEND && p->line == line)
            evtchn_raise(port);
    }
}

void backend_interrupt(void)
{
    uint64_t connect = __atomic_exchange_n(&perch_shared.lines.connect, 0, __ATOMIC_SEQ_CST);
    uint64_t raised = __atomic_exchange_n(&perch_shared.lines.raised, 0, __ATOMIC_SEQ_CST);

    connect_lines(connect);
    raise_lines(raised);
}
