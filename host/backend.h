/*
 * The Launcher's back ends as the Host sees them (host/backend.c): the
 * event-channel ports they own, bound at start, and the interrupt
 * (PERCH_BACKEND_VECTOR) with which the Launcher says it has put something
 * into a ring for the guest.
 *
 * The guest's EVTCHNOP_send on such a port rings the Launcher's doorbell
 * (env_notify_backend): output costs no exit. Input costs one injected
 * interrupt, which raises the port to the guest.
 */
#ifndef PERCH_HOST_BACKEND_H
#define PERCH_HOST_BACKEND_H

#include "host.h"

/* Bind the ring console's port (perch_shared.boot.console_port; 0: no
 * console). Called once at start, after evtchn_init(). */
void backend_init(uint64_t console_port);

/* The Launcher's interrupt came: raise the console port, if the guest
 * still has it (it may have closed it and bound the number to something
 * else, which must not see a stray event). Safe from an interrupt. */
void backend_interrupt(void);

#endif
