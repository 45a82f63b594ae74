/*
 * perch's snapshot file (docs/snapshot.md): a header, then sections, each
 * a kind, a length and a CRC-32 of its bytes. A writer appends; a reader
 * takes them in order and checks each header before it reads a byte of
 * the payload, so a truncated or altered file is refused with one line.
 * Nothing here knows what a section holds.
 */
#ifndef PERCH_SNAPSHOT_FILE_H
#define PERCH_SNAPSHOT_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "../base/error.h"

#define SNAPSHOT_MAGIC   "PERCHSNP"
#define SNAPSHOT_VERSION 1u

enum snapshot_kind {
    SNAPSHOT_CONFIG = 1,      /* struct snapshot_config */
    SNAPSHOT_VCPU = 2,        /* struct kvm_vcpu_state, one a vCPU in order */
    SNAPSHOT_XENSTORE = 3,    /* xenstore_save()'s bytes */
    SNAPSHOT_MEMORY = 4,      /* one run of frames (snapshot_memory.h) */
    SNAPSHOT_END = 5,         /* struct snapshot_end */
    SNAPSHOT_DISKS = 6,       /* struct snapshot_disk, one a disk in order */
};

struct snapshot_file_header {
    char magic[8];
    uint32_t version;
    uint32_t flags;           /* 0 */
    uint64_t reserved;        /* 0 */
};

struct snapshot_section {
    uint32_t kind;
    uint32_t crc32;           /* zlib's, of the payload */
    uint64_t length;          /* of the payload */
};

struct snapshot_writer {
    FILE *f;
    uint64_t bytes;           /* written so far */
};

/* Start a file on f; 0, or -1 with e (errno's words: a full disk says so). */
int snapshot_write_start(struct snapshot_writer *w, FILE *f, struct error *e);
int snapshot_write_section(struct snapshot_writer *w, enum snapshot_kind kind,
                           const void *payload, uint64_t length, struct error *e);
/* Everything on the file's disk (fflush and fsync); 0, or -1 with e. */
int snapshot_write_finish(struct snapshot_writer *w, struct error *e);

struct snapshot_reader {
    FILE *f;
    uint64_t offset;          /* for the messages: where the next byte is */
};

/* The header: this version of perch's format, or -1 with e. */
int snapshot_read_start(struct snapshot_reader *r, FILE *f, struct error *e);

/* The next section's header; -1 with e at the file's end. */
int snapshot_read_section(struct snapshot_reader *r, struct snapshot_section *s,
                          struct error *e);

/* Is s of `kind`, with min to max bytes? -1 with e if not. */
int snapshot_expect(const struct snapshot_reader *r, const struct snapshot_section *s,
                    enum snapshot_kind kind, uint64_t min, uint64_t max, struct error *e);

/* Both: the next section, which must be of kind and size. */
int snapshot_read_expected(struct snapshot_reader *r, enum snapshot_kind kind, uint64_t min,
                           uint64_t max, struct snapshot_section *s, struct error *e);

/* Its payload into buf (s->length bytes), checked against its CRC. */
int snapshot_read_payload(struct snapshot_reader *r, const struct snapshot_section *s,
                          void *buf, struct error *e);

/* Nothing may follow the last section. */
int snapshot_read_finish(struct snapshot_reader *r, struct error *e);

const char *snapshot_kind_name(enum snapshot_kind kind);

#endif
