/*
 * Unit tests of kernel_image_elf(): from a kernel file to its ELF. Each
 * case builds a small synthetic bzImage (a setup header with the boot
 * protocol fields perch reads, the protected-mode part at (setup_sects + 1)
 * * 512, a payload in it) whose payload is a test ELF compressed here with
 * each library, as Linux's build does (with the 4-byte uncompressed size
 * appended), and checks the ELF that comes out byte for byte, or the one
 * line that says why there is none.
 *
 * Every call reads a heap buffer of exactly the file's size, so that with
 * AddressSanitizer any read past its end is caught.
 */
#include <elf.h>
#include <lz4.h>
#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "check.h"
#include "../../launcher/boot/kernel_image.h"

#define ELF_SIZE      20000            /* the usual test ELF */
#define SETUP_SECTS   3
#define PM_START      ((SETUP_SECTS + 1) * 512)
#define PAYLOAD_OFF   0x1a4            /* from PM_START, as in real bzImages */
#define LZ4_MAGIC     0x184c2102u
#define LZ4_BLOCK     (8u << 20)

struct buf {
    uint8_t *p;
    size_t n;
};

static struct error err;
static struct kernel_elf elf;

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = v;
    p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

/* An ELF64 header and a body that compresses, but not to nothing. */
static struct buf make_elf(size_t size)
{
    struct buf b = { malloc(size), size };
    Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64,
                      .e_version = EV_CURRENT, .e_ehsize = sizeof(eh) };
    uint32_t x = 12345;

    if (!b.p || size < sizeof(eh))
        abort();
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    for (size_t i = 0; i < size; i++) {
        x = x * 1103515245 + 12345;
        b.p[i] = (i / 64) % 3 ? (uint8_t)"perch kernel "[i % 13] : (uint8_t)(x >> 24);
    }
    memcpy(b.p, &eh, sizeof(eh));
    return b;
}

static void append(struct buf *b, const void *p, size_t n)
{
    b->p = realloc(b->p, b->n + n);
    if (!b->p)
        abort();
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void append32(struct buf *b, uint32_t v)
{
    uint8_t le[4];

    put32(le, v);
    append(b, le, 4);
}

/* ---- Compressing, as Linux's build does (sizes appended) ---- */

static struct buf gzip(struct buf in)
{
    z_stream z = { 0 };
    struct buf out;

    if (deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    out.n = deflateBound(&z, in.n) + 32;
    out.p = malloc(out.n);
    z.next_in = in.p;
    z.avail_in = in.n;
    z.next_out = out.p;
    z.avail_out = out.n;
    if (!out.p || deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    out.n = z.total_out;
    deflateEnd(&z);
    append32(&out, in.n);
    return out;
}

static struct buf xz(struct buf in)
{
    lzma_options_lzma opt;
    lzma_filter filters[] = {
        { .id = LZMA_FILTER_X86 },
        { .id = LZMA_FILTER_LZMA2, .options = &opt },
        { .id = LZMA_VLI_UNKNOWN },
    };
    size_t cap = lzma_stream_buffer_bound(in.n);
    struct buf out = { malloc(cap), 0 };

    if (!out.p || lzma_lzma_preset(&opt, 6))
        abort();
    opt.dict_size = 1 << 16;   /* Linux's is 32 MiB: too slow to set up here */
    if (lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL, in.p, in.n,
                                  out.p, &out.n, cap) != LZMA_OK)
        abort();
    append32(&out, in.n);
    return out;
}

/* With a checksum, as the zstd tool writes by default; with or without the
 * content size in the frame header. */
static struct buf zstd(struct buf in, int content_size)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    size_t cap = ZSTD_compressBound(in.n);
    struct buf out = { malloc(cap), 0 };

    if (!c || !out.p)
        abort();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size);
    out.n = ZSTD_compress2(c, out.p, cap, in.p, in.n);
    if (ZSTD_isError(out.n))
        abort();
    ZSTD_freeCCtx(c);
    append32(&out, in.n);
    return out;
}

/* LZ4 legacy frames: `block` bytes a block, a new frame magic every
 * `per_frame` blocks, Linux's uncompressed size at the end if `sized`. */
static struct buf lz4(struct buf in, size_t block, unsigned per_frame, int sized)
{
    struct buf out = { NULL, 0 };
    char *tmp = malloc(LZ4_compressBound(block));
    unsigned n = 0;

