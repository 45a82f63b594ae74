/*
 * Unit tests of the back ends' grant checks (launcher/xenbus/grant.c): good
 * grants for reading and writing and the marks they leave, hostile entries
 * (beyond the table, not permitted, another domain, read-only for a write,
 * a frame that is not the guest's, revoked), uses that overlap, and a
 * guest that revokes while another thread takes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../launcher/xenbus/grant.h"

#define PRIVATE    16
#define NR_PAGES   32
#define TABLE_MFN  4           /* two perch-private frames */
#define TABLE_FRAMES 2
#define GUEST_MFN(pfn) (PRIVATE + (pfn))

static struct guest_memory gm;
static struct grant_table gt;

static void setup(void)
{
    grant_table_fini(&gt);
    guest_memory_release(&gm);
    if (guest_memory_init(&gm, PRIVATE, NR_PAGES) ||
        grant_table_init(&gt, &gm, TABLE_MFN, TABLE_FRAMES))
        abort();
}

static volatile struct grant_entry_v1 *entry(uint32_t gref)
{
    return (volatile struct grant_entry_v1 *)gm_frame(&gm, TABLE_MFN) + gref;
}

/* As a front end grants: frame and domid first, the flags last. */
static void grant(uint32_t gref, uint16_t flags, uint16_t domid, uint32_t frame)
{
    entry(gref)->frame = frame;
    entry(gref)->domid = domid;
    __atomic_store_n(&entry(gref)->flags, flags, __ATOMIC_RELEASE);
}


#define CHECK_REFUSED(gref, writes, want)                                  \
    do {                                                                   \
        const char *why_ = NULL;                                           \
        CHECK(grant_take(&gt, (gref), (writes), &why_) == NULL);           \
        CHECK(why_ != NULL);                                               \
        CHECK_CONTAINS(why_, (want));                                      \
    } while (0)

static void read_grant_marks_reading(void)
{
    const char *why = "unset";
    void *page;

    setup();
    grant(7, GTF_permit_access | GTF_readonly, 0, GUEST_MFN(3));
    page = grant_take(&gt, 7, false, &why);
    CHECK(page == gm_pfn(&gm, 3));
    CHECK(why == NULL);
    CHECK(entry(7)->flags == (GTF_permit_access | GTF_readonly | GTF_reading));
    CHECK(entry(7)->domid == 0 && entry(7)->frame == GUEST_MFN(3));
    grant_release(&gt, 7, false);
    CHECK(entry(7)->flags == (GTF_permit_access | GTF_readonly));
}

static void write_grant_marks_both(void)
{
    const char *why;
    void *page;

    setup();
    grant(1023, GTF_permit_access, 0, GUEST_MFN(NR_PAGES - 1));
    page = grant_take(&gt, 1023, true, &why);
    CHECK(page == gm_pfn(&gm, NR_PAGES - 1));
    CHECK(entry(1023)->flags == (GTF_permit_access | GTF_reading | GTF_writing));
    grant_release(&gt, 1023, true);
    CHECK(entry(1023)->flags == GTF_permit_access);
}

static void gref_beyond_the_table(void)
{
    setup();
    CHECK(gt.nr_entries == TABLE_FRAMES * 512);
    CHECK_REFUSED(TABLE_FRAMES * 512, false, "beyond the table");
    CHECK_REFUSED(UINT32_MAX, true, "beyond the table");
    grant_release(&gt, UINT32_MAX, true);   /* ignored, no crash */
}

static void entry_not_permitted(void)
{
    setup();
    grant(2, GTF_invalid, 0, GUEST_MFN(0));
    CHECK_REFUSED(2, false, "does not permit access");
    grant(3, GTF_accept_transfer, 0, GUEST_MFN(0));
    CHECK_REFUSED(3, false, "does not permit access");
    grant(4, GTF_transitive, 0, GUEST_MFN(0));
    CHECK_REFUSED(4, true, "does not permit access");
    /* Marks the guest set itself do not make a grant. */
    grant(5, GTF_reading | GTF_writing, 0, GUEST_MFN(0));
    CHECK_REFUSED(5, false, "does not permit access");
    CHECK(entry(2)->flags == GTF_invalid && entry(3)->flags == GTF_accept_transfer);
}

