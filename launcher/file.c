#include "file.h"

#include <errno.h>
#include <fcntl.h>
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
