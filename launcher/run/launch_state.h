/*
 * The launch's state, shared by launch.c (a new guest, and the run) and
 * restore.c (a saved one): what one `perch run` or `perch restore` holds.
 */
#ifndef PERCH_LAUNCH_STATE_H
#define PERCH_LAUNCH_STATE_H

#include <pthread.h>
#include <stdbool.h>

#include "../base/file.h"
#include "../boot/default_guest.h"
#include "../boot/domain.h"
#include "../boot/pv_image.h"
#include "../disk/disk.h"
#include "../gdb/gdb.h"
#include "../net/net_link.h"
#include "../snapshot/snapshot.h"
#include "../symbols/kernel_symbols.h"
#include "../vm/hole.h"
#include "../vm/kvm.h"
#include "devices.h"
#include "launch.h"
#include "save.h"
#include "vcpu_loop.h"

struct launch {
    struct file_data kernel, initrd;
    struct pv_image image;
    struct guest_memory gm;
    struct hole hole;
    struct perch_cpu cpu;         /* what the Host is told of the CPU */
    struct domain_layout layout;
    struct kvm_vm vm;
    int doorbell_fd;          /* the console thread's */
    int device_doorbell_fd;   /* the device thread's (lines.h) */
    struct disk disks[MAX_DISKS];  /* --disk, opened before the VM */
    unsigned nr_disks;
    struct net_link *link;        /* --net's, opened before the VM; NULL: none */
    struct devices *devices;      /* xenstore and the back ends (always, once started) */
    struct default_guest guest;   /* perch's cache, when used */
    const struct launch_io *io;   /* NULL: a person at the console */
    struct run_stats *stats;      /* the running guest's exit counts */
    /* The kernel's symbols, read once by symbols_reader while the guest
     * boots (for insn_patch, the crash line, --stats and gdb's monitor);
     * use them only after wait_for_symbols(). */
    const char *kernel_path;
    struct kernel_symbols syms;
    bool syms_named;              /* symbols were found */
    bool reading_symbols;         /* symbols_reader is still to be joined */
    pthread_t symbols_reader;
    struct gdb gdb;               /* --gdb's server, listening before the VM */
    bool has_gdb;
    unsigned nr_cpus;             /* --cpus */
    const char *name;             /* --name, for the control socket */
    struct save_source save;      /* what `perch save` needs of the run */
    bool restored;                /* the guest came from a snapshot ... */
    struct snapshot snap;         /* ... this one (its xenstore, its vCPUs) */
};

/* `perch restore`: the guest of the snapshot at o->restore, in l's memory
 * and VM, checked whole before any vCPU runs. 0; else the exit status, with
 * e: STATUS_USAGE for a snapshot refused (damaged, hostile, another
 * perch's or another CPU's), STATUS_ERROR for perch's own failure. */
int restore_vm(struct launch *l, const struct options *o, struct error *e);

#endif
