/*
 * A reader of newc cpio archives for the tests (tests/unit/cpio_read.c),
 * written from the format's description, not from perch's writer
 * (launcher/boot/cpio.c), so that archives the writer makes can be parsed back
 * and checked: by the unit tests and by the cpio fuzz harness.
 */
#ifndef PERCH_TESTS_CPIO_READ_H
#define PERCH_TESTS_CPIO_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPIO_READ_MAX_ENTRIES 256
#define CPIO_READ_NAME_MAX    256     /* with its NUL */

/* One entry as read back. */
struct cpio_read_entry {
    char name[CPIO_READ_NAME_MAX];
    uint32_t ino, mode, uid, gid, nlink, mtime, rdev_major, rdev_minor;
    const uint8_t *data;
    uint32_t size;
};

struct cpio_read_archive {
    struct cpio_read_entry e[CPIO_READ_MAX_ENTRIES];
    int n;                 /* entries before the trailer */
};

/* The whole archive, which must end with the trailer exactly at size, its
 * headers in perch's upper-case hex, its padding zeros. */
bool cpio_read_archive(const uint8_t *b, size_t size, struct cpio_read_archive *a);

/* The first entry called name, or NULL. */
const struct cpio_read_entry *cpio_read_find(const struct cpio_read_archive *a,
                                             const char *name);

#endif
