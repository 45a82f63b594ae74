/*
 * A kernel file as users have it, turned into the ELF that the PV loader
 * (pv_image.h) parses. An ELF vmlinux is taken as it is. A bzImage (the
 * vmlinuz in /boot) is recognised by its x86 boot protocol setup header
 * (protocol 2.08 or later), and the compressed vmlinux that its payload
 * fields point at is decompressed: gzip, xz, zstd and LZ4 (Linux's legacy
 * LZ4 frames) are supported; bzip2, lzma and lzo get a clear error.
 *
 * The file is untrusted: every offset and length in it is checked against
 * the buffer, the decompressed size is capped, and a file that cannot be
 * used gets one line saying why.
 */
#ifndef PERCH_KERNEL_IMAGE_H
#define PERCH_KERNEL_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

/* The largest decompressed kernel perch accepts. */
#define KERNEL_IMAGE_MAX_ELF ((size_t)512 << 20)

struct kernel_elf {
    const uint8_t *bytes;   /* the ELF: the file itself, or `owned` */
    size_t size;
    uint8_t *owned;         /* malloc'd decompressed ELF; NULL for an ELF file */
};

/* Find the ELF in `file`: the file itself when it is an ELF (no copy; it
 * must outlive elf), else the decompressed payload of a bzImage, at most
 * max_elf bytes, which elf->owned holds until kernel_elf_release(). The
 * result starts with the ELF magic; the rest is pv_image_parse()'s job.
 * Returns 0, or -1 with e filled and nothing to release. */
int kernel_image_elf(const void *file, size_t size, size_t max_elf,
                     struct kernel_elf *elf, struct error *e);

/* Free what kernel_image_elf() allocated, if anything; elf becomes empty. */
void kernel_elf_release(struct kernel_elf *elf);

#endif
