/*
 * --gdb: a GDB remote-protocol server for the guest, as QEMU's -s -S,
 * each vCPU a thread.
 *
 * The listening socket (127.0.0.1 only) is made before the VM, so a port
 * in use is a command-line error. A thread of its own (confined like the
 * console's) owns the connection. A vCPU stops only where the Host holds
 * its registers (host/entry/gdb.c): the gdb thread asks for a stop through
 * its perch_shared.gdb.cpu[].stop and an interrupt, and the Host exits to
 * the Launcher with them; the vCPU's thread then hands the stop to the
 * gdb thread (gdb_stopped) and waits in the Launcher until gdb lets it go
 * on. All-stop: the first vCPU to stop is the one gdb hears of, and the
 * gdb thread stops every other before it tells gdb. While stopped the gdb
 * thread reads and writes the registers the Host saved and guest memory
 * through the guest's own page tables.
 */
#ifndef PERCH_GDB_H
#define PERCH_GDB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../base/error.h"
#include "../vm/confined_thread.h"
#include "../vm/kvm.h"
#include "gdb_commands.h"
#include "gdb_frame.h"
#include "gdb_target.h"

enum gdb_state {
    GDB_RUNNING,      /* the guest runs (some vCPUs held while one steps) */
    GDB_STOPPING,     /* a stop is asked for, or one vCPU stopped and the
                       * others are being stopped */
    GDB_STOPPED,      /* every vCPU waits in gdb_stopped(): gdb's turn */
    GDB_ENDED,        /* the run is over */
};

/* What gdb_stopped() tells the vCPU loop. */
enum gdb_verdict {
    GDB_GO_ON,        /* resume the vCPU */
    GDB_END_RUN,      /* gdb killed the guest: perch exits */
    GDB_INTERRUPTED,  /* a signal came: look at it, then call again */
};

struct gdb {
    int listen_fd;
    int wake_fd;              /* eventfd: the vCPU threads to the gdb thread */
    int resume_fd[PERCH_MAX_VCPUS];   /* eventfd: the gdb thread to each vCPU's */
    unsigned nr_vcpus;
    bool wait;                /* --gdb-wait: hold the guest for the first client */
    struct kvm_vm *vm;
    struct perch_shared *shared;
    struct confined_thread thread;
    bool started;

    pthread_mutex_t lock;     /* what follows, to exit_status */
    enum gdb_state state;
    int first;                /* the vCPU whose stop gdb hears of; -1: none yet */
    struct timespec first_at; /* when it stopped */
    bool parked[PERCH_MAX_VCPUS];   /* its thread waits in gdb_stopped() */
    uint32_t why[PERCH_MAX_VCPUS];  /* its stop's PERCH_GDB_STOP_* */
    uint32_t asked;           /* what a stop perch asked for is to gdb */
    bool killed;
    int exit_status;          /* at GDB_ENDED */

    /* The gdb thread's own. */
    int conn_fd;              /* -1: no client */
    bool taken;               /* this stop is gdb's: its registers in target */
    bool seen[PERCH_MAX_VCPUS];   /* this vCPU's registers are in target */
    struct gdb_stop stop;     /* the stop gdb heard of */
    bool reply_due;           /* the client waits for a stop reply */
    bool no_ack;              /* QStartNoAckMode */
    bool complained;          /* one line per client about bad input */
    struct gdb_target target;
    struct gdb_framer in;     /* the packet being read */
    struct gdb_reply reply;
};

/* --gdb's value, [127.0.0.1:|localhost:]PORT, into a port 1-65535. */
int gdb_option_parse(const char *s, uint16_t *port, struct error *e);

/* Listen on 127.0.0.1:port for a guest of nr_vcpus; -1 with e (a port in
 * use, say). g->wait is --gdb-wait. */
int gdb_listen(struct gdb *g, uint16_t port, bool wait, unsigned nr_vcpus,
               struct error *e);

/* Before the vCPU first runs: tell the Host (gdb.enabled) and, for
 * --gdb-wait, ask for the stop at the guest's first instruction. syms:
 * the kernel's, for gdb's monitor commands (NULL: none; kept by the
 * caller until gdb_end). */
void gdb_prepare(struct gdb *g, struct perch_shared *shared, struct kvm_vm *vm,
                 struct guest_memory *gm, const struct kernel_symbols *syms);

/* Start the gdb thread (confined unless !sandbox). */
int gdb_start(struct gdb *g, bool sandbox, struct error *e);

/* On vCPU cpu's thread, at its stop for gdb (why: PERCH_GDB_STOP_*);
 * returns when gdb lets it go on, kills the guest, or a signal comes. */
enum gdb_verdict gdb_stopped(struct gdb *g, unsigned cpu, uint32_t why);

/* On the vCPU thread, once the run is over (status: perch's exit status):
 * a client that waits hears that the guest exited; the thread ends. */
void gdb_end(struct gdb *g, int status);

/* Close the sockets (after gdb_end, or when the run never started). */
void gdb_release(struct gdb *g);

#endif