    if (!tmp)
        abort();
    for (size_t pos = 0; pos < in.n; pos += block, n++) {
        size_t len = in.n - pos < block ? in.n - pos : block;
        int c = LZ4_compress_default((const char *)in.p + pos, tmp, len,
                                     LZ4_compressBound(block));

        if (c <= 0)
            abort();
        if (n % per_frame == 0)
            append32(&out, LZ4_MAGIC);
        append32(&out, c);
        append(&out, tmp, c);
    }
    free(tmp);
    if (sized)
        append32(&out, in.n);
    return out;
}

/* ---- Building the bzImage ---- */

struct hdr {
    uint8_t setup_sects;
    uint16_t version;
    uint32_t payload_offset;
    uint32_t payload_length;
};

static struct hdr usual_hdr(size_t payload_len)
{
    return (struct hdr){ SETUP_SECTS, 0x020f, PAYLOAD_OFF, payload_len };
}

/* The file: boot sector and setup with the header, the protected-mode part
 * with the payload at the offset the header gives, and bytes after it (as
 * in real bzImages) that are not part of the payload. */
static struct buf bzimage_hdr(struct buf payload, struct hdr h)
{
    size_t pm = ((h.setup_sects ? h.setup_sects : 4) + 1) * 512;
    struct buf b = { NULL, pm + PAYLOAD_OFF + payload.n + 64 };

    b.p = malloc(b.n);
    if (!b.p)
        abort();
    memset(b.p, 0xcc, b.n);
    memset(b.p, 0, 0x300);
    b.p[0x1f1] = h.setup_sects;
    put16(b.p + 0x1fe, 0xaa55);
    memcpy(b.p + 0x202, "HdrS", 4);
    put16(b.p + 0x206, h.version);
    put32(b.p + 0x248, h.payload_offset);
    put32(b.p + 0x24c, h.payload_length);
    memcpy(b.p + pm + PAYLOAD_OFF, payload.p, payload.n);
    return b;
}

static struct buf bzimage(struct buf payload)
{
    return bzimage_hdr(payload, usual_hdr(payload.n));
}

/* Run kernel_image_elf on an exact-size heap copy of the first n bytes. */
static int convert_n(struct buf file, size_t n, size_t max)
{
    uint8_t *copy = malloc(n ? n : 1);
    int r;

    memcpy(copy, file.p, n);
    r = kernel_image_elf(copy, n, max, &elf, &err);
    if (r == 0 && !elf.owned && elf.bytes != copy)
        r = 99;         /* neither copied nor pointing into the file */
    kernel_elf_release(&elf);
    free(copy);
    return r;
}

static int convert(struct buf file)
{
    return convert_n(file, file.n, KERNEL_IMAGE_MAX_ELF);
}

/* Decompress and compare with the ELF it was made from. */
static int converts_to(struct buf file, struct buf want, size_t max)
{
    int ok;

    if (kernel_image_elf(file.p, file.n, max, &elf, &err))
        return 0;
    ok = elf.owned && elf.bytes == elf.owned && elf.size == want.n &&
         memcmp(elf.bytes, want.p, want.n) == 0;
    kernel_elf_release(&elf);
    return ok && !elf.bytes && !elf.owned;
}

/* The same, but the file is an exact-size heap block (bzimage() adds 64
 * bytes after the payload, so cut those and shift the payload to the end). */
static int converts_exact(struct buf payload, struct buf want)
{
    size_t pm = (SETUP_SECTS + 1) * 512;
    struct buf b = bzimage(payload);
    int ok;

    b.n = pm + PAYLOAD_OFF + payload.n;   /* the payload ends the file */
    b.p = realloc(b.p, b.n);
    ok = converts_to(b, want, KERNEL_IMAGE_MAX_ELF);
    free(b.p);
    return ok;
}

static void release(struct buf *a, struct buf *b, struct buf *c)
{
    free(a->p);
    free(b->p);
    free(c->p);
}

/* ---- What works ---- */

static void elf_is_used_in_place(void)
{
    struct buf e = make_elf(ELF_SIZE);

    CHECK(kernel_image_elf(e.p, e.n, KERNEL_IMAGE_MAX_ELF, &elf, &err) == 0);
    CHECK(elf.bytes == e.p && elf.size == e.n && elf.owned == NULL);
    kernel_elf_release(&elf);
    CHECK(!elf.bytes && !elf.size);
    free(e.p);
}

static void gzip_kernel(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f = bzimage(z);

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    CHECK(converts_exact(z, e));
    release(&e, &z, &f);
}

