/*
 * The device thread: xenstore, the disks and the network card, the back
 * ends that come with --disk and --net. It waits on the device doorbell
 * (the guest sent on a line, lines.h), on the disks' I/O completions and
 * on the network link's descriptors and timers (net_link.h), serves
 * xenstore's ring, moves each device through its xenbus states (vbd.h,
 * vif.h) and its requests through the data paths (blkif.h, netif.h). A
 * guest that breaks one of those rings is stopped, as the console thread
 * stops one that breaks its own.
 */
#ifndef PERCH_LAUNCHER_DEVICES_H
#define PERCH_LAUNCHER_DEVICES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../vm/confined_thread.h"
#include "../disk/disk.h"
#include "../base/error.h"
#include "../base/hold.h"
#include "../xenbus/grant.h"
#include "../vm/guest_memory.h"
#include "../vm/kvm.h"
#include "../net/net_link.h"
#include "../disk/vbd.h"
#include "../net/vif.h"
#include "../xenbus/xenstore.h"

/* The domain id the guest has in xenstore (Xen's first domU's). */
#define DEVICES_GUEST_DOMID 1

struct devices_config {
    struct perch_shared *shared;
    struct kvm_vm *vm;
    struct guest_memory *gm;
    int doorbell_fd;                 /* the device doorbell's eventfd */
    volatile struct xenstore_domain_interface *store_ring;
    uint64_t grant_first_mfn;
    uint32_t grant_nr_frames;
    const struct disk *disks;
    unsigned nr_disks;
    struct net_link *link;           /* --net's, opened; NULL: no card */
    uint64_t memory_kib;
    volatile uint8_t *vcpu_immediate_exit;   /* to stop the guest */
    bool sandbox;
    /* `perch save` holds the thread still between two passes; the asker
     * wakes it with devices_wake (NULL: never). */
    struct hold *hold;
    /* A saved guest's xenstore (xenstore_save's bytes): the store and its
     * ring go on from there (`perch restore`). NULL: a new guest's. */
    const uint8_t *saved_store;
    size_t saved_store_len;
};

struct devices {
    struct devices_config cfg;
    struct xenstore *xs;             /* large: on the heap */
    struct grant_table gt;
    struct backend_env env;
    struct vbd vbds[MAX_DISKS];
    struct vif vif;                  /* when there is a link */
    struct confined_thread thread;
    pthread_t vcpu_thread;           /* kicked with SIGUSR1 to stop the guest */
    int stop_fd;
    int ask_fd;                      /* a poweroff or memory target asked from outside */
    atomic_int poweroff_asked;
    atomic_uint_fast64_t memory_asked_kib;   /* 0: none */
    bool running;
    atomic_int broken;               /* the guest broke a ring: problem says how */
    char problem[256];
};

/* Set up xenstore, the grants and every device's nodes, then start the
 * thread. 0, or -1 with e. */
int devices_start(struct devices *d, const struct devices_config *cfg, struct error *e);

/* Ask the guest to power off as `xl shutdown` does (control/shutdown =
 * poweroff, written by the device thread): any thread may call it. 0, or
 * -1 when the device thread is not running. */
int devices_ask_poweroff(struct devices *d);

/* Set the guest's memory target as `xl mem-set` does (memory/target, in
 * KiB, written by the device thread; the guest's balloon driver watches
 * it): any thread may call it. 0, or -1 when the device thread is not
 * running. */
int devices_ask_memory(struct devices *d, uint64_t mib);

/* Wake the thread to look at what it was asked (a hold). */
void devices_wake(struct devices *d);

/* Stop the thread, finish the disks' I/O, give everything back (the link
 * stays the caller's to close). */
void devices_stop(struct devices *d);

/* STATUS_GUEST_STOPPED with e if the guest broke a ring, else -1. */
int devices_verdict(struct devices *d, struct error *e);

#endif
