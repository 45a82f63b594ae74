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

#include "cli.h"
#include "error.h"

#define DISK_SECTOR_BYTES 512

struct disk {
    const char *path;
    int fd;
    bool readonly;
    uint64_t sectors;
    uint64_t dev, ino;   /* the file, to refuse it twice */
};

/* Open and check every disk of o; on failure none stays open. */
int disks_open(const struct options *o, struct disk disks[MAX_DISKS], struct error *e);
void disks_close(struct disk *disks, unsigned n);

/* "xvda", "xvdb", ...: the guest's name for disk i. */
void disk_name(unsigned i, char out[8]);

#endif
