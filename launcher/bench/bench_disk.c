/*
 * `perch bench`'s disk image: one sparse raw file in DIR, emptied before
 * every side's run so each starts from the same file, removed at the end.
 * DIR and not $TMPDIR: a tmpfs (many systems' /tmp) is RAM, not a disk;
 * the table names the file system all the same.
 */
#include "bench_set.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>


#define PROBE_BYTES 4096

/* The file system's name, from statfs' magic number: "tmpfs" tells a
 * reader of the table that the "disk" was RAM. */
static void fs_name(const char *path, char *out, size_t size)
{
    static const struct { unsigned long magic; const char *name; } known[] = {
        { EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "xfs" },
        { BTRFS_SUPER_MAGIC, "btrfs" }, { TMPFS_MAGIC, "tmpfs" },
        { NFS_SUPER_MAGIC, "nfs" }, { OVERLAYFS_SUPER_MAGIC, "overlayfs" },
        { F2FS_SUPER_MAGIC, "f2fs" },
    };
    struct statfs st;

    if (statfs(path, &st) < 0) {
        snprintf(out, size, "unknown");
        return;
    }
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if ((unsigned long)st.f_type == known[i].magic) {
            snprintf(out, size, "%s", known[i].name);
            return;
        }
    snprintf(out, size, "fs 0x%lx", (unsigned long)st.f_type);
}

/* One aligned block written with O_DIRECT, as perchbench will natively:
 * a file system that refuses it fails here, not after the guest runs. */
static int probe_direct(const char *path, struct error *e)
{
    void *block;
    int fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
    ssize_t n = -1;

    if (fd < 0)
        return fail(e, "the disk group needs O_DIRECT, which %s refuses (%s): "
                       "give --out a folder on a disk", path, strerror(errno));
    if (posix_memalign(&block, PROBE_BYTES, PROBE_BYTES) == 0) {
        memset(block, 0, PROBE_BYTES);
        n = pwrite(fd, block, PROBE_BYTES, 0);
        free(block);
    }
    close(fd);
    if (n != PROBE_BYTES)
        return fail(e, "the disk group needs O_DIRECT, which %s refuses (%s): "
                       "give --out a folder on a disk", path,
                    n < 0 ? strerror(errno) : "a short write");
    return 0;
}

int bench_disk_fresh(const struct bench_set *set, struct error *e)
{
    int fd = open(set->disk_image, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int rc = 0;

    if (fd < 0)
        return fail(e, "cannot create %s: %s", set->disk_image, strerror(errno));
    if (ftruncate(fd, (off_t)BENCH_DISK_MIB << 20) < 0)
        rc = fail(e, "cannot size %s: %s", set->disk_image, strerror(errno));
    close(fd);
    return rc;
}

int bench_disk_create(struct bench_set *set, struct error *e)
{
    if (snprintf(set->disk_image, sizeof(set->disk_image), "%s/%s",
                 set->out_dir, BENCH_DISK_NAME) >= (int)sizeof(set->disk_image)) {
        set->disk_image[0] = '\0';
        return fail(e, "the path of --out %s is too long", set->out_dir);
    }
    if (bench_disk_fresh(set, e)) {
        set->disk_image[0] = '\0';
        return -1;
    }
    fs_name(set->disk_image, set->disk_fs, sizeof(set->disk_fs));
    return probe_direct(set->disk_image, e);
}

void bench_disk_remove(struct bench_set *set)
{
    if (set->disk_image[0])
        unlink(set->disk_image);
    set->disk_image[0] = '\0';
}
