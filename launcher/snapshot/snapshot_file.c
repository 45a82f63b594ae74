/* perch's snapshot file: sections in order, each checked (snapshot_file.h). */
#include "snapshot_file.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int write_bytes(struct snapshot_writer *w, const void *p, uint64_t n, struct error *e)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        return fail(e, "cannot write the snapshot: %s", strerror(errno ? errno : EIO));
    w->bytes += n;
    return 0;
}

/* zlib's crc32 takes at most 4 GiB at a time. */
static uint32_t crc_of(const void *p, uint64_t n)
{
    const uint8_t *b = p;
    uLong crc = crc32(0, Z_NULL, 0);

    while (n) {
        uInt part = n > (1u << 30) ? 1u << 30 : (uInt)n;

        crc = crc32(crc, b, part);
        b += part;
        n -= part;
    }
    return (uint32_t)crc;
}

int snapshot_write_start(struct snapshot_writer *w, FILE *f, struct error *e)
{
    struct snapshot_file_header h = { .version = SNAPSHOT_VERSION };

    memcpy(h.magic, SNAPSHOT_MAGIC, sizeof(h.magic));
    w->f = f;
    w->bytes = 0;
    return write_bytes(w, &h, sizeof(h), e);
}

int snapshot_write_section(struct snapshot_writer *w, enum snapshot_kind kind,
                           const void *payload, uint64_t length, struct error *e)
{
    struct snapshot_section s = { .kind = kind, .crc32 = crc_of(payload, length),
                                  .length = length };

    return write_bytes(w, &s, sizeof(s), e) || write_bytes(w, payload, length, e) ? -1 : 0;
}

int snapshot_write_finish(struct snapshot_writer *w, struct error *e)
{
    if (fflush(w->f) || fsync(fileno(w->f)))
        return fail(e, "cannot write the snapshot: %s", strerror(errno));
    return 0;
}

const char *snapshot_kind_name(enum snapshot_kind kind)
{
    switch (kind) {
    case SNAPSHOT_CONFIG:   return "configuration";
    case SNAPSHOT_VCPU:     return "vCPU";
    case SNAPSHOT_XENSTORE: return "xenstore";
    case SNAPSHOT_MEMORY:   return "memory";
    case SNAPSHOT_END:      return "end";
    case SNAPSHOT_DISKS:    return "disks";
    }
    return "unknown";
}

static int read_bytes(struct snapshot_reader *r, void *p, uint64_t n, const char *what,
                      struct error *e)
{
    if (n && fread(p, 1, n, r->f) != n)
        return fail(e, "the snapshot ends inside %s at byte %" PRIu64 " (truncated?)", what,
                    r->offset);
    r->offset += n;
    return 0;
}

int snapshot_read_start(struct snapshot_reader *r, FILE *f, struct error *e)
{
    struct snapshot_file_header h;

    r->f = f;
    r->offset = 0;
    if (read_bytes(r, &h, sizeof(h), "its header", e))
        return -1;
    if (memcmp(h.magic, SNAPSHOT_MAGIC, sizeof(h.magic)))
        return fail(e, "this is not a perch snapshot");
    if (h.version != SNAPSHOT_VERSION)
        return fail(e, "the snapshot has format version %u; this perch reads version %u",
                    h.version, SNAPSHOT_VERSION);
    if (h.flags || h.reserved)
        return fail(e, "the snapshot's header has bits this perch does not know");
    return 0;
}

int snapshot_read_section(struct snapshot_reader *r, struct snapshot_section *s,
                          struct error *e)
{
    return read_bytes(r, s, sizeof(*s), "a section's header", e);
}

int snapshot_expect(const struct snapshot_reader *r, const struct snapshot_section *s,
                    enum snapshot_kind kind, uint64_t min, uint64_t max, struct error *e)
{
    uint64_t at = r->offset - sizeof(*s);

    if (s->kind != kind)
        return fail(e, "the snapshot has a section of kind %u at byte %" PRIu64
                    " where its %s belongs", s->kind, at, snapshot_kind_name(kind));
    if (s->length < min || s->length > max)
        return fail(e, "the snapshot's %s section at byte %" PRIu64 " has %" PRIu64
                    " bytes, not %" PRIu64 " to %" PRIu64, snapshot_kind_name(kind), at,
                    s->length, min, max);
    return 0;
}

int snapshot_read_expected(struct snapshot_reader *r, enum snapshot_kind kind, uint64_t min,
                           uint64_t max, struct snapshot_section *s, struct error *e)
{
    return snapshot_read_section(r, s, e) || snapshot_expect(r, s, kind, min, max, e) ? -1 : 0;
}

int snapshot_read_payload(struct snapshot_reader *r, const struct snapshot_section *s,
                          void *buf, struct error *e)
{
    uint64_t at = r->offset;

    if (read_bytes(r, buf, s->length, "a section", e))
        return -1;
    if (crc_of(buf, s->length) != s->crc32)
        return fail(e, "the snapshot's %s section at byte %" PRIu64 " is damaged (its "
                    "checksum does not match)", snapshot_kind_name((enum snapshot_kind)s->kind), at);
    return 0;
}

int snapshot_read_finish(struct snapshot_reader *r, struct error *e)
{
    if (fgetc(r->f) != EOF)
        return fail(e, "the snapshot has bytes after its end, at byte %" PRIu64, r->offset);
    return 0;
}
