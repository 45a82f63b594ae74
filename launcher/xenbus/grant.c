/*
 * The back ends' grant checks (see grant.h). The facts are Xen's grant
 * copy (common/grant_table.c, 4.17: _set_status_v1, acquire and release
 * of an active entry) as they apply to domain 0 copying from and to a
 * domU's own frames.
 */
#include "grant.h"

#include <stdlib.h>

/* Xen gives up on an entry the guest changes under it after five tries:
 * a guest can rewrite it faster than anyone can compare-and-exchange. */
#define SET_TRIES 5

int grant_table_init(struct grant_table *gt, struct guest_memory *gm,
                     uint64_t first_mfn, uint32_t nr_frames)
{
    uint64_t entries = (uint64_t)nr_frames * GRANT_ENTRIES_V1_PER_FRAME;

    gt->entries = NULL;
    gt->use = NULL;
    if (!nr_frames || first_mfn >= gm->guest_mfn_base ||
        nr_frames > gm->guest_mfn_base - first_mfn || entries > UINT32_MAX ||
        !gm_frame(gm, first_mfn + nr_frames - 1))
        return -1;
    gt->use = calloc(entries, sizeof(*gt->use));
    if (!gt->use || pthread_mutex_init(&gt->lock, NULL)) {
        free(gt->use);
        gt->use = NULL;
        return -1;
    }
    gt->entries = gm_frame(gm, first_mfn);
    gt->nr_entries = (uint32_t)entries;
    gt->gm = gm;
    return 0;
}

void grant_table_fini(struct grant_table *gt)
{
    if (!gt->use)
        return;
    pthread_mutex_destroy(&gt->lock);
    free(gt->use);
    gt->use = NULL;
    gt->entries = NULL;
}

/* flags and domid, which the guest and Xen change together: one 32-bit
 * word (flags in the low half, as x86 is little-endian). */
static uint32_t *entry_word(struct grant_table *gt, uint32_t gref)
{
    return (uint32_t *)&gt->entries[gref].flags;
}

#define WORD_FLAGS(w) ((uint16_t)(w))
#define WORD_DOMID(w) ((uint16_t)((w) >> 16))

/* Why an entry may not start being used (first: no use is running, so its
 * type and domid are checked; later takes only look at read-only), or
 * NULL. */
static const char *refusal(uint32_t word, bool first, bool device_writes)
{
    if (first && (WORD_FLAGS(word) & GTF_type_mask) != GTF_permit_access)
        return "the grant entry does not permit access";
    if (first && WORD_DOMID(word) != GRANT_BACKEND_DOMID)
        return "the grant entry names another domain";
    if (device_writes && (WORD_FLAGS(word) & GTF_readonly))
        return "the grant entry is read-only";
    return NULL;
}

/* Set GTF_reading (and GTF_writing) if the entry allows this use: NULL,
 * or why not. */
static const char *mark_in_use(uint32_t *word, bool first, bool device_writes)
{
    uint32_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    uint32_t marks = GTF_reading | (device_writes ? GTF_writing : 0);

    for (int tries = 1;; tries++) {
        const char *why = refusal(old, first, device_writes);

        if (why)
            return why;
        if (__atomic_compare_exchange_n(word, &old, old | marks, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return NULL;
        if (tries == SET_TRIES)
            return "the guest keeps changing the grant entry";
    }
}

static void clear_marks(uint32_t *word, uint32_t marks)
{
    if (marks)
        __atomic_fetch_and(word, ~marks, __ATOMIC_RELEASE);
}

/* A PV entry names a machine frame: it must be one of the guest's pages,
 * which leaves out perch's frames and the grant table's own. */
static bool guest_frame(const struct guest_memory *gm, uint64_t mfn)
{
    return mfn - gm->guest_mfn_base < gm->nr_pages;
}

/* The first use of an entry: its frame, read after the marks are set (the
 * guest may not move a grant in use), checked and kept. */
static const char *first_take(struct grant_table *gt, uint32_t gref, bool device_writes)
{
    uint32_t *word = entry_word(gt, gref);
    const char *why = mark_in_use(word, true, device_writes);
    uint64_t mfn;

    if (why)
        return why;
    mfn = __atomic_load_n(&gt->entries[gref].frame, __ATOMIC_ACQUIRE);
    if (!guest_frame(gt->gm, mfn)) {
        clear_marks(word, GTF_reading | (device_writes ? GTF_writing : 0));
        return "the grant entry names a frame that is not the guest's";
    }
    gt->use[gref].mfn = mfn;
    return NULL;
}

void *grant_take(struct grant_table *gt, uint32_t gref, bool device_writes,
                 const char **why)
{
    struct grant_use *u;
    const char *no = NULL;
    void *page = NULL;

    if (gref >= gt->nr_entries) {
        *why = "grant reference beyond the table";
        return NULL;
    }
    pthread_mutex_lock(&gt->lock);
    u = &gt->use[gref];
    if (!u->uses)
        no = first_take(gt, gref, device_writes);
    else if (device_writes && !u->writes)
        no = mark_in_use(entry_word(gt, gref), false, true);
    if (!no) {
        u->uses++;
        u->writes += device_writes;
        page = gm_frame(gt->gm, u->mfn);
    }
    pthread_mutex_unlock(&gt->lock);
    *why = no;
    return page;
}

void grant_release(struct grant_table *gt, uint32_t gref, bool device_writes)
{
    struct grant_use *u;
    uint32_t marks = 0;

    if (gref >= gt->nr_entries)
        return;
    pthread_mutex_lock(&gt->lock);
    u = &gt->use[gref];
    if (u->uses && (!device_writes || u->writes)) {
        u->uses--;
        u->writes -= device_writes;
        if (device_writes && !u->writes)
            marks |= GTF_writing;
        if (!u->uses)
            marks |= GTF_reading;
        clear_marks(entry_word(gt, gref), marks);
    }
    pthread_mutex_unlock(&gt->lock);
}
