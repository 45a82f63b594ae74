/*
 * The balloon's frames: what a guest's balloon driver gives back to the
 * host (Xen's decrease_reservation) and takes again (populate_physmap,
 * increase_reservation). A perch guest owns a fixed range of machine
 * frames; one it gives back stays in that range, marked in mm_frames,
 * and its memory goes back to the host: the Launcher drops it from its
 * mapping of guest memory (MADV_DONTNEED), so the perch process shrinks.
 * Taken again, the frame reads as zero, as a scrubbed Xen page does.
 * Frames are released at the end of each give-back call, before any can
 * be taken again.
 */
#include "mm.h"

#include "../core/env.h"

static uint64_t search_from;   /* where reservation_take looks first */

static struct mm_frame_info *info(uint64_t mfn)
{
    return &mm_frames[mfn];
}

/* The ranges waiting for reservation_release, in perch_shared.release: a
 * frame next to the last range, above or below (Linux's page allocator
 * often hands out descending frames), grows it. */
static void queue_release(uint64_t mfn)
{
    typeof(perch_shared.release) *r = &perch_shared.release;
    typeof(r->range[0]) *last = r->nr ? &r->range[r->nr - 1] : NULL;

    if (last && last->first_mfn + last->frames == mfn) {
        last->frames++;
        return;
    }
    if (last && last->first_mfn == mfn + 1) {
        last->first_mfn = mfn;
        last->frames++;
        return;
    }
    if (r->nr == PERCH_RELEASE_RANGES)
        reservation_release();
    r->range[r->nr].first_mfn = mfn;
    r->range[r->nr].frames = 1;
    r->nr++;
}

bool reservation_give_back(uint64_t mfn)
{
    if (!mm_frames)
        return false;
    if (!guest_owns_frame(mfn))
        host_fatal("the balloon gave back frame %lx, which is not the guest's", mfn);
    if (info(mfn)->flags & MM_FRAME_GIVEN_BACK)
        host_fatal("the balloon gave back frame %lx twice", mfn);
    if (mm_frame_in_use(mfn))
        host_fatal("the balloon gave back frame %lx, still in use as a page table", mfn);
    info(mfn)->flags |= MM_FRAME_GIVEN_BACK;
    perch_shared.stats.frames_given_back++;
    (void)mm_set_m2p(mfn, INVALID_MFN);
    queue_release(mfn);
    return true;
}

void reservation_release(void)
{
    if (!perch_shared.release.nr)
        return;
    launcher_request(PERCH_REQ_RELEASE_FRAMES, perch_shared.release.nr);
    perch_shared.release.nr = 0;
}

/* Next fit from where the last search stopped: a balloon that fills again
 * walks the frame table about once. */
uint64_t reservation_take(uint64_t pfn)
{
    uint64_t first = perch_shared.boot.guest_mfn_base, n = perch_shared.boot.guest_nr_pages;

    if (!reservation_given_back())
        return INVALID_MFN;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t mfn = first + (search_from + i) % n;

        if (info(mfn)->flags & MM_FRAME_GIVEN_BACK) {
            info(mfn)->flags &= (uint8_t)~MM_FRAME_GIVEN_BACK;
            perch_shared.stats.frames_taken++;
            search_from = (mfn - first + 1) % n;
            (void)mm_set_m2p(mfn, pfn);
            return mfn;
        }
    }
    return INVALID_MFN;   /* not reached while the counts are right */
}

/* The counts --stats shows are the only record: marked frames = given
 * back - taken. */
uint64_t reservation_given_back(void)
{
    return perch_shared.stats.frames_given_back - perch_shared.stats.frames_taken;
}
