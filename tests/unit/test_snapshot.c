/*
 * Unit tests of the snapshot file (launcher/snapshot/) and of the check of
 * a saved vCPU's state (launcher/vm/kvm_state.c): a guest's configuration,
 * vCPUs, xenstore and memory written and read back byte for byte, zero
 * pages left out of the file and untouched on the way in; a file cut at
 * every length or flipped at every bit is refused with one line; files
 * built section by section with right checksums and one wrong value each
 * are refused by the check for that value; and a vCPU state perch could
 * have given passes while one changed value of each kind is refused.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"

#include "../../abi/layout.h"
#include "../../launcher/snapshot/snapshot.h"
#include "../../launcher/snapshot/snapshot_memory.h"
#include "../../launcher/vm/x86_msrs.h"

#define PRIVATE_FRAMES 16u
#define GUEST_PAGES 200u
#define FRAMES (PRIVATE_FRAMES + GUEST_PAGES)

/* --- Files in memory --------------------------------------------------------- */

struct bytes {
    uint8_t *p;
    size_t n;
};

/* The whole of f, which is then closed. */
static struct bytes slurp(FILE *f)
{
    struct bytes b = { 0 };
    long end;

    if (fflush(f) || fseek(f, 0, SEEK_END) || (end = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET))
        abort();
    b.n = (size_t)end;
    b.p = malloc(b.n + 1);
    if (!b.p || fread(b.p, 1, b.n, f) != b.n)
        abort();
    fclose(f);
    return b;
}

/* A tmpfile(): snapshot_write_finish syncs its file, so no memstream. */
static FILE *new_file(void)
{
    FILE *f = tmpfile();

    if (!f)
        abort();
    return f;
}

/* --- Reading, with the memory prepare gives -------------------------------- */

struct target {
    struct guest_memory gm;
    bool prepared;
    struct snapshot_config seen;
};

static int prepare(void *arg, const struct snapshot_config *c, struct guest_memory **gm,
                   struct error *e)
{
    struct target *t = arg;

    t->seen = *c;
    if (guest_memory_init(&t->gm, c->private_frames, c->nr_pages))
        return fail(e, "cannot map %llu frames", (unsigned long long)c->nr_pages);
    t->prepared = true;
    *gm = &t->gm;
    return 0;
}

static void target_release(struct target *t)
{
    if (t->prepared)
        guest_memory_release(&t->gm);
    t->prepared = false;
}

/* Read b into s and t; snapshot_read's result. */
static int load(const struct bytes *b, struct snapshot *s, struct target *t,
                      struct error *e)
{
    FILE *f = fmemopen(b->p, b->n, "r");
    int rc;

    if (!f)
        abort();
    memset(t, 0, sizeof(*t));
    rc = snapshot_read(f, s, prepare, t, e);
    fclose(f);
    return rc;
}

/* The message if b is refused with one printable line, nothing left
 * allocated; NULL if it loads (or the refusal is not one line). */