static void xz_kernel(void)
{
    struct buf e = make_elf(ELF_SIZE), z = xz(e), f = bzimage(z);

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    CHECK(converts_exact(z, e));
    release(&e, &z, &f);
}

static void zstd_kernel_with_content_size(void)
{
    struct buf e = make_elf(ELF_SIZE), z = zstd(e, 1), f = bzimage(z);

    CHECK(ZSTD_getFrameContentSize(z.p, z.n) == ELF_SIZE);
    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    CHECK(converts_exact(z, e));
    release(&e, &z, &f);
}

static void zstd_kernel_without_content_size(void)
{
    struct buf e = make_elf(ELF_SIZE), z = zstd(e, 0), f = bzimage(z);

    CHECK(ZSTD_getFrameContentSize(z.p, z.n) == ZSTD_CONTENTSIZE_UNKNOWN);
    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    CHECK(converts_exact(z, e));
    release(&e, &z, &f);
}

static void lz4_kernel_several_blocks(void)
{
    struct buf e = make_elf(ELF_SIZE), z = lz4(e, 4096, 100, 1),
               f = bzimage(z);

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    CHECK(converts_exact(z, e));
    release(&e, &z, &f);
}

static void lz4_kernel_without_size(void)
{
    struct buf e = make_elf(ELF_SIZE), z = lz4(e, 4096, 100, 0),
               f = bzimage(z);

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    CHECK(converts_exact(z, e));
    release(&e, &z, &f);
}

static void lz4_kernel_several_frames(void)
{
    struct buf e = make_elf(ELF_SIZE), z = lz4(e, 3000, 2, 1),
               f = bzimage(z);

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    release(&e, &z, &f);
}

/* Full 8 MiB blocks, as Linux writes them, and a short last one. */
static void lz4_kernel_full_blocks(void)
{
    struct buf e = make_elf(2 * LZ4_BLOCK + 12345), z = lz4(e, LZ4_BLOCK, 100, 1),
               f = bzimage(z);

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    release(&e, &z, &f);
}

static void setup_sects_zero_means_four(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f;
    struct hdr h = usual_hdr(z.n);

    h.setup_sects = 0;
    f = bzimage_hdr(z, h);
    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    release(&e, &z, &f);
}

static void protocol_2_08_accepted(void)
{
    struct buf e = make_elf(ELF_SIZE), z = xz(e), f;
    struct hdr h = usual_hdr(z.n);

    h.version = 0x0208;
    f = bzimage_hdr(z, h);
    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    release(&e, &z, &f);
}

/* The appended size is only a hint, except for LZ4 where it ends the data:
 * a wrong one costs nothing to the others. */
static void wrong_size_hint_ignored(void)
{
    struct buf e = make_elf(ELF_SIZE), z = zstd(e, 0), f;

    put32(z.p + z.n - 4, 7);
    f = bzimage(z);
    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    put32(f.p + PM_START + PAYLOAD_OFF + z.n - 4, 0xffffffff);
    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    release(&e, &z, &f);
}

/* Exactly the cap is fine; one byte less is not. */
static void size_at_cap(void)
{
    struct buf e = make_elf(ELF_SIZE), z[5] = { gzip(e), xz(e), zstd(e, 0),
                                                zstd(e, 1), lz4(e, 4096, 100, 1) };

    for (unsigned i = 0; i < 5; i++) {
        struct buf f = bzimage(z[i]);

        CHECK(converts_to(f, e, ELF_SIZE));
        CHECK(convert_n(f, f.n, ELF_SIZE - 1) == -1);
        CHECK_CONTAINS(err.msg, "decompresses to more than 19999 bytes");
        free(f.p);
        free(z[i].p);
    }
    free(e.p);
}

