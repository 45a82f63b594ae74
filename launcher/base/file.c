/* Reading and writing the host's files: whole-file reads with type checks, temporary files and folders. */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX_BYTES (1ull << 31)

int file_read_all(const char *path, struct file_data *f, struct error *e)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO (or a tty, a device) must not wait for a
     * writer before fstat() can refuse it; a regular file ignores it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    size_t done = 0;

    f->bytes = NULL;
    f->size = 0;
    if (fd < 0)
        return fail(e, "cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fail(e, "%s is not a regular file", path);
    }
    if ((uint64_t)st.st_size > FILE_MAX_BYTES) {
        close(fd);
        return fail(e, "%s is too large (%ld bytes)", path, (long)st.st_size);
    }
    f->size = st.st_size;
    f->bytes = malloc(f->size ? f->size : 1);
    while (f->bytes && done < f->size) {
        ssize_t n = read(fd, f->bytes + done, f->size - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += n;
    }
    close(fd);
    if (!f->bytes || done != f->size) {
        file_release(f);
        return fail(e, "cannot read %s", path);
    }
    return 0;
}

void file_release(struct file_data *f)
{
    free(f->bytes);
    f->bytes = NULL;
    f->size = 0;
}

int file_write_new(const char *path, const void *bytes, size_t size,
                   unsigned mode, struct error *e)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    const uint8_t *p = bytes;
    size_t done = 0;

    if (fd < 0)
        return fail(e, "cannot create %s: %s", path, strerror(errno));
    while (done < size) {
        ssize_t n = write(fd, p + done, size - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += n;
    }
    if (done != size || close(fd) < 0) {
        fail(e, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        if (done != size)
            close(fd);
        unlink(path);
        return -1;
    }
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

int file_make_dirs(const char *dir, struct error *e)
{
    char path[PATH_MAX];
    struct stat st;

    snprintf(path, sizeof(path), "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return fail(e, "cannot create %s: %s", path, strerror(errno));
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return fail(e, "cannot create %s: %s", path, strerror(errno));
    if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return fail(e, "%s is not a folder", path);
    return 0;
}

void file_remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

bool file_in_path(const char *name)
{
    const char *path = getenv("PATH");
    char file[4096];

    while (path && *path) {
        size_t len = strcspn(path, ":");

        snprintf(file, sizeof(file), "%.*s/%s", (int)len, path, name);
        if (len && access(file, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}