static void entry_for_another_domain(void)
{
    setup();
    grant(9, GTF_permit_access, 1, GUEST_MFN(0));
    CHECK_REFUSED(9, false, "another domain");
    grant(9, GTF_permit_access, DOMID_SELF, GUEST_MFN(0));
    CHECK_REFUSED(9, true, "another domain");
    CHECK(entry(9)->flags == GTF_permit_access);
}

static void read_only_entry_for_a_write(void)
{
    const char *why;

    setup();
    grant(10, GTF_permit_access | GTF_readonly, 0, GUEST_MFN(1));
    CHECK_REFUSED(10, true, "read-only");
    CHECK(entry(10)->flags == (GTF_permit_access | GTF_readonly));
    /* Taken for reading, a write still is refused; the read goes on. */
    CHECK(grant_take(&gt, 10, false, &why) != NULL);
    CHECK_REFUSED(10, true, "read-only");
    CHECK(entry(10)->flags == (GTF_permit_access | GTF_readonly | GTF_reading));
    grant_release(&gt, 10, true);   /* no write was taken: ignored */
    CHECK(entry(10)->flags & GTF_reading);
    grant_release(&gt, 10, false);
    CHECK(entry(10)->flags == (GTF_permit_access | GTF_readonly));
}

/* perch's frames (the grant table's own, shared_info's neighbours, frame
 * 0), frames past the guest's pages and past the memslot: refused, and
 * the marks taken for the check are gone again. */
static void frame_outside_the_guest(void)
{
    static const uint32_t frames[] = {
        0, TABLE_MFN, TABLE_MFN + 1, PRIVATE - 1, GUEST_MFN(NR_PAGES),
        GUEST_MFN(NR_PAGES) + 1000, UINT32_MAX,
    };

    setup();
    for (unsigned i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
        grant(20 + i, GTF_permit_access, 0, frames[i]);
        CHECK_REFUSED(20 + i, i & 1, "not the guest's");
        CHECK(entry(20 + i)->flags == GTF_permit_access);
    }
}

static void revoked_before_the_take(void)
{
    const char *why;

    setup();
    grant(11, GTF_permit_access, 0, GUEST_MFN(2));
    CHECK(grant_take(&gt, 11, false, &why) != NULL);
    grant_release(&gt, 11, false);
    entry(11)->flags = 0;   /* the front end ended access */
    CHECK_REFUSED(11, false, "does not permit access");
}

/* A read and a write of one entry at once: GTF_writing goes with the last
 * write, GTF_reading with the last use; the frame stays the one of the
 * first take even if the guest rewrites the entry meanwhile. */
static void overlapping_uses(void)
{
    const char *why;
    void *a, *b;

    setup();
    grant(12, GTF_permit_access, 0, GUEST_MFN(5));
    a = grant_take(&gt, 12, false, &why);
    CHECK(a == gm_pfn(&gm, 5));
    entry(12)->frame = GUEST_MFN(6);
    b = grant_take(&gt, 12, true, &why);
    CHECK(b == a);
    CHECK(entry(12)->flags == (GTF_permit_access | GTF_reading | GTF_writing));
    grant_release(&gt, 12, true);
    CHECK(entry(12)->flags == (GTF_permit_access | GTF_reading));
    grant_release(&gt, 12, false);
    CHECK(entry(12)->flags == GTF_permit_access);
    grant_release(&gt, 12, false);   /* one too many: ignored */
    CHECK(entry(12)->flags == GTF_permit_access);
    /* A new first use reads the entry again. */
    CHECK(grant_take(&gt, 12, false, &why) == gm_pfn(&gm, 6));
    grant_release(&gt, 12, false);
}