static void cap_in_bytes_and_mib(void)
{
    struct buf e = make_elf(ELF_SIZE), z = lz4(e, 4096, 100, 1), f = bzimage(z);

    CHECK(convert_n(f, f.n, 8192) == -1);
    CHECK_CONTAINS(err.msg, "decompresses to more than 8192 bytes");
    CHECK(convert_n(f, f.n, (size_t)1 << 20) == 0);
    /* Whole MiB caps read as such. */
    free(e.p);
    e = make_elf((1 << 20) + 1);
    free(z.p);
    z = gzip(e);
    free(f.p);
    f = bzimage(z);
    CHECK(convert_n(f, f.n, (size_t)1 << 20) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the kernel decompresses to more than 1 MiB");
    release(&e, &z, &f);
}

/* ---- What does not ---- */

static void neither_elf_nor_bzimage(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f = bzimage(z);

    memcpy(f.p + 0x202, "HdrX", 4);
    CHECK(convert(f) == -1);
    CHECK(strcmp(err.msg, "not an ELF kernel or a bzImage") == 0);
    CHECK(convert_n(f, 0, KERNEL_IMAGE_MAX_ELF) == -1);
    CHECK(strcmp(err.msg, "not an ELF kernel or a bzImage") == 0);
    CHECK(convert_n(e, 3, KERNEL_IMAGE_MAX_ELF) == -1);   /* "\x7fEL" */
    CHECK(strcmp(err.msg, "not an ELF kernel or a bzImage") == 0);
    release(&e, &z, &f);
}

static void header_truncated(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f = bzimage(z);

    for (size_t n = 0x206; n < 0x250; n++) {
        CHECK(convert_n(f, n, KERNEL_IMAGE_MAX_ELF) == -1);
        CHECK_CONTAINS(err.msg, "bzImage setup header is truncated");
    }
    release(&e, &z, &f);
}

static void protocol_too_old(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f;
    struct hdr h = usual_hdr(z.n);

    h.version = 0x0207;
    f = bzimage_hdr(z, h);
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage boot protocol 2.07 is too old (perch "
                            "needs 2.08 or later)");
    release(&e, &z, &f);
}

static void payload_outside_file(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f = bzimage(z);
    size_t room = f.n - PM_START;       /* what the offset and length may span */
    const struct { uint32_t off, len; } bad[] = {
        { room, 1 }, { room - 10, 11 }, { 0, room + 1 },
        { 0xffffffff, 1 }, { 1, 0xffffffff }, { 0xffffffff, 0xffffffff },
    };

    CHECK(converts_to(f, e, KERNEL_IMAGE_MAX_ELF));
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        put32(f.p + 0x248, bad[i].off);
        put32(f.p + 0x24c, bad[i].len);
        CHECK(convert(f) == -1);
        CHECK_CONTAINS(err.msg, "lies outside the file");
    }
    /* setup_sects moves the protected-mode part, and the payload with it. */
    put32(f.p + 0x248, PAYLOAD_OFF);
    put32(f.p + 0x24c, z.n);
    f.p[0x1f1] = 0xff;
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "lies outside the file");
    release(&e, &z, &f);
}

static void payload_empty(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f;
    struct hdr h = usual_hdr(0);

    f = bzimage_hdr(z, h);
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage payload is empty");
    release(&e, &z, &f);
}

static void unsupported_formats(void)
{
    const struct { const char *magic, *name; } fmts[] = {
        { "BZh91AY&SY", "bzip2" },
        { "\x5d\x00\x00\x80\x00\xff\xff\xff", "lzma" },
        { "\x89LZO\x00\x0d\x0a\x1a", "lzo" },
    };

    for (unsigned i = 0; i < 3; i++) {
        uint8_t junk[64] = { 0 };
        struct buf p = { junk, sizeof(junk) }, f;
        char want[200];

        memcpy(junk, fmts[i].magic, 8);
        f = bzimage(p);
        CHECK(convert(f) == -1);
        snprintf(want, sizeof(want), "compressed with %s, which perch cannot "
                 "decompress (use a gzip, xz, zstd or lz4 kernel, or the ELF "
                 "vmlinux)", fmts[i].name);
        CHECK_CONTAINS(err.msg, want);
        free(f.p);
    }
}

static void unknown_format(void)
{
    uint8_t junk[4] = { 0xde, 0xad, 0xbe, 0xef };
    struct buf p = { junk, sizeof(junk) }, f = bzimage(p);

    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage payload is in no known compressed format "
                            "(it starts de ad be ef)");
    free(f.p);
    p.n = 1;
    f = bzimage(p);
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "no known compressed format (it starts de)");
    free(f.p);
}

static void decompressed_not_elf(void)
{
    struct buf e = make_elf(ELF_SIZE), z, f;

    e.p[0] = 'X';
    for (unsigned i = 0; i < 4; i++) {
        z = i == 0 ? gzip(e) : i == 1 ? xz(e) : i == 2 ? zstd(e, 0) :
            lz4(e, 4096, 100, 1);
        f = bzimage(z);
        CHECK(convert(f) == -1);
        CHECK(strcmp(err.msg, "the decompressed kernel is not an ELF file") == 0);
        free(z.p);
        free(f.p);
    }
    /* Shorter than the magic itself. */
    e.p[0] = 0x7f;
    e.n = 3;
    z = gzip(e);
    f = bzimage(z);
    CHECK(convert(f) == -1);
    CHECK(strcmp(err.msg, "the decompressed kernel is not an ELF file") == 0);
    release(&e, &z, &f);
}