static const char *refused(const struct bytes *b)
{
    static struct error e;
    struct snapshot s;
    struct target t;
    bool one_line;
    int rc;

    e.msg[0] = '\0';
    rc = load(b, &s, &t, &e);
    target_release(&t);
    if (!rc) {
        snapshot_release(&s);
        return NULL;
    }
    one_line = e.msg[0] != '\0';
    for (const char *c = e.msg; *c; c++)
        one_line &= (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f;
    return one_line && !s.vcpus && !s.xenstore ? e.msg : NULL;
}

/* --- A guest to save ---------------------------------------------------------- */

static struct snapshot_config good_config(uint64_t private_frames, uint64_t nr_pages)
{
    struct snapshot_config c = {
        .nr_pages = nr_pages,
        .private_frames = private_frames,
        .nr_cpus = 2,
        .cpl3_events = 1,
        .tsc_khz = 2400000,
        .images_crc = 0x1234abcd,
        .console_pfn = nr_pages - 2,
        .store_pfn = nr_pages - 1,
        .saved_at_ns = 1700000000123456789ull,
        .tsc_native = 1,
        .tsc_at_save = 0x123456789abull,
    };

    return c;
}

static struct kvm_vcpu_state vcpu_bytes[2];
static uint8_t xenstore_blob[333];

/* A snapshot of config c with recognisable vCPUs and xenstore bytes. */
static struct snapshot good_snapshot(uint64_t private_frames, uint64_t nr_pages)
{
    struct snapshot s = { .config = good_config(private_frames, nr_pages) };

    for (size_t i = 0; i < sizeof(vcpu_bytes); i++)
        ((uint8_t *)vcpu_bytes)[i] = (uint8_t)(i * 7 + i / 4096);
    for (size_t i = 0; i < sizeof(xenstore_blob); i++)
        xenstore_blob[i] = (uint8_t)(0xa5 ^ i);
    s.vcpus = vcpu_bytes;
    s.xenstore = xenstore_blob;
    s.xenstore_len = sizeof(xenstore_blob);
    return s;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void fill_random(uint8_t *page)
{
    for (size_t i = 0; i < PAGE_SIZE; i += 8) {
        uint64_t v = next_random();

        memcpy(page + i, &v, 8);
    }
}

/* A page that compresses well: a short phrase over and over. */
static void fill_repeating(uint8_t *page, unsigned seed)
{
    char phrase[32];
    int n = snprintf(phrase, sizeof(phrase), "perch page %u; ", seed);

    for (size_t i = 0; i < PAGE_SIZE; i++)
        page[i] = (uint8_t)phrase[i % (size_t)n];
}

static struct guest_memory new_memory(uint64_t private_frames, uint64_t nr_pages)
{
    struct guest_memory gm;

    if (guest_memory_init(&gm, private_frames, nr_pages))
        abort();
    return gm;
}

static uint8_t *frame(const struct guest_memory *gm, uint64_t f)
{
    return gm->base + f * PAGE_SIZE;
}

static struct bytes saved(const struct snapshot *s, const struct guest_memory *gm)
{
    struct error e;
    FILE *f = new_file();

    if (snapshot_write(f, s, gm, &e)) {
        printf("snapshot_write: %s\n", e.msg);
        abort();
    }
    return slurp(f);
}

static bool same_config(const struct snapshot_config *a, const struct snapshot_config *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

/* What every file holds besides memory: header, configuration, no disks, vCPUs,
 * xenstore and END with their section headers. */
static size_t fixed_bytes(void)
{
    return sizeof(struct snapshot_file_header) + 6 * sizeof(struct snapshot_section) +
           sizeof(struct snapshot_config) + sizeof(vcpu_bytes) + sizeof(xenstore_blob) +
           sizeof(struct snapshot_end);
}

/* --- Round trip ------------------------------------------------------------------ */

/* Memory over three runs (1024, 1024 and 68 frames): pages in the first
 * and last runs, the middle run all zero (so not in the file), perch's
 * frame 1 and the last frame of the memslot among them. */
static void round_trip(void)
{
    const uint64_t guest_pages = 2100;
    struct guest_memory gm = new_memory(PRIVATE_FRAMES, guest_pages);
    struct snapshot s = good_snapshot(PRIVATE_FRAMES, guest_pages), back;
    static const uint64_t random_frames[] = { 1, 17, 500, 1023, 2048, 2115 };
    static const uint64_t repeating_frames[] = { 0, 16, 300, 2050 };
    uint64_t frames = gm.bytes / PAGE_SIZE, nonzero = 0;
    struct target t;
    struct error e;
    struct bytes b;

    CHECK(frames == 2116);
    for (size_t i = 0; i < sizeof(random_frames) / sizeof(random_frames[0]); i++)
        fill_random(frame(&gm, random_frames[i]));
    for (size_t i = 0; i < sizeof(repeating_frames) / sizeof(repeating_frames[0]); i++)
        fill_repeating(frame(&gm, repeating_frames[i]), (unsigned)i);
    frame(&gm, 700)[2048] = 0x80;        /* one byte in the middle of a page */
    b = saved(&s, &gm);

    CHECK(load(&b, &back, &t, &e) == 0);
    CHECK(t.prepared && same_config(&t.seen, &s.config));
    CHECK(same_config(&back.config, &s.config));
    CHECK(memcmp(back.vcpus, vcpu_bytes, sizeof(vcpu_bytes)) == 0);
    CHECK(back.xenstore_len == sizeof(xenstore_blob));
    CHECK(memcmp(back.xenstore, xenstore_blob, sizeof(xenstore_blob)) == 0);
    CHECK(t.gm.bytes == gm.bytes && t.gm.guest_mfn_base == PRIVATE_FRAMES &&
          t.gm.nr_pages == guest_pages);
    for (uint64_t f = 0; f < frames; f++) {
        bool zero = true;

        for (size_t i = 0; i < PAGE_SIZE && zero; i++)
            zero = frame(&gm, f)[i] == 0;
        nonzero += !zero;
        CHECK(memcmp(frame(&t.gm, f), frame(&gm, f), PAGE_SIZE) == 0);
    }
    CHECK(nonzero == 11);
    CHECK(back.frames_stored == nonzero);
    snapshot_release(&back);
    CHECK(!back.vcpus && !back.xenstore);
    target_release(&t);
    guest_memory_release(&gm);
    free(b.p);
}

/* All memory zero: no run at all, an END of zeros, and it reads back. */
static void zero_memory_round_trip(void)
{
    struct guest_memory gm = new_memory(PRIVATE_FRAMES, GUEST_PAGES);
    struct snapshot s = good_snapshot(PRIVATE_FRAMES, GUEST_PAGES), back;
    struct bytes b = saved(&s, &gm);
    struct target t;
    struct error e;

    CHECK(b.n == fixed_bytes());
    CHECK(load(&b, &back, &t, &e) == 0);
    CHECK(back.frames_stored == 0);
    snapshot_release(&back);
    target_release(&t);
    guest_memory_release(&gm);
    free(b.p);
}

/* 40 pages over 3 runs: random ones cost about their size and a few KiB
 * more (run heads, zstd's framing); repetitive ones far less. */
static void saved_file_is_small(void)
{
    const uint64_t guest_pages = 3000, pages = 40;
    struct guest_memory gm = new_memory(PRIVATE_FRAMES, guest_pages);
    struct snapshot s = good_snapshot(PRIVATE_FRAMES, guest_pages);
    struct bytes b;

    for (uint64_t i = 0; i < pages; i++)
        fill_random(frame(&gm, 5 + i * 73));
    b = saved(&s, &gm);
    CHECK(b.n > fixed_bytes() + pages * PAGE_SIZE);
    CHECK(b.n < fixed_bytes() + pages * PAGE_SIZE + 4096);
    free(b.p);
    for (uint64_t i = 0; i < pages; i++)
        fill_repeating(frame(&gm, 5 + i * 73), (unsigned)i % 4);
    b = saved(&s, &gm);
    CHECK(b.n < fixed_bytes() + pages * PAGE_SIZE / 20);
    free(b.p);
    guest_memory_release(&gm);
}

/* --- Cut and flipped files -------------------------------------------------------- */

/* A page of 64 random bytes, then a phrase over and over: a few hundred
 * bytes in the file, so that cutting and flipping every byte of a file
 * with three of them stays quick under ASan (each read of a run takes
 * and gives back the 4 MiB buffers). */
static void fill_mixed(uint8_t *page, unsigned seed)
{
    fill_repeating(page, seed);
    for (size_t i = 0; i < 64; i += 8) {
        uint64_t v = next_random();

        memcpy(page + i, &v, 8);
    }
}

/* A small valid file: three pages in the guest's memory, the last frame
 * among them. */
static struct bytes small_file(void)
{
    struct guest_memory gm = new_memory(PRIVATE_FRAMES, GUEST_PAGES);
    struct snapshot s = good_snapshot(PRIVATE_FRAMES, GUEST_PAGES);
    struct bytes b;

    fill_mixed(frame(&gm, 3), 3);
    fill_mixed(frame(&gm, 4), 4);
    fill_mixed(frame(&gm, FRAMES - 1), 5);
    b = saved(&s, &gm);
    guest_memory_release(&gm);
    return b;
}

static void truncated_at_every_length(void)
{
    struct bytes b = small_file(), cut = b;

    CHECK(refused(&b) == NULL);
    for (cut.n = 0; cut.n < b.n; cut.n++)
        CHECK_CONTAINS(refused(&cut) ?: "", "(truncated?)");
    free(b.p);
}

/*
 * Every single-bit flip is refused: the file header's fields are each
 * checked whole (magic, version, flags, reserved); a section header's kind
 * then names another section or none, its CRC no longer matches, and its
 * length either leaves the kind's bounds, runs past the file's end, or
 * moves the payload so that the CRC (or the next header) is wrong; and
 * CRC-32 catches every single-bit error in a payload. So none loads.
 */
static void every_bit_flip_is_refused(void)
{
    struct bytes b = small_file();
    size_t loaded = 0;

    for (size_t bit = 0; bit < 8 * b.n; bit++) {
        b.p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (!refused(&b) && loaded++ < 5)
            printf("bit %zu: not refused\n", bit);
        b.p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    CHECK(loaded == 0);
    CHECK(refused(&b) == NULL);
    free(b.p);
}

/* The file header is not checksummed: each field is checked on its own. */
static void wrong_header(void)
{
    struct bytes b = small_file();
    struct snapshot_file_header h;
    uint8_t keep[sizeof(h)];

    memcpy(keep, b.p, sizeof(h));
    b.p[0] = 'Q';
    CHECK_CONTAINS(refused(&b) ?: "", "this is not a perch snapshot");
    memcpy(b.p, keep, sizeof(h));
    h = *(struct snapshot_file_header *)keep;
    h.version = 2;
    memcpy(b.p, &h, sizeof(h));
    CHECK_CONTAINS(refused(&b) ?: "", "format version 2; this perch reads version 1");
    h.version = SNAPSHOT_VERSION;
    h.flags = 1;
    memcpy(b.p, &h, sizeof(h));
    CHECK_CONTAINS(refused(&b) ?: "", "header has bits this perch does not know");
    h.flags = 0;
    h.reserved = 1ull << 40;
    memcpy(b.p, &h, sizeof(h));
    CHECK_CONTAINS(refused(&b) ?: "", "header has bits this perch does not know");
    memcpy(b.p, keep, sizeof(h));
    CHECK(refused(&b) == NULL);
    free(b.p);
}

static void bytes_after_end(void)
{
    struct bytes b = small_file();

    b.p[b.n++] = 0;                      /* slurp left a byte for this */
    CHECK_CONTAINS(refused(&b) ?: "", "bytes after its end");
    free(b.p);
}

/* --- Files built section by section ------------------------------------------------ */

/* Sections with right CRCs, so what refuses them is the check on their
 * meaning. */
struct builder {
    FILE *f;
    struct snapshot_writer w;
};

static void b_start(struct builder *b)
{
    struct error e;

    b->f = new_file();
    if (snapshot_write_start(&b->w, b->f, &e))
        abort();
}

static void b_section(struct builder *b, enum snapshot_kind kind, const void *p, uint64_t n)
{
    struct error e;

    if (snapshot_write_section(&b->w, kind, p, n, &e))
        abort();
}

/* Configuration c, no disks, its vCPUs (nr_cpus of them, at most 2) and
 * xenstore. */
static void b_head(struct builder *b, const struct snapshot_config *c)
{
    b_section(b, SNAPSHOT_CONFIG, c, sizeof(*c));
    b_section(b, SNAPSHOT_DISKS, NULL, 0);
    for (uint32_t i = 0; i < c->nr_cpus && i < 2; i++)
        b_section(b, SNAPSHOT_VCPU, &vcpu_bytes[i], sizeof(vcpu_bytes[i]));
    b_section(b, SNAPSHOT_XENSTORE, xenstore_blob, sizeof(xenstore_blob));
}

static void b_good_head(struct builder *b)
{
    struct snapshot_config c = good_config(PRIVATE_FRAMES, GUEST_PAGES);

    good_snapshot(PRIVATE_FRAMES, GUEST_PAGES);
    b_head(b, &c);
}

/* A memory run: frames first..first+n-1, those in `present` stored, its
 * zstd frame made of `pages` pages of 0x5a (whatever present says). */
static void b_run(struct builder *b, uint64_t first, uint32_t n, const uint32_t *present,
                  uint32_t nr_present, uint32_t pages)
{
    static uint8_t section[sizeof(struct snapshot_memory_run) + 64 * 1024];
    static uint8_t data[8 * PAGE_SIZE];
    struct snapshot_memory_run run = { .first_frame = first, .nr_frames = n,
                                       .stored = nr_present };
    size_t packed;

    if (pages > 8)
        abort();
    for (uint32_t i = 0; i < nr_present; i++)
        run.present[present[i] / 8] |= (uint8_t)(1u << (present[i] % 8));
    memset(data, 0x5a, sizeof(data));
    packed = ZSTD_compress(section + sizeof(run), sizeof(section) - sizeof(run), data,
                           pages * PAGE_SIZE, 1);
    if (ZSTD_isError(packed))
        abort();
    memcpy(section, &run, sizeof(run));
    b_section(b, SNAPSHOT_MEMORY, section, sizeof(run) + packed);
}

static void b_end(struct builder *b, uint64_t runs, uint64_t frames_stored)
{
    struct snapshot_end end = { .runs = runs, .frames_stored = frames_stored };

    b_section(b, SNAPSHOT_END, &end, sizeof(end));
}

static struct bytes b_finish(struct builder *b)
{
    return slurp(b->f);
}

/* refused() of what b holds, its bytes freed. */
static const char *b_refused(struct builder *b)
{
    struct bytes bytes = b_finish(b);
    const char *msg = refused(&bytes);

    free(bytes.p);
    return msg ?: "";
}

/* The builder's own files load: two adjacent runs, the second at the
 * last frames of memory. */
static void hand_made_file_loads(void)
{
    static const uint32_t p01[] = { 0, 1 }, p7[] = { 7 };
    struct builder b;
    struct snapshot s;
    struct target t;
    struct error e;
    struct bytes bytes;

    b_start(&b);
    b_good_head(&b);
    b_run(&b, 10, 8, p01, 2, 2);
    b_run(&b, 18, 8, p7, 1, 1);
    b_run(&b, FRAMES - 8, 8, p7, 1, 1);
    b_end(&b, 3, 4);
    bytes = b_finish(&b);
    CHECK(load(&bytes, &s, &t, &e) == 0);
    CHECK(s.frames_stored == 4);
    CHECK(frame(&t.gm, 10)[0] == 0x5a && frame(&t.gm, 11)[4095] == 0x5a);
    CHECK(frame(&t.gm, 12)[0] == 0 && frame(&t.gm, 25)[0] == 0x5a);
    CHECK(frame(&t.gm, FRAMES - 1)[100] == 0x5a && frame(&t.gm, FRAMES - 2)[0] == 0);
    snapshot_release(&s);
    target_release(&t);
    free(bytes.p);
}

static void wrong_section_for_config(void)
{
    struct builder b;

    b_start(&b);
    b_section(&b, SNAPSHOT_VCPU, &vcpu_bytes[0], sizeof(vcpu_bytes[0]));
    CHECK_CONTAINS(b_refused(&b), "section of kind 2 at byte 24 where its configuration "
                                  "belongs");
    b_start(&b);
    b_section(&b, SNAPSHOT_CONFIG, &vcpu_bytes[0], 40);
    CHECK_CONTAINS(b_refused(&b), "configuration section at byte 24 has 40 bytes");
}

static void bad_configs(void)
{
    static const struct {
        const char *field;
        size_t offset, size;
        uint64_t value;
        const char *want;
    } cases[] = {
#define FIELD(f) #f, offsetof(struct snapshot_config, f), sizeof(((struct snapshot_config *)0)->f)
        { FIELD(nr_cpus), 0, "the snapshot has 0 vCPUs (1 to 64)" },
        { FIELD(nr_cpus), 65, "the snapshot has 65 vCPUs (1 to 64)" },
        { FIELD(console_pfn), GUEST_PAGES, "console or xenstore page lies outside" },
        { FIELD(store_pfn), ~0ull, "console or xenstore page lies outside" },
        { FIELD(nr_pages), 0, "memory (0 + 16 frames) is more than perch can give" },
        { FIELD(private_frames), (128ull << 30) / PAGE_SIZE, "is more than perch can give" },
        { FIELD(tsc_khz), 0, "configuration is damaged" },
        { FIELD(cpl3_events), 2, "configuration is damaged" },
        { FIELD(tsc_native), 2, "configuration is damaged" },
        { FIELD(nr_disks), 9, "the snapshot has 9 disks (at most 8)" },
#undef FIELD
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct snapshot_config c = good_config(PRIVATE_FRAMES, GUEST_PAGES);
        struct builder b;

        memcpy((uint8_t *)&c + cases[i].offset, &cases[i].value, cases[i].size);
        b_start(&b);
        b_head(&b, &c);
        b_end(&b, 0, 0);
        check_case_name = cases[i].field;
        CHECK_CONTAINS(b_refused(&b), cases[i].want);
    }
}

/* One run as b_run takes it. */
struct run_spec {
    uint64_t first;
    uint32_t n;
    uint32_t present[2], nr_present;
    uint32_t pages;                      /* in its zstd frame */
};

/* Files with one or two runs and the END that counts them right, each run
 * wrong in one way. */
static void bad_runs(void)
{
    static const struct {
        struct run_spec runs[2];
        unsigned nr_runs;
        const char *want;
    } cases[] = {
        /* out of order: the second run starts inside the first, or before it */
        { { { 20, 8, { 0 }, 1, 1 }, { 27, 8, { 0 }, 1, 1 } }, 2,
          "memory run at frame 0x1b is out of order or outside" },
        { { { 20, 8, { 0 }, 1, 1 }, { 4, 8, { 0 }, 1, 1 } }, 2,
          "memory run at frame 0x4 is out of order or outside" },
        /* outside memory: starting past it, and running past its end */
        { { { FRAMES, 1, { 0 }, 1, 1 } }, 1, "outside the guest's 216 frames" },
        { { { FRAMES - 4, 8, { 0 }, 1, 1 } }, 1,
          "memory run at frame 0xd4 is out of order or outside" },
        /* zstd data of one page where the run stores two, and of two for one */
        { { { 0, 8, { 0, 1 }, 2, 1 } }, 1, "at frame 0 does not decompress to its 2 frames" },
        { { { 0, 8, { 0 }, 1, 2 } }, 1, "at frame 0 does not decompress to its 1 frames" },
        /* a present bit past the run's frames; a run of no frames */
        { { { 0, 8, { 9 }, 1, 1 } }, 1, "memory run at frame 0 miscounts its frames" },
        { { { 0, 0, { 0 }, 1, 1 } }, 1, "a memory run of 0 frames" },
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t stored = 0;
        struct builder b;

        b_start(&b);
        b_good_head(&b);
        for (unsigned r = 0; r < cases[i].nr_runs; r++) {
            const struct run_spec *run = &cases[i].runs[r];

            b_run(&b, run->first, run->n, run->present, run->nr_present, run->pages);
            stored += run->nr_present;
        }
        b_end(&b, cases[i].nr_runs, stored);
        CHECK_CONTAINS(b_refused(&b), cases[i].want);
    }
}

static void bad_ends(void)
{
    static const uint32_t p0[] = { 0 };
    struct builder b;

    b_start(&b);
    b_good_head(&b);
    b_run(&b, 0, 8, p0, 1, 1);
    b_end(&b, 2, 1);
    CHECK_CONTAINS(b_refused(&b), "end counts 2 memory runs and 1 frames; it holds 1 and 1");
    b_start(&b);
    b_good_head(&b);
    b_run(&b, 0, 8, p0, 1, 1);
    b_end(&b, 1, 0);
    CHECK_CONTAINS(b_refused(&b), "end counts 1 memory runs and 0 frames; it holds 1 and 1");
    /* no END at all, and another section where it belongs */
    b_start(&b);
    b_good_head(&b);
    b_run(&b, 0, 8, p0, 1, 1);
    CHECK_CONTAINS(b_refused(&b), "ends inside a section's header");
    b_start(&b);
    b_good_head(&b);
    b_section(&b, SNAPSHOT_XENSTORE, xenstore_blob, 4);
    CHECK_CONTAINS(b_refused(&b), "section of kind 3 at byte");
    /* bytes after a built END */
    b_start(&b);
    b_good_head(&b);
    b_end(&b, 0, 0);
    b_section(&b, SNAPSHOT_END, xenstore_blob, 0);
    CHECK_CONTAINS(b_refused(&b), "bytes after its end");
}

/* A vCPU section short by a byte, and xenstore empty. */
static void bad_vcpu_and_xenstore_sections(void)
{
    struct snapshot_config c = good_config(PRIVATE_FRAMES, GUEST_PAGES);
    struct builder b;

    b_start(&b);
    b_section(&b, SNAPSHOT_CONFIG, &c, sizeof(c));
    b_section(&b, SNAPSHOT_DISKS, NULL, 0);
    b_section(&b, SNAPSHOT_VCPU, &vcpu_bytes[0], sizeof(vcpu_bytes[0]) - 1);
    CHECK_CONTAINS(b_refused(&b), "vCPU section at byte");
    b_start(&b);
    c.nr_cpus = 1;
    b_section(&b, SNAPSHOT_CONFIG, &c, sizeof(c));
    b_section(&b, SNAPSHOT_DISKS, NULL, 0);
    b_section(&b, SNAPSHOT_VCPU, &vcpu_bytes[0], sizeof(vcpu_bytes[0]));
    b_section(&b, SNAPSHOT_XENSTORE, xenstore_blob, 0);
    CHECK_CONTAINS(b_refused(&b), "xenstore section at byte");
}

/* A disk's record: an absolute path within its field, no stray bits. */
static void bad_disks_section(void)
{
    static const struct { const char *path; uint32_t readonly, reserved; const char *want; }
    cases[] = {
        { "disk.img", 0, 0, "disk 0 has no absolute path" },
        { "/d.img", 2, 0, "disk 0 is damaged" },
        { "/d.img", 0, 1, "disk 0 is damaged" },
        { NULL, 0, 0, "disk 0 has no absolute path" },   /* no NUL in the field */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct snapshot_config c = good_config(PRIVATE_FRAMES, GUEST_PAGES);
        static struct snapshot_disk d;
        struct builder b;

        memset(&d, '/', sizeof(d));
        if (cases[i].path) {
            memset(&d, 0, sizeof(d));
            strcpy(d.path, cases[i].path);
        }
        d.readonly = cases[i].readonly;
        d.reserved = cases[i].reserved;
        c.nr_disks = 1;
        b_start(&b);
        b_section(&b, SNAPSHOT_CONFIG, &c, sizeof(c));
        b_section(&b, SNAPSHOT_DISKS, &d, sizeof(d));
        CHECK_CONTAINS(b_refused(&b), cases[i].want);
    }
}

/* prepare's refusal is snapshot_read's, and nothing is left allocated. */
static int refuse_config(void *arg, const struct snapshot_config *c, struct guest_memory **gm,
                         struct error *e)
{
    (void)arg;
    (void)gm;
    return fail(e, "not this one: %u vCPUs", c->nr_cpus);
}

static void prepare_refuses(void)
{
    struct bytes b = small_file();
    FILE *f = fmemopen(b.p, b.n, "r");
    struct snapshot s;
    struct error e;

    CHECK(f);
    CHECK(snapshot_read(f, &s, refuse_config, NULL, &e) == -1);
    CHECK(strcmp(e.msg, "not this one: 2 vCPUs") == 0);
    CHECK(!s.vcpus && !s.xenstore);
    fclose(f);
    free(b.p);
}

/* --- kvm_vcpu_state_check ----------------------------------------------------------- */

static const uint32_t msr_order[KVM_STATE_MSRS] = {
    MSR_IA32_TSC, MSR_STAR, MSR_LSTAR, MSR_CSTAR, MSR_SYSCALL_MASK,
    MSR_KERNEL_GS_BASE, MSR_TSC_AUX, MSR_SYSENTER_CS, MSR_SYSENTER_ESP,
    MSR_SYSENTER_EIP, MSR_PAT, MSR_KVM_STEAL_TIME,
};

static struct kvm_state_expected expected(unsigned cpu)
{
    struct kvm_state_expected x = {
        .cpu = cpu,
        .lstar = 0xffff808000402000ull + cpu * 0x40,
        .steal_gpa = 0x3000 + cpu * 64,
        .memory_bytes = (uint64_t)FRAMES * PAGE_SIZE,
    };

    return x;
}

/* vCPU cpu as perch runs it, in guest user mode. */
static struct kvm_vcpu_state perch_state(unsigned cpu)
{
    struct kvm_state_expected x = expected(cpu);
    struct kvm_vcpu_state st;
    uint32_t apic_id = cpu << 24;

    memset(&st, 0, sizeof(st));
    st.sregs.cr0 = PERCH_VCPU_CR0;
    st.sregs.cr4 = PERCH_VCPU_CR4;
    st.sregs.efer = PERCH_VCPU_EFER;
    st.sregs.cr3 = 0x20000;
    st.sregs.gdt.base = PERCH_CPU_VA(SW_GDT_VA, cpu);
    st.sregs.idt.base = PERCH_CPU_VA(SW_IDT_VA, cpu);
    st.sregs.tr.base = PERCH_CPU_VA(SW_TSS_VA, cpu);
    st.sregs.tr.selector = SW_TSS_SEL;
    st.sregs.apic_base = PERCH_APIC_GPA | APIC_BASE_ENABLE | (cpu ? 0 : APIC_BASE_BSP);
    st.sregs.cs.l = 1;
    st.sregs.cs.dpl = 3;
    st.regs.rflags = 0x202;
    st.regs.rip = 0x400000;
    st.mp_state.mp_state = KVM_MP_STATE_RUNNABLE;
    memcpy(st.lapic.regs + 0x20, &apic_id, sizeof(apic_id));
    st.nr_msrs = KVM_STATE_MSRS;
    for (unsigned i = 0; i < KVM_STATE_MSRS; i++) {
        st.msrs[i].index = msr_order[i];
        st.msrs[i].data = 0x1000 + i;    /* free: TSC, KERNEL_GS_BASE, SYSENTER_*, PAT */
    }
    st.msrs[1].data = PERCH_STAR;
    st.msrs[2].data = x.lstar;
    st.msrs[3].data = 0;                 /* CSTAR */
    st.msrs[4].data = 0;                 /* SFMASK */
    st.msrs[6].data = cpu;               /* TSC_AUX */
    st.msrs[11].data = x.steal_gpa | KVM_MSR_ENABLED;
    return st;
}

/* The message if st is refused for vCPU cpu with one line; NULL if not. */
static const char *state_refused(const struct kvm_vcpu_state *st, unsigned cpu)
{
    static struct error e;
    struct kvm_state_expected x = expected(cpu);
    char prefix[16];

    e.msg[0] = '\0';
    snprintf(prefix, sizeof(prefix), "vCPU %u: ", cpu);
    if (kvm_vcpu_state_check(st, &x, &e) != -1 || strchr(e.msg, '\n') ||
        strncmp(e.msg, prefix, strlen(prefix)))
        return NULL;
    return e.msg;
}

static void perch_states_pass(void)
{
    struct error e;

    for (unsigned cpu = 0; cpu < 3; cpu++) {
        struct kvm_vcpu_state st = perch_state(cpu);
        struct kvm_state_expected x = expected(cpu);

        CHECK(kvm_vcpu_state_check(&st, &x, &e) == 0);
        st.sregs.cs.dpl = 0;             /* in the Switcher */
        st.regs.rip = PERCH_CPU_VA(SW_CODE_VA, cpu) + 0x40;
        st.sregs.idt.base = PERCH_CPU_VA(SW_HALT_IDT_VA, cpu);
        st.mp_state.mp_state = KVM_MP_STATE_HALTED;
        st.regs.rflags = 0x246 | (1ull << 18);
        CHECK(kvm_vcpu_state_check(&st, &x, &e) == 0);
        st.nr_msrs = KVM_STATE_MSRS - 1; /* no steal-time area */
        CHECK(kvm_vcpu_state_check(&st, &x, &e) == 0);
        st.sregs.cr3 = x.memory_bytes - PAGE_SIZE;
        CHECK(kvm_vcpu_state_check(&st, &x, &e) == 0);
    }
}

static void strange_states_refused(void)
{
    struct kvm_vcpu_state st;

#define REFUSED(cpu, change, want)                               \
    do {                                                         \
        st = perch_state(cpu);                                   \
        change;                                                  \
        CHECK_CONTAINS(state_refused(&st, cpu) ?: "", want);     \
    } while (0)
    REFUSED(0, st.sregs.cr0 &= ~0x10000ull, "control registers cr0 0x80040033");
    REFUSED(0, st.sregs.cr4 |= 1, "control registers");
    REFUSED(0, st.sregs.efer = 0x501, "efer 0x501 are not perch's");
    REFUSED(0, st.sregs.cr3 = 0x20008, "cr3 0x20008 is no page");
    REFUSED(0, st.sregs.cr3 = (uint64_t)FRAMES * PAGE_SIZE, "cr3 0xd8000 is no page");
    REFUSED(0, st.sregs.gdt.base = PERCH_CPU_VA(SW_GDT_VA, 1), "descriptor tables (gdt");
    REFUSED(1, st.sregs.idt.base = PERCH_CPU_VA(SW_IDT_VA, 0), "descriptor tables");
    REFUSED(1, st.sregs.tr.base = PERCH_CPU_VA(SW_TSS_VA, 2), "descriptor tables");
    REFUSED(0, st.sregs.tr.selector = 0xe048, "descriptor tables");
    REFUSED(0, st.sregs.apic_base &= ~(uint64_t)APIC_BASE_BSP, "APIC base 0x800 is not 0x900");
    REFUSED(1, st.sregs.apic_base |= APIC_BASE_BSP, "APIC base 0x900 is not 0x800");
    REFUSED(0, st.sregs.apic_base += 0xfee00000, "APIC base");
    REFUSED(0, st.sregs.cs.l = 0, "code segment (dpl 3, long 0)");
    REFUSED(0, st.sregs.cs.dpl = 1, "code segment (dpl 1, long 1)");
    REFUSED(0, st.sregs.cs.dpl = 0, "ring 0 at rip");
    REFUSED(1, { st.sregs.cs.dpl = 0; st.regs.rip = PERCH_CPU_VA(SW_CODE_VA, 0); },
            "outside the Switcher");
    REFUSED(0, st.regs.rflags |= 0x3000, "rflags 0x3202 no guest can hold");
    REFUSED(0, st.regs.rflags |= 1ull << 17, "rflags 0x20202 no guest can hold");
    REFUSED(0, st.regs.rflags = 0x200, "rflags 0x200");
    REFUSED(0, st.mp_state.mp_state = KVM_MP_STATE_INIT_RECEIVED,
            "run state 2 is neither running nor halted");
    REFUSED(0, st.mp_state.mp_state = KVM_MP_STATE_SIPI_RECEIVED,
            "run state 4 is neither running nor halted");
    REFUSED(1, st.lapic.regs[0x23] = 0, "its APIC says it is 0");
    REFUSED(0, st.lapic.regs[0x23] = 1, "its APIC says it is 1");
    REFUSED(0, st.msrs[2].data += 0x40, "MSR 0xc0000082 is 0xffff808000402040, not perch's "
                                        "0xffff808000402000");
    REFUSED(0, st.msrs[1].data = 0, "MSR 0xc0000081 is 0");
    REFUSED(0, st.msrs[3].data = 1, "MSR 0xc0000083 is 0x1");
    REFUSED(0, st.msrs[4].data = 0x200, "MSR 0xc0000084 is 0x200");
    REFUSED(1, st.msrs[6].data = 0, "MSR 0xc0000103 is 0, not perch's 0x1");
    REFUSED(0, st.msrs[11].data = 0x3001 + 64, "MSR 0x4b564d03 is 0x3041");
    REFUSED(0, st.msrs[11].data = 0x3000, "MSR 0x4b564d03 is 0x3000");
    REFUSED(0, { st.msrs[1].index = MSR_LSTAR; st.msrs[2].index = MSR_STAR; },
            "MSR 1 is 0xc0000082, not 0xc0000081");
    REFUSED(0, st.msrs[11].index = MSR_GS_BASE, "MSR 11 is 0xc0000101, not 0x4b564d03");
    REFUSED(0, st.nr_msrs = 13, "13 MSRs saved, not 11 or 12");
    REFUSED(0, st.nr_msrs = 10, "10 MSRs saved, not 11 or 12");
    REFUSED(0, st.nr_msrs = ~0u, "4294967295 MSRs saved");
#undef REFUSED
}

int main(void)
{
    RUN(round_trip);
    RUN(zero_memory_round_trip);
    RUN(saved_file_is_small);
    RUN(truncated_at_every_length);
    RUN(every_bit_flip_is_refused);
    RUN(wrong_header);
    RUN(bytes_after_end);
    RUN(hand_made_file_loads);
    RUN(wrong_section_for_config);
    RUN(bad_configs);
    RUN(bad_runs);
    RUN(bad_ends);
    RUN(bad_vcpu_and_xenstore_sections);
    RUN(bad_disks_section);
    RUN(prepare_refuses);
    RUN(perch_states_pass);
    RUN(strange_states_refused);
    return check_exit_status();
}
