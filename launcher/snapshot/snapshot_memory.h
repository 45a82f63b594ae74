/*
 * Machine memory in a snapshot: the whole memslot (perch's frames and the
 * guest's) in runs of up to SNAPSHOT_RUN_FRAMES frames, one section each.
 * A run says which of its frames are not zero; only those are stored, the
 * run's pages compressed with zstd as one frame. A restore writes only
 * those, so a frame that was zero stays untouched (and costs no memory).
 */
#ifndef PERCH_SNAPSHOT_MEMORY_H
#define PERCH_SNAPSHOT_MEMORY_H

#include "../vm/guest_memory.h"
#include "snapshot_file.h"

#define SNAPSHOT_RUN_FRAMES 1024u

/* A SNAPSHOT_MEMORY section: this head, then the zstd frame. */
struct snapshot_memory_run {
    uint64_t first_frame;
    uint32_t nr_frames;                         /* 1 to SNAPSHOT_RUN_FRAMES */
    uint32_t stored;                            /* bits set in present[] */
    uint8_t present[SNAPSHOT_RUN_FRAMES / 8];   /* frame first_frame + i: bit i */
};

/* The SNAPSHOT_END section: what came before it, counted. */
struct snapshot_end {
    uint64_t runs;
    uint64_t frames_stored;
};

/* Write every frame of gm that is not zero; *stored counts them. */
int snapshot_memory_write(struct snapshot_writer *w, const struct guest_memory *gm,
                          uint64_t *stored, struct error *e);

/* Read runs into gm (which is zero) up to and with the END section: runs
 * in order, inside gm, each decompressing to exactly its frames. */
int snapshot_memory_read(struct snapshot_reader *r, struct guest_memory *gm,
                         struct snapshot_end *end, struct error *e);

#endif
