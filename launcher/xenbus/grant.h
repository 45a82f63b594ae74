/*
 * The back ends' side of the guest's grant table (v1): before a back end
 * (block, network), running on a Launcher thread as domain 0, reads or
 * writes a frame the guest granted, it takes the grant here and gives it
 * back afterwards, as Xen's grant copy acquires and releases an entry.
 *
 * The table is guest memory: the guest may rewrite an entry at any moment
 * (revoke it, point it elsewhere). So an entry is checked when its first
 * use begins, and that check and the GTF_reading / GTF_writing marks are
 * one atomic compare-and-exchange on the entry's flags and domid, which
 * the guest's own revoke (a compare-and-exchange that fails while either
 * mark is set) cannot cut in two. The frame is read once, after the marks,
 * and kept for every use until the last one ends: what the guest writes
 * into the entry meanwhile cannot change which page the back end touches.
 * Several threads may take and release grants at once.
 */
#ifndef PERCH_GRANT_H
#define PERCH_GRANT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../abi/xen/grant_table.h"
#include "../vm/guest_memory.h"

/* The back ends' domain id, which an entry must name. */
#define GRANT_BACKEND_DOMID 0

/* How the back ends use one entry now (Xen's active grant entry). */
struct grant_use {
    uint32_t uses;            /* takes not yet released, writes included */
    uint32_t writes;          /* of those, device_writes ones */
    uint64_t mfn;             /* the frame, read at the first take */
};

struct grant_table {
    volatile struct grant_entry_v1 *entries;   /* in the Launcher's mapping */
    uint32_t nr_entries;
    struct guest_memory *gm;
    struct grant_use *use;    /* nr_entries of them */
    pthread_mutex_t lock;     /* over `use` */
};

/*
 * Serve the table in the nr_frames consecutive frames from first_mfn
 * (perch_shared.boot.grant_first_mfn and grant_nr_frames), which must be
 * perch-private frames inside the memslot. 0, or -1 (bad frames, or no
 * memory for the bookkeeping).
 */
int grant_table_init(struct grant_table *gt, struct guest_memory *gm,
                     uint64_t first_mfn, uint32_t nr_frames);
void grant_table_fini(struct grant_table *gt);

/*
 * Take the frame behind gref for the back end, to read it (device_writes
 * false) or to write into it (true). The entry must permit access, name
 * domain 0, not be read-only for a write, and name one of the guest's own
 * frames (never perch's, the grant table's included). Marks it GTF_reading
 * (and GTF_writing) atomically, retrying a few times while the guest
 * changes it, as Xen does. Returns the page in the Launcher's mapping of
 * guest memory, or NULL with *why saying what was wrong (a constant
 * string). Every successful take needs its grant_release().
 */
void *grant_take(struct grant_table *gt, uint32_t gref, bool device_writes,
                 const char **why);

/* End one take of gref with the same device_writes: the last write clears
 * GTF_writing, the last use GTF_reading, after the back end's accesses. A
 * release without a take is ignored. */
void grant_release(struct grant_table *gt, uint32_t gref, bool device_writes);

#endif
