/* Machine memory in a snapshot: runs of the frames that are not zero (snapshot_memory.h). */
#include "snapshot_memory.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define RUN_BYTES (SNAPSHOT_RUN_FRAMES * PAGE_SIZE)
#define ZSTD_LEVEL 1          /* fast: a save should take about as long as a copy */

static bool page_is_zero(const uint8_t *page)
{
    const uint64_t *w = (const uint64_t *)page;

    for (size_t i = 0; i < PAGE_SIZE / sizeof(*w); i++)
        if (w[i])
            return false;
    return true;
}

/* The buffers of one save or one restore: a run's pages and its section. */
struct run_buffers {
    uint8_t *pages;
    uint8_t *section;         /* the head, then the compressed frame */
    size_t section_max;
};

static int buffers_get(struct run_buffers *b, struct error *e)
{
    b->section_max = sizeof(struct snapshot_memory_run) + ZSTD_compressBound(RUN_BYTES);
    b->pages = malloc(RUN_BYTES);
    b->section = malloc(b->section_max);
    if (!b->pages || !b->section)
        return fail(e, "out of memory for the snapshot's buffers");
    return 0;
}

static void buffers_put(struct run_buffers *b)
{
    free(b->pages);
    free(b->section);
}

/* Gather the run's frames that are not zero into b->pages; its head. */
static void gather_run(const struct guest_memory *gm, uint64_t first, uint32_t n,
                       struct run_buffers *b, struct snapshot_memory_run *run)
{
    memset(run, 0, sizeof(*run));
    run->first_frame = first;
    run->nr_frames = n;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *page = gm->base + (first + i) * PAGE_SIZE;

        if (page_is_zero(page))
            continue;
        run->present[i / 8] |= (uint8_t)(1u << (i % 8));
        memcpy(b->pages + (uint64_t)run->stored++ * PAGE_SIZE, page, PAGE_SIZE);
    }
}

static int write_run(struct snapshot_writer *w, ZSTD_CCtx *z, const struct guest_memory *gm,
                     uint64_t first, uint32_t n, struct run_buffers *b,
                     struct snapshot_end *written, struct error *e)
{
    struct snapshot_memory_run run;
    size_t packed;

    gather_run(gm, first, n, b, &run);
    if (!run.stored)
        return 0;
    packed = ZSTD_compressCCtx(z, b->section + sizeof(run), b->section_max - sizeof(run),
                               b->pages, (size_t)run.stored * PAGE_SIZE, ZSTD_LEVEL);
    if (ZSTD_isError(packed))
        return fail(e, "zstd: %s", ZSTD_getErrorName(packed));
    memcpy(b->section, &run, sizeof(run));
    written->runs++;
    written->frames_stored += run.stored;
    return snapshot_write_section(w, SNAPSHOT_MEMORY, b->section, sizeof(run) + packed, e);
}

int snapshot_memory_write(struct snapshot_writer *w, const struct guest_memory *gm,
                          uint64_t *stored, struct error *e)
{
    uint64_t frames = gm->bytes / PAGE_SIZE;
    struct snapshot_end end = { 0 };
    struct run_buffers b = { 0 };
    ZSTD_CCtx *z = ZSTD_createCCtx();
    int rc = z && !buffers_get(&b, e) ? 0 : -1;

    if (!z)
        fail(e, "out of memory for zstd");
    for (uint64_t f = 0; !rc && f < frames; f += SNAPSHOT_RUN_FRAMES) {
        uint64_t left = frames - f;

        rc = write_run(w, z, gm, f, left < SNAPSHOT_RUN_FRAMES ? (uint32_t)left
                                                                : SNAPSHOT_RUN_FRAMES,
                       &b, &end, e);
    }
    *stored = end.frames_stored;
    if (!rc)
        rc = snapshot_write_section(w, SNAPSHOT_END, &end, sizeof(end), e);
    buffers_put(&b);
    ZSTD_freeCCtx(z);
    return rc;
}

static uint32_t bits_set(const uint8_t *bits, uint32_t n)
{
    uint32_t count = 0;

    for (uint32_t i = 0; i < n; i++)
        count += bits[i / 8] >> (i % 8) & 1;
    return count;
}

