/* The tests' newc cpio reader (see cpio_read.h). */
#include "cpio_read.h"

#include <string.h>

static uint32_t hex8(const uint8_t *p, bool *ok)
{
    uint32_t v = 0;

    for (int i = 0; i < 8; i++) {
        char c = p[i];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            *ok = false;   /* the kernel accepts lower case; perch writes upper */
    }
    return v;
}

static size_t up4(size_t n)
{
    return (n + 3) / 4 * 4;
}

/* Padding up to the next multiple of 4: zeros, within the archive. */
static bool zero_padding(const uint8_t *b, size_t size, size_t from)
{
    if (up4(from) > size)
        return false;
    for (size_t i = from; i < up4(from); i++)
        if (b[i])
            return false;
    return true;
}

/* The data after a name ending at name_end; returns the next offset. */
static size_t read_data(const uint8_t *b, size_t size, size_t name_end,
                        struct cpio_read_entry *en)
{
    size_t off = up4(name_end);

    if (!zero_padding(b, size, name_end) || off + en->size > size ||
        !zero_padding(b, size, off + en->size))
        return 0;
    en->data = b + off;
    return up4(off + en->size);
}

/* Read one header at off into en; returns the next offset, or 0 if bad. */
static size_t read_entry(const uint8_t *b, size_t size, size_t off,
                         struct cpio_read_entry *en)
{
    bool ok = true;
    uint32_t f[13], namesize;

    if (off % 4 || off + 110 > size || memcmp(b + off, "070701", 6))
        return 0;
    for (int i = 0; i < 13; i++)
        f[i] = hex8(b + off + 6 + 8 * i, &ok);
    namesize = f[11];
    if (!ok || f[12] != 0 || f[7] || f[8] || namesize == 0 ||
        namesize > sizeof(en->name) || off + 110 + namesize > size ||
        b[off + 110 + namesize - 1] != 0)
        return 0;
    *en = (struct cpio_read_entry){ .ino = f[0], .mode = f[1], .uid = f[2], .gid = f[3],
                             .nlink = f[4], .mtime = f[5], .size = f[6],
                             .rdev_major = f[9], .rdev_minor = f[10] };
    memcpy(en->name, b + off + 110, namesize);
    return read_data(b, size, off + 110 + namesize, en);
}

bool cpio_read_archive(const uint8_t *b, size_t size, struct cpio_read_archive *a)
{
    size_t off = 0;

    a->n = 0;
    while (a->n < CPIO_READ_MAX_ENTRIES) {
        struct cpio_read_entry *en = &a->e[a->n];

        off = read_entry(b, size, off, en);
        if (!off)
            return false;
        if (!strcmp(en->name, "TRAILER!!!"))
            return off == size && en->size == 0;
        a->n++;
    }
    return false;
}

const struct cpio_read_entry *cpio_read_find(const struct cpio_read_archive *a,
                                             const char *name)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->e[i].name, name))
            return &a->e[i];
    return NULL;
}
