/*
 * The Launcher confined while the guest runs. Once the VM is built, the
 * threads that face the guest (the vCPU thread and the console thread)
 * each enter a seccomp filter that allows only the system calls they need:
 * KVM_RUN and the few ioctls in use, reads, writes and polls, futexes,
 * signals to its own threads, clocks and thread exit (the list is in
 * sandbox.c). Any other call is a bug or an attack: perch prints one
 * line naming the call, restores the terminal and exits with
 * STATUS_SANDBOX. `--no-sandbox` runs without it.
 *
 * The filter is per thread, so the thread that built the VM stays free to
 * tear it down, and `perch bench` to write its files and boot again.
 */
#ifndef PERCH_SANDBOX_H
#define PERCH_SANDBOX_H

#include "../base/error.h"

/* What a thread may need beyond that list. */
enum sandbox_extra {
    /* libslirp's (--net user, on the device thread): its sockets, and a
     * read of /etc/resolv.conf for the guest's DNS (sandbox.c says how
     * reading stays limited to that file). */
    SANDBOX_SLIRP = 1 << 0,
    /* --gdb's thread: accept4 on its listening socket, made before the
     * sandbox (no bind or listen). */
    SANDBOX_GDB = 1 << 1,
};

/* Confine the calling thread (and any thread it starts later), allowing
 * the SANDBOX_* in extra too. Returns 0, or -1 with e saying why not (a
 * kernel without seccomp). */
int sandbox_enter(unsigned extra, struct error *e);

#endif