/* Set the payload's length to n in a copy of the file cut after it. */
static int convert_payload_cut(struct buf f, size_t n)
{
    put32(f.p + 0x24c, n);
    return convert_n(f, PM_START + PAYLOAD_OFF + n, (size_t)1 << 20);
}

/* Whether an LZ4 legacy payload has a block (or frame magic) ending at n. */
static int lz4_boundary(struct buf z, size_t n)
{
    size_t pos = 0;

    while (pos + 4 <= z.n && pos < n) {
        uint32_t w = z.p[pos] | z.p[pos + 1] << 8 | z.p[pos + 2] << 16 |
                     (uint32_t)z.p[pos + 3] << 24;

        pos += 4 + (w == LZ4_MAGIC ? 0 : w);
        if (pos == n && w != LZ4_MAGIC)
            return 1;
    }
    return 0;
}

/* Every cut before the end of the compressed data must fail, cleanly;
 * except that LZ4's legacy frames have no end mark, so a cut after a
 * block gives what the blocks so far hold. */
static void truncated_each_format(void)
{
    struct buf e = make_elf(ELF_SIZE);
    const struct { struct buf z; const char *name; size_t magic; } zs[] = {
        { gzip(e), "gzip", 2 }, { xz(e), "xz", 6 }, { zstd(e, 0), "zstd", 4 },
        { zstd(e, 1), "zstd", 4 }, { lz4(e, 4096, 2, 1), "lz4", 4 },
    };
    unsigned lz4_cuts = 0;

    for (unsigned i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
        struct buf f = bzimage(zs[i].z);
        char want[64];

        snprintf(want, sizeof(want), "the %s payload is truncated", zs[i].name);
        /* Without the appended size it still works (LZ4: it ends there). */
        CHECK(convert_payload_cut(f, zs[i].z.n - 4) == 0);
        /* Shorter than its magic, it is in no known format. */
        CHECK(convert_payload_cut(f, zs[i].magic - 1) == -1);
        CHECK_CONTAINS(err.msg, "no known compressed format");
        for (size_t n = zs[i].magic; n < zs[i].z.n - 4; n++) {
            if (i == 4 && lz4_boundary(zs[i].z, n)) {
                CHECK(convert_payload_cut(f, n) == 0);
                lz4_cuts++;
                continue;
            }
            CHECK(convert_payload_cut(f, n) == -1);
            CHECK_CONTAINS(err.msg, want);
        }
        free(f.p);
        free(zs[i].z.p);
    }
    CHECK(lz4_cuts == ELF_SIZE / 4096);     /* every block but the last */
    free(e.p);
}

/* An LZ4 payload cut after whole blocks is noticed by the size after them. */
static void lz4_cut_at_block_boundary(void)
{
    struct buf e = make_elf(ELF_SIZE), z = lz4(e, 4096, 100, 0), f;

    /* Keep the magic and the first block, then a size that does not match. */
    z.n = 8 + (z.p[4] | z.p[5] << 8 | z.p[6] << 16);
    append32(&z, ELF_SIZE);
    f = bzimage(z);
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "the lz4 payload is truncated or corrupt (it gives "
                            "4096 bytes, the kernel says 20000)");
    release(&e, &z, &f);
}

static void corrupt_gzip(void)
{
    struct buf e = make_elf(ELF_SIZE), z = gzip(e), f = bzimage(z);
    uint8_t *p = f.p + PM_START + PAYLOAD_OFF;

    p[10] = 0xff;                        /* the first block: a reserved type */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the gzip payload is corrupt (invalid "
                            "block type)");
    free(f.p);
    f = bzimage(z);
    p = f.p + PM_START + PAYLOAD_OFF;
    p[z.n - 12] ^= 1;                    /* the CRC-32 of the data */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the gzip payload is corrupt (incorrect "
                            "data check)");
    free(f.p);
    f = bzimage(z);
    p = f.p + PM_START + PAYLOAD_OFF;
    p[0] ^= 0x20;                        /* "1f ab": not gzip at all */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "no known compressed format");
    release(&e, &z, &f);
}

