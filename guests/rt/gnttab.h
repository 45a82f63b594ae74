/*
 * A front end's grant table, v1, as Linux's gnttab_init sets it up:
 * GNTTABOP_setup_table for a few frames, each mapped writable into the
 * guest with update_va_mapping; then entries written directly (frame and
 * domid first, flags last) and ended with a compare-and-exchange.
 */
#ifndef PERCH_RT_GNTTAB_H
#define PERCH_RT_GNTTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/grant_table.h"

/* What the runtime maps at most: 2048 entries. */
#define RT_GNTTAB_FRAMES 4u
#define RT_GNTTAB_ENTRIES (RT_GNTTAB_FRAMES * GRANT_ENTRIES_V1_PER_FRAME)

/* Linux keeps the first 8 references for the toolstack. */
#define RT_GNTTAB_FIRST_FREE 8u

extern volatile struct grant_entry_v1 *rt_gnttab;

/* setup_table for nr_frames (<= RT_GNTTAB_FRAMES) and the mappings; a FAIL
 * line names the step that failed. */
bool rt_gnttab_init(uint32_t nr_frames);

/* Let domain `dom` use the frame `mfn` (read only or writable). */
void rt_gnttab_grant(grant_ref_t ref, domid_t dom, uint64_t mfn, bool readonly);

/* Revoke; false while the back end still has it in use. */
bool rt_gnttab_end(grant_ref_t ref);

/* The machine frame behind a guest virtual address in the image (the
 * builder maps pfn N at VIRT_BASE + N * 4 KiB; the p2m list says its mfn). */
uint64_t rt_virt_to_mfn(const void *va);

#endif
