/*
 * The guest's grant table as the Host sees it (host/xen/grant_table.c): the
 * perch-private frames the Launcher set aside (perch_shared.boot), how many
 * of them the guest has asked for so far, and which of them it may map.
 */
#ifndef PERCH_HOST_GRANT_TABLE_H
#define PERCH_HOST_GRANT_TABLE_H

#include "../core/host.h"

/*
 * Once at start (and by tests): the table is max_frames consecutive frames
 * from first_mfn, which must be perch-private (below guest_mfn_base) and
 * inside machine memory. 0 frames: no grant table, grant_table_op is
 * -ENOSYS as before perch had one. Returns false, leaving no table, when
 * the frames are not where they must be.
 */
bool grant_table_boot(uint64_t first_mfn, uint64_t max_frames);

/* Is mfn a frame of the table the guest has been given (setup_table's
 * frames so far, or the first, which exists from the start as in Xen)?
 * Those are the perch-private frames besides shared_info that an L1 entry
 * may map, writable: host/mm/mm.c asks through mm_shared_frame_hook,
 * which grant_table_boot() fills in. */
bool grant_table_frame(uint64_t mfn);

#endif