static void corrupt_xz(void)
{
    struct buf e = make_elf(ELF_SIZE), z = xz(e), f = bzimage(z);
    uint8_t *p = f.p + PM_START + PAYLOAD_OFF;

    p[z.n / 2] ^= 0x55;                  /* in the LZMA2 data, checked by CRC */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the xz payload is corrupt (invalid data)");
    free(f.p);
    f = bzimage(z);
    p = f.p + PM_START + PAYLOAD_OFF;
    p[7] ^= 0x01;                        /* stream flags: no longer match their CRC */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the xz payload is corrupt (invalid data)");
    release(&e, &z, &f);
}

static void corrupt_zstd(void)
{
    struct buf e = make_elf(ELF_SIZE), z = zstd(e, 0), f = bzimage(z);
    uint8_t *p = f.p + PM_START + PAYLOAD_OFF;

    p[z.n - 5] ^= 0x01;                  /* the content checksum */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the zstd payload is corrupt (");
    free(f.p);
    f = bzimage(z);
    p = f.p + PM_START + PAYLOAD_OFF;
    p[4] |= 0x08;                        /* frame header: a reserved bit */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the zstd payload is corrupt (");
    release(&e, &z, &f);
}

static void corrupt_lz4(void)
{
    struct buf e = make_elf(ELF_SIZE), z = lz4(e, 4096, 100, 1), f = bzimage(z);
    uint8_t *p = f.p + PM_START + PAYLOAD_OFF;
    uint32_t first = p[4] | p[5] << 8 | p[6] << 16;

    memset(p + 8, 0xff, first);          /* literal lengths past the block */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the lz4 payload is corrupt (block 0)");
    free(f.p);
    f = bzimage(z);
    p = f.p + PM_START + PAYLOAD_OFF;
    put32(p + 4, 0);                     /* an empty block */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the lz4 payload is corrupt (block 0 of 0 bytes)");
    put32(p + 4, LZ4_compressBound(LZ4_BLOCK) + 1);   /* more than 8 MiB gives */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the lz4 payload is corrupt (block 0 of");
    free(f.p);
    f = bzimage(z);
    p = f.p + PM_START + PAYLOAD_OFF;
    put32(p + 4, first - 1);             /* the rest is read as a size */
    CHECK(convert(f) == -1);
    CHECK_CONTAINS(err.msg, "bzImage: the lz4 payload is");
    release(&e, &z, &f);
}

/* Whatever a byte of the header or payload says, the answer is clean. */
static void corrupt_every_byte(void)
{
    struct buf e = make_elf(4000);
    struct buf zs[] = { gzip(e), xz(e), zstd(e, 0), lz4(e, 1000, 2, 1) };

    for (unsigned i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
        struct buf f = bzimage(zs[i]);
        size_t end = PM_START + PAYLOAD_OFF + zs[i].n;

        for (size_t at = 0x1f0; at < end; at++) {
            uint8_t was;
            int r;

            if (at == 0x250)
                at = PM_START + PAYLOAD_OFF;   /* past the unused setup bytes */
            was = f.p[at];
            f.p[at] ^= 0xa5;
            r = convert_n(f, f.n, (size_t)1 << 20);
            f.p[at] = was;
            CHECK(r == 0 || (r == -1 && err.msg[0]));
            err.msg[0] = 0;
        }
        free(f.p);
        free(zs[i].p);
    }
    free(e.p);
}

int main(void)
{
    RUN(elf_is_used_in_place);
    RUN(gzip_kernel);
    RUN(xz_kernel);
    RUN(zstd_kernel_with_content_size);
    RUN(zstd_kernel_without_content_size);
    RUN(lz4_kernel_several_blocks);
    RUN(lz4_kernel_without_size);
    RUN(lz4_kernel_several_frames);
    RUN(lz4_kernel_full_blocks);
    RUN(setup_sects_zero_means_four);
    RUN(protocol_2_08_accepted);
    RUN(wrong_size_hint_ignored);
    RUN(size_at_cap);
    RUN(cap_in_bytes_and_mib);

    RUN(neither_elf_nor_bzimage);
    RUN(header_truncated);
    RUN(protocol_too_old);
    RUN(payload_outside_file);
    RUN(payload_empty);
    RUN(unsupported_formats);
    RUN(unknown_format);
    RUN(decompressed_not_elf);
    RUN(truncated_each_format);
    RUN(lz4_cut_at_block_boundary);
    RUN(corrupt_gzip);
    RUN(corrupt_xz);
    RUN(corrupt_zstd);
    RUN(corrupt_lz4);
    RUN(corrupt_every_byte);
    return check_exit_status();
}
