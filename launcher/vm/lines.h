/*
 * Back-end lines, the Launcher's side (abi/layout.h has the protocol): a
 * back end raises its line toward the guest, learns which lines the guest
 * notified, and asks the Host to connect a device's port. The shared words
 * are the guest's to scribble on too: what they say is a hint to look, and
 * a port the Host connected is checked by the Host.
 */
#ifndef PERCH_LAUNCHER_LINES_H
#define PERCH_LAUNCHER_LINES_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "kvm.h"

/* Raise `line`'s port in the guest: its bit, then the interrupt. */
void lines_raise(struct perch_shared *sh, struct kvm_vm *vm, unsigned line);

/* The lines the guest notified since the last call (cleared). */
uint64_t lines_take_notified(struct perch_shared *sh);

/* Ask the Host to connect device line `line` to `port`, the port the front
 * end named; the Host answers by notifying the line. */
void lines_connect(struct perch_shared *sh, struct kvm_vm *vm, unsigned line,
                   uint32_t port);

/* After the answer: did the Host connect `line` to `port`? */
bool lines_connected(const struct perch_shared *sh, unsigned line, uint32_t port);

#endif
