/*
 * Unit tests of host/mm/tlb.c: which page-table changes leave the TLB stale,
 * and that a flush the guest asks for costs a visit only when one does.
 */
#include <stdint.h>

#include "check.h"
#include "host_env.h"
#include "../../host/mm/tlb.h"
#include "../../host/core/vcpu.h"

#define FRAME_A (0x1234ull << 12)
#define FRAME_B (0x5678ull << 12)
#define RO (PTE_P | PTE_US | PTE_A)

static void setup(uint32_t off)
{
    host_env_reset(0);
    optimizations_off = off;
    current->pending = 0;
    current->tlb_stale = false;
}

static void a_new_mapping_is_seen_without_a_flush(void)
{
    CHECK(tlb_change_is_visible(0, FRAME_A | RO));
    CHECK(tlb_change_is_visible(FRAME_B, FRAME_A | RO));   /* old not present */
}

static void added_write_access_and_ad_bits_are_seen_without_a_flush(void)
{
    CHECK(tlb_change_is_visible(FRAME_A | RO, FRAME_A | RO | PTE_RW));
    CHECK(tlb_change_is_visible(FRAME_A | PTE_P | PTE_US, FRAME_A | RO | PTE_D));
}

static void taking_anything_away_needs_a_flush(void)
{
    CHECK(!tlb_change_is_visible(FRAME_A | RO, 0));                      /* unmap */
    CHECK(!tlb_change_is_visible(FRAME_A | RO | PTE_RW, FRAME_A | RO));  /* write-protect */
    CHECK(!tlb_change_is_visible(FRAME_A | RO | PTE_D, FRAME_A | RO));   /* clean */
    CHECK(!tlb_change_is_visible(FRAME_A | RO, FRAME_A | PTE_P | PTE_US)); /* not accessed */
}

static void another_frame_or_nx_needs_a_flush(void)
{
    CHECK(!tlb_change_is_visible(FRAME_A | RO, FRAME_B | RO));
    CHECK(!tlb_change_is_visible(FRAME_A | RO, FRAME_A | RO | PTE_NX));
    CHECK(!tlb_change_is_visible(FRAME_A | RO, FRAME_A | RO | PTE_PCD));
}

static void a_flush_with_nothing_stale_is_dropped_and_counted(void)
{
    setup(0);
    tlb_note_change(0, FRAME_A | RO, 1);
    tlb_note_change(FRAME_A | RO, FRAME_A | RO | PTE_RW, 1);
    tlb_flush_requested();
    CHECK(current->pending == 0 && !current->tlb_stale);
    CHECK(perch_shared.stats.tlb_flushes_elided == 1);
}

static void a_flush_after_a_stale_change_is_queued(void)
{
    setup(0);
    tlb_note_change(FRAME_A | RO, 0, 1);
    CHECK(current->tlb_stale && current->pending == 0);   /* L1: the guest asks */
    tlb_flush_requested();
    CHECK(current->pending == PENDING_TLB_FLUSH);
    tlb_flushed();
    CHECK(current->pending == 0 && !current->tlb_stale);
    tlb_flush_requested();
    CHECK(current->pending == 0);                      /* the load flushed it all */
}

static void upper_level_changes_are_flushed_without_a_request(void)
{
    setup(0);
    tlb_note_change(FRAME_A | RO, FRAME_B | RO, 2);
    CHECK(current->pending == PENDING_TLB_FLUSH);
    setup(0);
    tlb_note_change(0, FRAME_B | RO, 3);
    CHECK(current->pending == 0);
}

static void without_elision_every_request_and_change_flushes(void)
{
    setup(PERCH_OPT_FLUSH_ELISION);
    tlb_flush_requested();
    CHECK(current->pending == PENDING_TLB_FLUSH);
    CHECK(perch_shared.stats.tlb_flushes_elided == 0);
    setup(PERCH_OPT_FLUSH_ELISION);
    tlb_note_change(FRAME_A | RO, FRAME_A | RO | PTE_RW, 4);
    CHECK(current->pending == PENDING_TLB_FLUSH);
}

int main(void)
{
    RUN(a_new_mapping_is_seen_without_a_flush);
    RUN(added_write_access_and_ad_bits_are_seen_without_a_flush);
    RUN(taking_anything_away_needs_a_flush);
    RUN(another_frame_or_nx_needs_a_flush);
    RUN(a_flush_with_nothing_stale_is_dropped_and_counted);
    RUN(a_flush_after_a_stale_change_is_queued);
    RUN(upper_level_changes_are_flushed_without_a_request);
    RUN(without_elision_every_request_and_change_flushes);
    return check_exit_status();
}
