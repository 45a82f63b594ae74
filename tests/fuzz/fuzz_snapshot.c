/* libFuzzer harness of the snapshot reader (launcher/snapshot/): any bytes are refused with one printable line and nothing left allocated, or read to a snapshot in shape whose memory holds what it counts and whose every vCPU kvm_vcpu_state_check takes or refuses with one line. An input refused for a checksum is read again with its sections' CRCs made right, so that the checks behind them are reached too. */
#include "fuzz.h"

#include <zlib.h>

#include "../../abi/layout.h"
#include "../../launcher/snapshot/snapshot.h"
#include "../../launcher/snapshot/snapshot_memory.h"

/* Larger memory is refused as prepare refuses what the host cannot give. */
#define FUZZ_FRAMES_MAX 4096u

/* What the seeds' vCPUs were given (tests/fuzz/corpus/snapshot/). */
#define FUZZ_LSTAR     0xffff808000402000ull
#define FUZZ_STEAL_GPA 0x3000ull

struct target {
    struct guest_memory gm;
    bool prepared;
};

static int prepare(void *arg, const struct snapshot_config *c, struct guest_memory **gm,
                   struct error *e)
{
    struct target *t = arg;

    FUZZ_ASSERT(!t->prepared);
    if (c->private_frames + c->nr_pages > FUZZ_FRAMES_MAX)
        return fail(e, "fuzz: more than %u frames", FUZZ_FRAMES_MAX);
    FUZZ_ASSERT(guest_memory_init(&t->gm, c->private_frames, c->nr_pages) == 0);
    t->prepared = true;
    *gm = &t->gm;
    return 0;
}

/* memcmp, not a loop: a compare a byte instrumented for coverage makes
 * reading every frame most of a run's time. */
static bool page_is_zero(const uint8_t *p)
{
    static const uint8_t zero[PAGE_SIZE];

    return memcmp(p, zero, PAGE_SIZE) == 0;
}

/* A snapshot read: its form as snapshot.c promises it, then each vCPU
 * checked as the restore checks it. */
static void check_loaded(const struct snapshot *s, const struct target *t)
{
    const struct snapshot_config *c = &s->config;
    uint64_t frames = t->gm.bytes / PAGE_SIZE, nonzero = 0;

    FUZZ_ASSERT(t->prepared && s->vcpus && s->xenstore);
    FUZZ_ASSERT(s->xenstore_len >= 1 && s->xenstore_len <= SNAPSHOT_XENSTORE_MAX);
    FUZZ_ASSERT(c->nr_cpus >= 1 && c->nr_cpus <= PERCH_MAX_VCPUS && c->tsc_khz &&
                c->nr_disks <= SNAPSHOT_DISKS_MAX);
    FUZZ_ASSERT(c->console_pfn < c->nr_pages && c->store_pfn < c->nr_pages);
    FUZZ_ASSERT(frames == c->private_frames + c->nr_pages);
    for (uint64_t f = 0; f < frames; f++)
        nonzero += !page_is_zero(t->gm.base + f * PAGE_SIZE);
    /* A stored frame may be zero bytes: the writer leaves them out, the
     * reader does not care. */
    FUZZ_ASSERT(nonzero <= s->frames_stored && s->frames_stored <= frames);
    for (uint32_t i = 0; i < c->nr_cpus; i++) {
        struct kvm_state_expected x = {
            .cpu = i,
            .lstar = FUZZ_LSTAR,
            .steal_gpa = FUZZ_STEAL_GPA + i * 64,
            .memory_bytes = t->gm.bytes,
        };
        struct error e = { "" };

        if (kvm_vcpu_state_check(&s->vcpus[i], &x, &e))
            FUZZ_ASSERT(fuzz_one_line(e.msg));
    }
}

/* Read data; 0 if it loaded, else -1 with e. */
static int read_once(const uint8_t *data, size_t size, struct error *e)
{
    FILE *f = fmemopen((void *)data, size, "r");
    struct target t = { .prepared = false };
    struct snapshot s;
    int rc;

    FUZZ_ASSERT(f);
    e->msg[0] = '\0';
    rc = snapshot_read(f, &s, prepare, &t, e);
    fclose(f);
    if (rc == 0) {
        check_loaded(&s, &t);
        snapshot_release(&s);
    } else {
        FUZZ_ASSERT(rc == -1 && fuzz_one_line(e->msg));
        FUZZ_ASSERT(!s.vcpus && !s.xenstore);
    }
    if (t.prepared)
        guest_memory_release(&t.gm);
    return rc;
}

/* Each section's CRC made that of the payload it has (or the part of it
 * the input holds). */
static void fix_crcs(uint8_t *p, size_t size)
{
    size_t at = sizeof(struct snapshot_file_header);

    while (size - at >= sizeof(struct snapshot_section)) {     /* at <= size */
        struct snapshot_section s;
        size_t left;

        memcpy(&s, p + at, sizeof(s));
        at += sizeof(s);
        left = size - at;
        if (s.length > left)
            s.length = left;
        s.crc32 = (uint32_t)crc32(crc32(0, Z_NULL, 0), p + at, (uInt)s.length);
        memcpy(p + at - sizeof(s) + offsetof(struct snapshot_section, crc32), &s.crc32,
               sizeof(s.crc32));
        at += s.length;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct error e;
    uint8_t *fixed;

    if (read_once(data, size, &e) == 0 || !strstr(e.msg, "checksum does not match") ||
        size < sizeof(struct snapshot_file_header))
        return 0;
    fixed = malloc(size);
    FUZZ_ASSERT(fixed);
    memcpy(fixed, data, size);
    fix_crcs(fixed, size);
    read_once(fixed, size, &e);
    free(fixed);
    return 0;
}
