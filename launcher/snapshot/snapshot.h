/*
 * A saved guest, whole (docs/snapshot.md): what perch needs to run it on
 * again, as `perch save` writes it and `perch restore` reads it. In the
 * file, in this order: the configuration, its disks, each vCPU's KVM
 * state, the xenstore server's state, machine memory (snapshot_memory.h),
 * the end.
 *
 * Reading checks the form of every section as it comes; the reader's
 * caller checks the configuration against itself (its build of the Host,
 * its CPU) before memory is read, and each vCPU's state against what
 * perch put there (kvm_state.h) before any vCPU runs.
 */
#ifndef PERCH_SNAPSHOT_H
#define PERCH_SNAPSHOT_H

#include <stdint.h>
#include <stdio.h>

#include "../base/error.h"
#include "../vm/guest_memory.h"
#include "../vm/kvm_state.h"

/* xenstore's state is small: a few hundred nodes at most. */
#define SNAPSHOT_XENSTORE_MAX (16u << 20)

/* The network card's link, as --net gave it: opened anew by a restore
 * (its connections are not saved: the guest's are reset). */
#define SNAPSHOT_NET_FORWARDS 16
enum snapshot_net_kind { SNAPSHOT_NET_NONE, SNAPSHOT_NET_USER, SNAPSHOT_NET_TAP };
struct snapshot_net {
    uint32_t kind;                        /* enum snapshot_net_kind */
    uint32_t nr_fwd;                      /* user: forwarded ports */
    struct {
        uint16_t host_port, guest_port;   /* both non-zero */
        uint32_t udp;                     /* 0 or 1 */
    } fwd[SNAPSHOT_NET_FORWARDS];
    char tap[16];                         /* tap: its name, NUL-terminated */
};

struct snapshot_config {
    uint64_t nr_pages;        /* the guest's memory */
    uint64_t private_frames;  /* perch's, below the guest's */
    uint32_t nr_cpus;
    uint32_t cpl3_events;     /* 1: the hole was built for CPL3 events */
    uint32_t tsc_khz;         /* the vCPUs' TSC rate */
    uint32_t images_crc;      /* CRC-32 of the Host's and the Switcher's images */
    uint64_t console_pfn;     /* the guest's console page */
    uint64_t store_pfn;       /* its xenstore page */
    uint64_t saved_at_ns;     /* the wall clock at the save */
    uint32_t tsc_native;      /* 1: the guest read the machine's TSC (run/guest_clock.h) */
    uint32_t nr_disks;        /* 0 to SNAPSHOT_DISKS_MAX */
    uint64_t tsc_at_save;     /* the TSC the guest read, at the save */
    struct snapshot_net net;
};

/* A disk the guest had: which file, and as it was once the save had
 * flushed it, so a restore can tell it is still the same. */
#define SNAPSHOT_DISKS_MAX 8
#define SNAPSHOT_DISK_PATH_MAX 4096
struct snapshot_disk {
    char path[SNAPSHOT_DISK_PATH_MAX];   /* absolute, NUL-terminated */
    uint64_t bytes;
    uint64_t mtime_ns;
    uint32_t readonly;                   /* 0 or 1 */
    uint32_t reserved;                   /* 0 */
};

struct snapshot {
    struct snapshot_config config;
    struct snapshot_disk disks[SNAPSHOT_DISKS_MAX];   /* config.nr_disks of them */
    struct kvm_vcpu_state *vcpus;   /* config.nr_cpus of them */
    uint8_t *xenstore;
    size_t xenstore_len;
    uint64_t frames_stored;         /* frames of memory the file holds */
};

/* Write s and the memory of gm to f (its disk synced). */
int snapshot_write(FILE *f, const struct snapshot *s, const struct guest_memory *gm,
                   struct error *e);

/* Once the configuration is read: check it, and give the memory (all
 * zero, of its size) to load into. 0, or -1 with e. */
typedef int snapshot_prepare_fn(void *arg, const struct snapshot_config *c,
                                struct guest_memory **gm, struct error *e);

/* Read a whole snapshot from f into s and the memory prepare gives. 0, or
 * -1 with e saying what is wrong (s is released then). */
int snapshot_read(FILE *f, struct snapshot *s, snapshot_prepare_fn *prepare, void *arg,
                  struct error *e);

void snapshot_release(struct snapshot *s);

#endif
