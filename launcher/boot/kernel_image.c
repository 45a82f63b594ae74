/*
 * From a kernel file to the ELF inside it. The facts used, from the x86
 * boot protocol (Linux's Documentation/arch/x86/boot.rst):
 *
 *   0x1f1  u8   setup_sects: 512-byte sectors of setup code after the boot
 *               sector (0 means 4); the protected-mode kernel starts at
 *               (setup_sects + 1) * 512 in the file
 *   0x202  u32  "HdrS"
 *   0x206  u16  protocol version (major.minor as two bytes)
 *   0x248  u32  payload_offset, from the start of the protected-mode kernel
 *   0x24c  u32  payload_length       (both since protocol 2.08)
 *
 * The payload is the compressed vmlinux, told apart by its first bytes.
 * Linux's build appends the uncompressed size (4 bytes, little-endian)
 * after the compressed data; it serves as a size hint, and for LZ4, whose
 * legacy frames have no end marker, as the end of the data.
 */
#include "kernel_image.h"

#include <limits.h>
#include <lz4.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define HDR_SETUP_SECTS     0x1f1
#define HDR_MAGIC           0x202
#define HDR_VERSION         0x206
#define HDR_PAYLOAD_OFFSET  0x248
#define HDR_PAYLOAD_LENGTH  0x24c
#define HDR_END             0x250     /* the header up to payload_length */
#define PROTOCOL_PAYLOAD    0x0208    /* first version with the payload fields */

#define LZ4_LEGACY_MAGIC    0x184c2102u
#define LZ4_LEGACY_BLOCK    ((size_t)8 << 20)   /* most a block decompresses to */
#define XZ_MEMLIMIT         ((uint64_t)256 << 20)
#define MIB                 ((size_t)1 << 20)

static const char no_support[] =
    "which perch cannot decompress (use a gzip, xz, zstd or lz4 kernel, "
    "or the ELF vmlinux)";

