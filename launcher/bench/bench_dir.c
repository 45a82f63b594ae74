/* `perch bench`'s temporary folder: the embedded perchbench to run
 * natively, busybox for the native work group, QEMU's initrd; one folder,
 * so one removal cleans up whatever the run made. */
#include "bench_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../boot/default_guest.h"
#include "../base/file.h"
#include "../boot/initramfs.h"

static int path_in(const struct bench_dir *d, const char *name, char *out,
                   struct error *e)
{
    if (snprintf(out, PATH_MAX, "%s/%s", d->path, name) >= PATH_MAX)
        return fail(e, "the path of the temporary folder %s is too long",
                    d->path);
    return 0;
}

int bench_dir_file(const struct bench_dir *d, const char *name,
                   const void *bytes, size_t size, char *path,
                   struct error *e)
{
    if (path_in(d, name, path, e))
        return -1;
    return file_write_new(path, bytes, size, 0700, e);
}

int bench_dir_create(struct bench_dir *d, struct error *e)
{
    const char *tmp = getenv("TMPDIR");
    const uint8_t *bytes;
    size_t len;

    memset(d, 0, sizeof(*d));
    initramfs_bench_image(&bytes, &len);
    if (!bytes || !len)
        return fail(e, "this perch carries no perchbench");
    snprintf(d->path, sizeof(d->path), "%s/perch-bench-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d->path)) {
        fail(e, "cannot create %s: %s", d->path, strerror(errno));
        d->path[0] = '\0';
        return -1;
    }
    return bench_dir_file(d, "perchbench", bytes, len, d->exe, e);
}

static int link_one(const char *bin, const char *name, const char *target,
                    struct error *e)
{
    char path[PATH_MAX];

    if (snprintf(path, sizeof(path), "%s/%s", bin, name) >= PATH_MAX)
        return fail(e, "the path %s/%s is too long", bin, name);
    if (symlink(target, path) < 0)
        return fail(e, "cannot link %s: %s", path, strerror(errno));
    return 0;
}

/* The guest's /bin, natively: busybox (the cached file itself, through a
 * link) and a link for each applet perch's initramfs links. */
static int link_applets(const char *bin, const char *busybox, struct error *e)
{
    if (link_one(bin, "busybox", busybox, e))
        return -1;
    for (int i = 0; initramfs_applets[i]; i++)
        if (link_one(bin, initramfs_applets[i], "busybox", e))
            return -1;
    return 0;
}

int bench_dir_busybox(struct bench_dir *d, struct error *e)
{
    static struct default_guest g;   /* large: four paths */
    struct error inner;

    if (default_guest_open(&g, &inner) || default_guest_busybox(&g, &inner))
        return fail(e, "the work and smp groups need busybox: %s", inner.msg);
    if (path_in(d, "bin", d->bin, e) || path_in(d, "work", d->work, e))
        return -1;
    if (mkdir(d->bin, 0700) < 0 || mkdir(d->work, 0700) < 0)
        return fail(e, "cannot create folders in %s: %s", d->path,
                    strerror(errno));
    return link_applets(d->bin, g.busybox, e);
}

void bench_dir_remove(struct bench_dir *d)
{
    if (d->path[0])
        file_remove_tree(d->path);
    d->path[0] = '\0';
}
