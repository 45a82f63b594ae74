/*
 * The Launcher's back ends as the Host sees them (host/events/backend.c): one
 * line each (PERCH_LINE_*, abi/layout.h), an event-channel port per line,
 * and the interrupt (PERCH_BACKEND_VECTOR) with which the Launcher says it
 * has raised lines or named ports to connect.
 *
 * The guest's EVTCHNOP_send on a line's port rings the Launcher's doorbell
 * (env_notify_backend): it costs no exit. The other way costs one injected
 * interrupt, which raises the lines' ports to the guest.
 */
#ifndef PERCH_HOST_BACKEND_H
#define PERCH_HOST_BACKEND_H

#include "../core/host.h"

/* Bind the fixed lines' ports (perch_shared.boot.console_port and
 * xenstore_port; 0: none). Called once at start, after evtchn_init(). */
void backend_init(uint64_t console_port, uint64_t xenstore_port);

/* The Launcher's interrupt came: connect the ports it names in
 * perch_shared.lines.connect, then raise the lines in lines.raised whose
 * ports the guest still has. Safe from an interrupt. */
void backend_interrupt(void);

#endif
