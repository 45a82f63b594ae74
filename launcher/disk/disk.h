/*
 * The disks of --disk, opened and checked before the guest starts: each a
 * raw image whose size is a whole number of 512-byte sectors, writable
 * unless given ",ro", and locked (as QEMU locks its images) so two perch
 * runs cannot write one file at once.
 */
#ifndef PERCH_LAUNCHER_DISK_H
#define PERCH_LAUNCHER_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"

#define DISK_SECTOR_BYTES 512

/* Disks are xvda, xvdb, ... in the order given. */
#define MAX_DISKS 8

/* One --disk FILE[,ro] as the command line gave it. */
struct disk_option {
    const char *path;
    bool readonly;             /* FILE,ro */
};

struct disk {
    const char *path;
    int fd;
    bool readonly;
    uint64_t sectors;
    uint64_t dev, ino;   /* the file, to refuse it twice */
};

/* Open and check the n disks of opts; on failure none stays open. */
int disks_open(const struct disk_option *opts, unsigned n, struct disk disks[MAX_DISKS],
               struct error *e);
void disks_close(struct disk *disks, unsigned n);

/* "xvda", "xvdb", ...: the guest's name for disk i. */
void disk_name(unsigned i, char out[8]);

#endif