static uint32_t le16(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static bool is_elf(const uint8_t *p, size_t size)
{
    return size >= 4 && memcmp(p, "\x7f" "ELF", 4) == 0;
}

/* ---- The growing output buffer ---- */

struct out {
    uint8_t *buf;
    size_t len;      /* bytes produced */
    size_t cap;      /* bytes allocated */
    size_t limit;    /* most it may ever allocate */
    size_t max;      /* most it may hold when done: the caller's cap */
};

/* Room for `need` more bytes. Returns 0; 1 when the limit forbids it;
 * -1 with e filled when memory runs out. */
static int out_reserve(struct out *o, size_t need, struct error *e)
{
    size_t cap;
    uint8_t *p;

    if (o->cap - o->len >= need)
        return 0;
    if (need > o->limit - o->len)
        return 1;
    cap = o->cap > o->limit / 2 ? o->limit : o->cap * 2;
    if (cap < o->len + need)
        cap = o->len + need;
    p = realloc(o->buf, cap);
    if (!p)
        return fail(e, "out of memory decompressing the kernel (%zu MiB)",
                    cap / MIB);
    o->buf = p;
    o->cap = cap;
    return 0;
}

static int too_big(const struct out *o, struct error *e)
{
    if (o->max % MIB == 0)
        return fail(e, "bzImage: the kernel decompresses to more than %zu MiB",
                    o->max / MIB);
    return fail(e, "bzImage: the kernel decompresses to more than %zu bytes",
                o->max);
}

/* Make room when the buffer is full, for the streaming decoders, which are
 * allowed one byte over the cap to tell "exactly the cap" from "more". */
static int out_room(struct out *o, struct error *e)
{
    int r = out_reserve(o, 1, e);

    return r > 0 ? too_big(o, e) : r;
}

static size_t out_space(const struct out *o, size_t most)
{
    size_t n = o->cap - o->len;

    return n < most ? n : most;
}

/* ---- Decompressors: each fills o from the payload or fails ---- */

static int truncated(struct error *e, const char *fmt)
{
    return fail(e, "bzImage: the %s payload is truncated", fmt);
}

static int inflate_gzip(const uint8_t *in, size_t n, struct out *o,
                        struct error *e)
{
    z_stream z;
    int ret = 0;

    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return fail(e, "cannot start zlib's inflate");
    z.next_in = (Bytef *)in;
    z.avail_in = n;             /* n < 4 GiB: a u32 from the header */
    for (;;) {
        uInt space;
        int zr;

        if ((ret = out_room(o, e)))
            break;
        space = out_space(o, UINT_MAX);
        z.next_out = o->buf + o->len;
        z.avail_out = space;
        zr = inflate(&z, Z_NO_FLUSH);
        o->len += space - z.avail_out;
        if (zr == Z_STREAM_END)
            break;
        if (zr == Z_OK || (zr == Z_BUF_ERROR && z.avail_out == 0))
            continue;
        if (zr == Z_BUF_ERROR)
            ret = truncated(e, "gzip");
        else if (zr == Z_MEM_ERROR)
            ret = fail(e, "out of memory decompressing the kernel");
        else
            ret = fail(e, "bzImage: the gzip payload is corrupt (%s)",
                       z.msg ? z.msg : "invalid data");
        break;
    }
    inflateEnd(&z);
    return ret;
}

static int decode_xz(const uint8_t *in, size_t n, struct out *o,
                     struct error *e)
{
    lzma_stream s = LZMA_STREAM_INIT;
    int ret = 0;

    if (lzma_stream_decoder(&s, XZ_MEMLIMIT, 0) != LZMA_OK)
        return fail(e, "cannot start liblzma's xz decoder");
    s.next_in = in;
    s.avail_in = n;
    for (;;) {
        size_t space;
        lzma_ret lr;

        if ((ret = out_room(o, e)))
            break;
        space = out_space(o, SIZE_MAX);
        s.next_out = o->buf + o->len;
        s.avail_out = space;
        lr = lzma_code(&s, LZMA_FINISH);
        o->len += space - s.avail_out;
        if (lr == LZMA_STREAM_END)
            break;
        if (lr == LZMA_OK)
            continue;
        if (lr == LZMA_BUF_ERROR)
            ret = truncated(e, "xz");
        else if (lr == LZMA_MEM_ERROR)
            ret = fail(e, "out of memory decompressing the kernel");
        else if (lr == LZMA_MEMLIMIT_ERROR)
            ret = fail(e, "bzImage: the xz payload needs more than %lu MiB "
                       "to decompress", (unsigned long)(XZ_MEMLIMIT >> 20));
        else if (lr == LZMA_OPTIONS_ERROR)
            ret = fail(e, "bzImage: the xz payload uses options liblzma "
                       "does not support");
        else
            ret = fail(e, "bzImage: the xz payload is corrupt (%s)",
                       lr == LZMA_DATA_ERROR ? "invalid data" :
                       lr == LZMA_FORMAT_ERROR ? "not an xz stream" :
                       "liblzma error");
        break;
    }
    lzma_end(&s);
    return ret;
}

/* Streaming, since the frame need not declare its content size. */
static int decode_zstd(const uint8_t *in, size_t n, struct out *o,
                       struct error *e)
{
    ZSTD_DStream *d = ZSTD_createDStream();
    ZSTD_inBuffer zin = { in, n, 0 };
    int ret = 0;

    if (!d)
        return fail(e, "cannot start libzstd's decoder");
    for (;;) {
        ZSTD_outBuffer zout;
        size_t in_before = zin.pos, zr;

        if ((ret = out_room(o, e)))
            break;
        zout = (ZSTD_outBuffer){ o->buf + o->len, out_space(o, SIZE_MAX), 0 };
        zr = ZSTD_decompressStream(d, &zout, &zin);
        o->len += zout.pos;
        if (ZSTD_isError(zr)) {
            ret = fail(e, "bzImage: the zstd payload is corrupt (%s)",
                       ZSTD_getErrorName(zr));
            break;
        }
        if (zr == 0)                        /* the frame is complete */
            break;
        if (zout.pos == zout.size)          /* full: more room, go on */
            continue;
        /* Everything flushed: it wants input there is not, or is stuck. */
        if (zin.pos == zin.size || (zin.pos == in_before && zout.pos == 0)) {
            ret = truncated(e, "zstd");
            break;
        }
    }
    ZSTD_freeDStream(d);
    return ret;
}

/* Linux's LZ4: legacy frames, each a magic then blocks, each block a u32
 * compressed size then the data, decompressing to at most 8 MiB. The
 * payload ends after the last block or, as Linux writes it, after the
 * 4-byte uncompressed size that follows the last block. */
static int decode_lz4_legacy(const uint8_t *in, size_t n, struct out *o,
                             struct error *e)
{
    const size_t bound = LZ4_compressBound(LZ4_LEGACY_BLOCK);
    size_t pos = 0;
    unsigned blocks = 0;
    bool frame_start = false;

    while (pos < n) {
        uint32_t word;
        size_t room;
        int r;

        if (n - pos < 4)
            return truncated(e, "lz4");
        word = le32(in + pos);
        pos += 4;
        frame_start = word == LZ4_LEGACY_MAGIC;
        if (frame_start)
            continue;
        if (pos == n && blocks > 0) {       /* the uncompressed size */
            if (word != o->len)
                return fail(e, "bzImage: the lz4 payload is truncated or "
                            "corrupt (it gives %zu bytes, the kernel says %u)",
                            o->len, word);
            break;
        }
        if (word == 0 || word > bound)
            return fail(e, "bzImage: the lz4 payload is corrupt (block %u "
                        "of %u bytes)", blocks, word);
        if (word > n - pos)
            return truncated(e, "lz4");
        /* Into the room there is (with Linux's size hint, enough), else
         * again with room for a whole block. */
        room = out_space(o, LZ4_LEGACY_BLOCK);
        r = LZ4_decompress_safe((const char *)in + pos, (char *)o->buf + o->len,
                                word, room);
        if (r < 0 && room < LZ4_LEGACY_BLOCK) {
            if ((r = out_reserve(o, LZ4_LEGACY_BLOCK, e)))
                return r > 0 ? too_big(o, e) : r;
            r = LZ4_decompress_safe((const char *)in + pos,
                                    (char *)o->buf + o->len, word,
                                    LZ4_LEGACY_BLOCK);
        }
        if (r < 0)
            return fail(e, "bzImage: the lz4 payload is corrupt (block %u)",
                        blocks);
        o->len += r;
        if (o->len > o->max)
            return too_big(o, e);
        pos += word;
        blocks++;
    }
    if (blocks == 0 || frame_start)         /* no block, or a frame without */
        return truncated(e, "lz4");
    return 0;
}

/* ---- The bzImage ---- */

enum format { GZIP, XZ, ZSTD, LZ4, BZIP2, LZMA, LZO, UNKNOWN };

static const struct {
    const char *name;
    const char *magic;
    size_t len;
} formats[] = {
    [GZIP]  = { "gzip",  "\x1f\x8b", 2 },
    [XZ]    = { "xz",    "\xfd" "7zXZ\0", 6 },
    [ZSTD]  = { "zstd",  "\x28\xb5\x2f\xfd", 4 },
    [LZ4]   = { "lz4",   "\x02\x21\x4c\x18", 4 },
    [BZIP2] = { "bzip2", "BZh", 3 },
    [LZMA]  = { "lzma",  "\x5d\x00\x00", 3 },
    [LZO]   = { "lzo",   "\x89LZO", 4 },
};

static enum format payload_format(const uint8_t *p, size_t n)
{
    for (enum format f = 0; f < UNKNOWN; f++)
        if (n >= formats[f].len && memcmp(p, formats[f].magic, formats[f].len) == 0)
            return f;
    return UNKNOWN;
}

/* Find the payload in a bzImage, checking the header as far as it goes. */
static int bzimage_payload(const uint8_t *file, size_t size,
                           const uint8_t **payload, size_t *len,
                           struct error *e)
{
    unsigned setup_sects;
    uint32_t version, offset, length;
    uint64_t pm_start;

    if (size < HDR_END)
        return fail(e, "bzImage setup header is truncated (the file has "
                    "%zu bytes)", size);
    version = le16(file + HDR_VERSION);
    if (version < PROTOCOL_PAYLOAD)
        return fail(e, "bzImage boot protocol %u.%02u is too old (perch "
                    "needs 2.08 or later)", version >> 8, version & 0xff);
    setup_sects = file[HDR_SETUP_SECTS] ? file[HDR_SETUP_SECTS] : 4;
    pm_start = (uint64_t)(setup_sects + 1) * 512;
    offset = le32(file + HDR_PAYLOAD_OFFSET);
    length = le32(file + HDR_PAYLOAD_LENGTH);
    if (pm_start + offset + length > size)
        return fail(e, "bzImage payload (%u bytes at %#llx) lies outside "
                    "the file (%zu bytes)", length,
                    (unsigned long long)(pm_start + offset), size);
    if (length == 0)
        return fail(e, "bzImage payload is empty");
    *payload = file + pm_start + offset;
    *len = length;
    return 0;
}

static int decompress(const uint8_t *p, size_t n, size_t max_elf,
                      struct out *o, struct error *e)
{
    enum format f = payload_format(p, n);
    size_t hint = n >= 4 ? le32(p + n - 4) : 0;
    char start[16] = "";

    switch (f) {
    case BZIP2: case LZMA: case LZO:
        return fail(e, "bzImage: the kernel is compressed with %s, %s",
                    formats[f].name, no_support);
    case UNKNOWN:
        for (size_t i = 0; i < n && i < 4; i++)
            snprintf(start + 3 * i, 4, "%02x ", p[i]);
        start[strlen(start) - 1] = 0;       /* n > 0: the payload is not empty */
        return fail(e, "bzImage payload is in no known compressed format "
                    "(it starts %s)", start);
    default:
        break;
    }
    /* The streaming decoders get one byte over the cap to notice an excess;
     * LZ4 decompresses whole blocks and checks after each. */
    o->max = max_elf;
    o->limit = max_elf + (f == LZ4 ? LZ4_LEGACY_BLOCK : 1);
    /* Start at Linux's size hint when it is plausible, else a guess. */
    if (hint < n || hint > max_elf)
        hint = n > max_elf / 4 ? max_elf : n * 4;
    if (out_reserve(o, hint + 1, e))     /* hint + 1 <= limit: fits */
        return -1;

    switch (f) {
    case GZIP: return inflate_gzip(p, n, o, e);
    case XZ:   return decode_xz(p, n, o, e);
    case ZSTD: return decode_zstd(p, n, o, e);
    default:   return decode_lz4_legacy(p, n, o, e);
    }
}

int kernel_image_elf(const void *file, size_t size, size_t max_elf,
                     struct kernel_elf *elf, struct error *e)
{
    const uint8_t *f = file;
    const uint8_t *payload = NULL;
    size_t len = 0;
    struct out o = { 0 };

    memset(elf, 0, sizeof(*elf));
    if (max_elf > SIZE_MAX / 2)         /* keeps the buffer sums from wrapping */
        max_elf = SIZE_MAX / 2;
    if (is_elf(f, size)) {
        elf->bytes = f;
        elf->size = size;
        return 0;
    }
    if (size < HDR_MAGIC + 4 || memcmp(f + HDR_MAGIC, "HdrS", 4) != 0)
        return fail(e, "not an ELF kernel or a bzImage");
    if (bzimage_payload(f, size, &payload, &len, e))
        return -1;
    if (decompress(payload, len, max_elf, &o, e)) {
        free(o.buf);
        return -1;
    }
    if (o.len > max_elf) {
        free(o.buf);
        return too_big(&o, e);
    }
    if (!is_elf(o.buf, o.len)) {
        free(o.buf);
        return fail(e, "the decompressed kernel is not an ELF file");
    }
    /* Give back the unused end of the buffer, if realloc will. */
    elf->owned = realloc(o.buf, o.len);
    if (!elf->owned)
        elf->owned = o.buf;
    elf->bytes = elf->owned;
    elf->size = o.len;
    return 0;
}

void kernel_elf_release(struct kernel_elf *elf)
{
    free(elf->owned);
    memset(elf, 0, sizeof(*elf));
}