/* Tables that are not perch-private frames inside the memslot. */
static void init_refuses_bad_frames(void)
{
    struct grant_table t;

    setup();
    CHECK(grant_table_init(&t, &gm, TABLE_MFN, 0) == -1);
    CHECK(grant_table_init(&t, &gm, PRIVATE, 1) == -1);
    CHECK(grant_table_init(&t, &gm, PRIVATE - 1, 2) == -1);
    CHECK(grant_table_init(&t, &gm, UINT64_MAX, 1) == -1);
    CHECK(grant_table_init(&t, &gm, 1, PRIVATE - 1) == 0);
    CHECK(t.nr_entries == (PRIVATE - 1) * 512);
    grant_table_fini(&t);
    grant_table_fini(&t);
}

/*
 * The guest grants and revokes as Linux does (gnttab_end_foreign_access_ref:
 * a compare-and-exchange of the flags to 0 that fails while GTF_reading or
 * GTF_writing is set), while another thread takes and releases. A
 * successful revoke must never meet a take that is still running.
 */
/* Until each side has succeeded this often (at most RACE_MAX_ROUNDS). */
#define RACE_WANT 2000
#define RACE_MAX_ROUNDS 50000000u
static volatile int race_holding, race_done;
static volatile int race_broken;
static unsigned race_taken, race_revoked;

static void *race_taker(void *arg)
{
    (void)arg;
    while (!race_done) {
        const char *why;
        bool writes = race_taken & 1;

        if (grant_take(&gt, 13, writes, &why)) {
            __atomic_store_n(&race_holding, 1, __ATOMIC_SEQ_CST);
            if (!(__atomic_load_n(&entry(13)->flags, __ATOMIC_SEQ_CST) & GTF_reading))
                race_broken = 1;
            race_taken++;
            __atomic_store_n(&race_holding, 0, __ATOMIC_SEQ_CST);
            grant_release(&gt, 13, writes);
        }
        /* Leave the guest a window between uses. */
        for (volatile int i = 0; i < 200; i++)
            ;
    }
    return NULL;
}

static bool guest_end_access(volatile uint16_t *flags)
{
    uint16_t old = __atomic_load_n(flags, __ATOMIC_SEQ_CST);

    do {
        if (old & (GTF_reading | GTF_writing))
            return false;
    } while (!__atomic_compare_exchange_n(flags, &old, 0, false, __ATOMIC_SEQ_CST,
                                          __ATOMIC_SEQ_CST));
    return true;
}

static void revoked_concurrently(void)
{
    pthread_t t;

    setup();
    race_done = race_broken = 0;
    race_taken = race_revoked = 0;
    grant(13, GTF_permit_access, 0, GUEST_MFN(7));
    CHECK(pthread_create(&t, NULL, race_taker, NULL) == 0);
    for (unsigned i = 0; i < RACE_MAX_ROUNDS &&
                         (race_revoked < RACE_WANT || race_taken < RACE_WANT); i++) {
        if (guest_end_access(&entry(13)->flags)) {
            if (__atomic_load_n(&race_holding, __ATOMIC_SEQ_CST))
                race_broken = 1;
            race_revoked++;
            grant(13, GTF_permit_access | (i & 2 ? GTF_readonly : 0), 0, GUEST_MFN(7));
        }
    }
    race_done = 1;
    pthread_join(t, NULL);
    CHECK(!race_broken);
    CHECK(race_revoked >= RACE_WANT && race_taken >= RACE_WANT);
    CHECK(entry(13)->flags == GTF_permit_access ||
          entry(13)->flags == (GTF_permit_access | GTF_readonly));
}

int main(void)
{
    RUN(read_grant_marks_reading);
    RUN(write_grant_marks_both);
    RUN(gref_beyond_the_table);
    RUN(entry_not_permitted);
    RUN(entry_for_another_domain);
    RUN(read_only_entry_for_a_write);
    RUN(frame_outside_the_guest);
    RUN(revoked_before_the_take);
    RUN(overlapping_uses);
    RUN(init_refuses_bad_frames);
    RUN(revoked_concurrently);
    grant_table_fini(&gt);
    guest_memory_release(&gm);
    return check_exit_status();
}
