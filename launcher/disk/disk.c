/* The disks of --disk: opened, checked and locked before the guest starts. */
#include "disk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void disk_name(unsigned i, char out[8])
{
    snprintf(out, 8, "xvd%c", 'a' + i);
}

/* Why a file cannot be a disk, in the user's words. */
static int open_error(const struct disk_option *o, int err, struct error *e)
{
    if (err == EACCES || err == EROFS || err == EPERM)
        return fail(e, "--disk %s: cannot open it for writing (%s); add ,ro "
                       "to attach it read-only", o->path, strerror(err));
    return fail(e, "--disk %s: %s", o->path, strerror(err));
}

/* The same file under two names would be two disks writing one file. */
static int check_not_twice(const struct disk *disks, unsigned i, struct error *e)
{
    for (unsigned j = 0; j < i; j++)
        if (disks[j].dev == disks[i].dev && disks[j].ino == disks[i].ino)
            return fail(e, "--disk %s and --disk %s are the same file", disks[j].path,
                        disks[i].path);
    return 0;
}

/* O_NONBLOCK: a FIFO must not stall the open. The lock is shared for a
 * read-only disk, exclusive for a writable one. */
static int open_one(struct disk *disks, unsigned i, const struct disk_option *o,
                    struct error *e)
{
    struct disk *d = &disks[i];
    int fd = open(o->path, (o->readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NONBLOCK);
    struct stat st;

    if (fd < 0 && errno == EISDIR)
        return fail(e, "--disk %s is a directory", o->path);
    if (fd < 0)
        return open_error(o, errno, e);
    *d = (struct disk){ .path = o->path, .fd = fd, .readonly = o->readonly };
    if (fstat(fd, &st) < 0)
        return fail(e, "--disk %s: %s", o->path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return fail(e, "--disk %s is not a regular file", o->path);
    if (st.st_size == 0 || st.st_size % DISK_SECTOR_BYTES)
        return fail(e, "--disk %s: its size (%lld bytes) is not a positive "
                       "multiple of %d", o->path, (long long)st.st_size,
                    DISK_SECTOR_BYTES);
    d->dev = st.st_dev;
    d->ino = st.st_ino;
    if (check_not_twice(disks, i, e))
        return -1;
    if (flock(fd, (o->readonly ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0)
        return fail(e, "--disk %s is in use by another program (%s)", o->path,
                    strerror(errno));
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
        return fail(e, "--disk %s: %s", o->path, strerror(errno));
    d->sectors = st.st_size / DISK_SECTOR_BYTES;
    return 0;
}

int disks_open(const struct disk_option *opts, unsigned n, struct disk disks[MAX_DISKS],
               struct error *e)
{
    for (unsigned i = 0; i < n && i < MAX_DISKS; i++) {
        disks[i].fd = -1;
        if (open_one(disks, i, &opts[i], e)) {
            disks_close(disks, i + 1);
            return -1;
        }
    }
    return 0;
}

void disks_close(struct disk *disks, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (disks[i].fd >= 0) {
            close(disks[i].fd);
            disks[i].fd = -1;
        }
}