/* A run's head against the memory and the run before it. */
static int check_run(const struct snapshot_memory_run *run, uint64_t frames, uint64_t next,
                     struct error *e)
{
    if (run->nr_frames < 1 || run->nr_frames > SNAPSHOT_RUN_FRAMES)
        return fail(e, "the snapshot has a memory run of %u frames", run->nr_frames);
    if (run->first_frame < next || run->first_frame >= frames ||
        run->nr_frames > frames - run->first_frame)
        return fail(e, "the snapshot's memory run at frame %#" PRIx64 " is out of order or "
                    "outside the guest's %" PRIu64 " frames", run->first_frame, frames);
    if (!run->stored || run->stored != bits_set(run->present, run->nr_frames) ||
        bits_set(run->present, SNAPSHOT_RUN_FRAMES) != run->stored)
        return fail(e, "the snapshot's memory run at frame %#" PRIx64 " miscounts its frames",
                    run->first_frame);
    return 0;
}

static void place_run(struct guest_memory *gm, const struct snapshot_memory_run *run,
                      const uint8_t *pages)
{
    for (uint32_t i = 0, k = 0; i < run->nr_frames; i++)
        if (run->present[i / 8] >> (i % 8) & 1)
            memcpy(gm->base + (run->first_frame + i) * PAGE_SIZE,
                   pages + (uint64_t)k++ * PAGE_SIZE, PAGE_SIZE);
}

static int read_run(struct snapshot_reader *r, const struct snapshot_section *s,
                    struct guest_memory *gm, ZSTD_DCtx *z, struct run_buffers *b,
                    uint64_t *next, struct snapshot_end *counted, struct error *e)
{
    struct snapshot_memory_run run;
    size_t got;

    if (snapshot_expect(r, s, SNAPSHOT_MEMORY, sizeof(run) + 1, b->section_max, e) ||
        snapshot_read_payload(r, s, b->section, e))
        return -1;
    memcpy(&run, b->section, sizeof(run));
    if (check_run(&run, gm->bytes / PAGE_SIZE, *next, e))
        return -1;
    got = ZSTD_decompressDCtx(z, b->pages, RUN_BYTES, b->section + sizeof(run),
                              s->length - sizeof(run));
    if (ZSTD_isError(got) || got != (size_t)run.stored * PAGE_SIZE)
        return fail(e, "the snapshot's memory run at frame %#" PRIx64 " does not "
                    "decompress to its %u frames", run.first_frame, run.stored);
    place_run(gm, &run, b->pages);
    *next = run.first_frame + run.nr_frames;
    counted->runs++;
    counted->frames_stored += run.stored;
    return 0;
}

static int read_end(struct snapshot_reader *r, const struct snapshot_section *s,
                    const struct snapshot_end *counted, struct snapshot_end *end,
                    struct error *e)
{
    if (snapshot_expect(r, s, SNAPSHOT_END, sizeof(*end), sizeof(*end), e) ||
        snapshot_read_payload(r, s, end, e))
        return -1;
    if (end->runs != counted->runs || end->frames_stored != counted->frames_stored)
        return fail(e, "the snapshot's end counts %" PRIu64 " memory runs and %" PRIu64
                    " frames; it holds %" PRIu64 " and %" PRIu64 " (sections lost?)",
                    end->runs, end->frames_stored, counted->runs, counted->frames_stored);
    return 0;
}

int snapshot_memory_read(struct snapshot_reader *r, struct guest_memory *gm,
                         struct snapshot_end *end, struct error *e)
{
    struct snapshot_end counted = { 0 };
    struct run_buffers b = { 0 };
    struct snapshot_section s;
    ZSTD_DCtx *z = ZSTD_createDCtx();
    uint64_t next = 0;
    int rc = z && !buffers_get(&b, e) ? 0 : -1;

    if (!z)
        fail(e, "out of memory for zstd");
    while (!rc && !(rc = snapshot_read_section(r, &s, e)) && s.kind != SNAPSHOT_END)
        rc = read_run(r, &s, gm, z, &b, &next, &counted, e);
    if (!rc)
        rc = read_end(r, &s, &counted, end, e);
    buffers_put(&b);
    ZSTD_freeDCtx(z);
    return rc;
}
