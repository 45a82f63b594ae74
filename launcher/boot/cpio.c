/* The newc cpio writer behind perch's in-memory initramfs. */
#include "cpio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CPIO_MAX_ARCHIVE_BYTES (1ull << 32)

struct entry {
    const char *name;
    uint32_t mode;        /* file type and permissions */
    uint32_t nlink;
    uint32_t rdev_major, rdev_minor;
    const void *data;
    uint64_t bytes;
};

void cpio_init(struct cpio *c)
{
    memset(c, 0, sizeof(*c));
    c->next_ino = 1;   /* 0 is the trailer's */
}

static size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* Grow to hold `more` bytes; a failure marks the whole archive failed. */
static int reserve(struct cpio *c, size_t more, struct error *e)
{
    size_t cap = c->cap ? c->cap : 64 * 1024;
    uint8_t *bytes;

    if (c->size + more > CPIO_MAX_ARCHIVE_BYTES) {
        c->failed = true;
        return fail(e, "the initramfs would exceed 4 GiB");
    }
    while (cap < c->size + more)
        cap *= 2;
    if (cap == c->cap)
        return 0;
    bytes = realloc(c->bytes, cap);
    if (!bytes) {
        c->failed = true;
        return fail(e, "out of memory building the initramfs (%zu bytes)", cap);
    }
    c->bytes = bytes;
    c->cap = cap;
    return 0;
}

/* Append n bytes, then zeros up to a multiple of 4 of the archive offset
 * (the header is 110 bytes, so the name's padding depends on both). */
static void append_padded(struct cpio *c, const void *p, size_t n)
{
    if (n)   /* p may be NULL for an empty file */
        memcpy(c->bytes + c->size, p, n);
    c->size += n;
    memset(c->bytes + c->size, 0, pad4(c->size) - c->size);
    c->size = pad4(c->size);
}

static int add(struct cpio *c, const struct entry *en, uint32_t ino,
               struct error *e)
{
    char header[CPIO_HEADER_BYTES + 1];
    size_t name_bytes = strlen(en->name) + 1;

    if (en->bytes > CPIO_MAX_FILE_BYTES) {
        c->failed = true;
        return fail(e, "%s is too large for a cpio archive (%llu bytes)",
                    en->name, (unsigned long long)en->bytes);
    }
    if (reserve(c, pad4(CPIO_HEADER_BYTES + name_bytes) + pad4(en->bytes) + 4, e))
        return -1;
    snprintf(header, sizeof(header),
             "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
             ino, en->mode, 0, 0, en->nlink, 0, (uint32_t)en->bytes,
             0, 0, en->rdev_major, en->rdev_minor, (uint32_t)name_bytes, 0);
    memcpy(c->bytes + c->size, header, CPIO_HEADER_BYTES);
    c->size += CPIO_HEADER_BYTES;
    append_padded(c, en->name, name_bytes);
    append_padded(c, en->data, en->bytes);
    return 0;
}

static int add_entry(struct cpio *c, const struct entry *en, struct error *e)
{
    if (!en->name[0] || en->name[0] == '/') {
        c->failed = true;
        return fail(e, "cpio name '%s' must be relative and not empty", en->name);
    }
    /* Linux would stop unpacking there, dropping every later entry. */
    if (!strcmp(en->name, CPIO_TRAILER)) {
        c->failed = true;
        return fail(e, "cpio name '%s' is the archive's end marker", en->name);
    }
    return add(c, en, c->next_ino++, e);
}

int cpio_add_dir(struct cpio *c, const char *name, uint32_t perm, struct error *e)
{
    struct entry en = { .name = name, .mode = S_IFDIR | (perm & 07777), .nlink = 2 };

    return add_entry(c, &en, e);
}

int cpio_add_file(struct cpio *c, const char *name, uint32_t perm,
                  const void *data, uint64_t bytes, struct error *e)
{
    struct entry en = { .name = name, .mode = S_IFREG | (perm & 07777),
                        .nlink = 1, .data = data, .bytes = bytes };

    return add_entry(c, &en, e);
}

/* A symlink's data is its target, without a NUL. */
int cpio_add_symlink(struct cpio *c, const char *name, const char *target,
                     struct error *e)
{
    struct entry en = { .name = name, .mode = S_IFLNK | 0777, .nlink = 1,
                        .data = target, .bytes = strlen(target) };

    return add_entry(c, &en, e);
}

int cpio_add_char_device(struct cpio *c, const char *name, uint32_t perm,
                         uint32_t major, uint32_t minor, struct error *e)
{
    struct entry en = { .name = name, .mode = S_IFCHR | (perm & 07777),
                        .nlink = 1, .rdev_major = major, .rdev_minor = minor };

    return add_entry(c, &en, e);
}

int cpio_finish(struct cpio *c, struct error *e)
{
    struct entry trailer = { .name = CPIO_TRAILER, .nlink = 1 };

    if (c->failed)
        return fail(e, "the initramfs was not built");
    return add(c, &trailer, 0, e);
}

uint8_t *cpio_take(struct cpio *c, size_t *size)
{
    uint8_t *bytes = c->bytes;

    *size = c->size;
    cpio_init(c);
    return bytes;
}

void cpio_release(struct cpio *c)
{
    free(c->bytes);
    cpio_init(c);
}
