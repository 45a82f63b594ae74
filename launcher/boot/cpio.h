/*
 * A writer of "newc" cpio archives in memory, the format Linux unpacks as
 * an initramfs (Documentation/driver-api/early-userspace/buffer-format.rst):
 * each entry is a 110-byte header ("070701" and thirteen 8-hex-digit
 * fields), the NUL-ended name, padding to 4 bytes, the data, padding to 4
 * bytes; "TRAILER!!!" ends the archive.
 *
 * Names are given without a leading '/', parents before children, and
 * never CPIO_TRAILER (where Linux stops unpacking). Every entry belongs to
 * root, with mtime 0, so an archive is the same bytes on every run. A failed add leaves the archive unusable (cpio_finish fails).
 */
#ifndef PERCH_CPIO_H
#define PERCH_CPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

#define CPIO_HEADER_BYTES 110
#define CPIO_TRAILER "TRAILER!!!"   /* the last entry's name: no entry may have it */
#define CPIO_MAX_FILE_BYTES 0xffffffffull   /* 8 hex digits */

struct cpio {
    uint8_t *bytes;
    size_t size, cap;
    uint32_t next_ino;
    bool failed;
};

void cpio_init(struct cpio *c);
int cpio_add_dir(struct cpio *c, const char *name, uint32_t perm, struct error *e);
int cpio_add_file(struct cpio *c, const char *name, uint32_t perm,
                  const void *data, uint64_t bytes, struct error *e);
int cpio_add_symlink(struct cpio *c, const char *name, const char *target,
                     struct error *e);
int cpio_add_char_device(struct cpio *c, const char *name, uint32_t perm,
                         uint32_t major, uint32_t minor, struct error *e);
/* Append the trailer. Returns 0, or -1 if any add failed. */
int cpio_finish(struct cpio *c, struct error *e);
/* Hand the archive's memory to the caller (to free()), emptying c. */
uint8_t *cpio_take(struct cpio *c, size_t *size);
void cpio_release(struct cpio *c);

#endif
