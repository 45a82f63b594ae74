/*
 * What the guest's TLB may still hold: which page-table changes need a
 * flush, and whether a flush the guest asks for has anything to do.
 */
#ifndef PERCH_TLB_H
#define PERCH_TLB_H

#include <stdbool.h>
#include <stdint.h>

/* An entry at `level` (1-4) changed from old to new. */
void tlb_note_change(uint64_t old, uint64_t new, int level);

/* The guest asked for a TLB flush (mmuext_op, update_va_mapping): it is
 * queued for the next way out, or dropped when nothing can be stale. */
void tlb_flush_requested(void);

/* Every vCPU's TLB must be flushed before it runs guest code again (this
 * one's on its way out, the others' by tlb_shootdown). */
void tlb_flush_everywhere(void);

/* The guest asked for a flush on the vCPUs in mask (bit i: vCPU i): this
 * one's as tlb_flush_requested, the others' by tlb_shootdown. */
void tlb_flush_vcpus(uint64_t mask);

/* At the end of a hypercall, when current->shootdown names vCPUs: each of
 * them that runs guest code now leaves it (an IPI) before this returns,
 * and flushes before it runs guest code again. */
void tlb_shootdown(void);

/* A CR3 load just flushed everything. */
void tlb_flushed(void);

/* Whether old -> new is a change KVM's shadow paging shows without a
 * flush: a new mapping where there was none, or only permissions added
 * (write access, accessed and dirty bits) to the same frame. */
bool tlb_change_is_visible(uint64_t old, uint64_t new);

#endif
