/*
 * Grant tables, version 1 (Xen 4.17's public/grant_table.h): what a domain
 * needs to share its frames with a back end. perch serves query_size,
 * setup_table, set_version and get_version (host/xen/grant_table.c); its back
 * ends check entries in the Launcher (launcher/xenbus/grant.c).
 *
 * A v1 table is an array of 8-byte entries in frames the guest gets from
 * GNTTABOP_setup_table. The guest writes frame and domid, then flags last
 * (GTF_permit_access and friends); the hypervisor sets GTF_reading and
 * GTF_writing while the grant is in use. A PV guest's frame is a machine
 * frame number.
 */
#ifndef PERCH_ABI_XEN_GRANT_TABLE_H
#define PERCH_ABI_XEN_GRANT_TABLE_H

#include "xen.h"

#define GNTTABOP_map_grant_ref     0
#define GNTTABOP_unmap_grant_ref   1
#define GNTTABOP_setup_table       2
#define GNTTABOP_dump_table        3
#define GNTTABOP_transfer          4
#define GNTTABOP_copy              5
#define GNTTABOP_query_size        6
#define GNTTABOP_unmap_and_replace 7
#define GNTTABOP_set_version       8
#define GNTTABOP_get_status_frames 9
#define GNTTABOP_get_version      10
#define GNTTABOP_swap_grant_ref   11
#define GNTTABOP_cache_flush      12

/* The command's bits 12 and up carry Xen's continuation argument (Xen's
 * own definition, but part of the ABI in effect): only cache_flush may
 * have them set by a guest. */
#define GNTTABOP_CMD_MASK          0xfffu

/* The first entries are reserved for the toolstack's own grants. */
#define GNTTAB_NR_RESERVED_ENTRIES 8
#define GNTTAB_RESERVED_CONSOLE    0
#define GNTTAB_RESERVED_XENSTORE   1

/* An entry's flags: the type in bits 0-1, then modifiers. */
#define GTF_invalid            0x0000u
#define GTF_permit_access      0x0001u   /* domid may map or access frame */
#define GTF_accept_transfer    0x0002u   /* domid may transfer a frame here */
#define GTF_transitive         0x0003u   /* v2 only */
#define GTF_type_mask          0x0003u
#define GTF_readonly           (1u << 2) /* permit_access: no writes */
#define GTF_reading            (1u << 3) /* set by Xen while mapped for reading */
#define GTF_writing            (1u << 4) /* set by Xen while mapped writable */
#define GTF_PWT                (1u << 5)
#define GTF_PCD                (1u << 6)
#define GTF_PAT                (1u << 7)
#define GTF_sub_page           (1u << 8) /* v2 only */
#define GTF_transfer_committed (1u << 2) /* accept_transfer: in progress */
#define GTF_transfer_completed (1u << 3) /* accept_transfer: frame holds the MFN */

/* Per-operation status (int16_t), 0 or negative. */
#define GNTST_okay              0
#define GNTST_general_error    (-1)
#define GNTST_bad_domain       (-2)
#define GNTST_bad_gntref       (-3)
#define GNTST_bad_handle       (-4)
#define GNTST_bad_virt_addr    (-5)
#define GNTST_bad_dev_addr     (-6)
#define GNTST_no_device_space  (-7)
#define GNTST_permission_denied (-8)
#define GNTST_bad_page         (-9)
#define GNTST_bad_copy_arg    (-10)
#define GNTST_address_too_big (-11)
#define GNTST_eagain          (-12)
#define GNTST_no_space        (-13)

#ifndef __ASSEMBLER__

typedef uint32_t grant_ref_t;

struct grant_entry_v1 {
    uint16_t flags;            /* GTF_* */
    domid_t domid;             /* who may use the grant */
    uint32_t frame;            /* the guest frame shared (or transferred) */
};
_Static_assert(sizeof(struct grant_entry_v1) == 8, "grant_entry_v1");
_Static_assert(offsetof(struct grant_entry_v1, domid) == 2, "grant_entry_v1.domid");
_Static_assert(offsetof(struct grant_entry_v1, frame) == 4, "grant_entry_v1.frame");

/* GNTTABOP_setup_table: grow the table to nr_frames and list its frames. */
struct gnttab_setup_table {
    domid_t dom;               /* in */
    uint32_t nr_frames;        /* in */
    int16_t status;            /* out: GNTST_* */
    uint64_t frame_list;       /* in: guest VA of nr_frames frame numbers (out) */
};
_Static_assert(sizeof(struct gnttab_setup_table) == 24, "gnttab_setup_table");
_Static_assert(offsetof(struct gnttab_setup_table, nr_frames) == 4, "setup.nr_frames");
_Static_assert(offsetof(struct gnttab_setup_table, status) == 8, "setup.status");
_Static_assert(offsetof(struct gnttab_setup_table, frame_list) == 16, "setup.frame_list");

/* GNTTABOP_query_size: the table's current and largest size in frames. */
struct gnttab_query_size {
    domid_t dom;               /* in */
    uint32_t nr_frames;        /* out */
    uint32_t max_nr_frames;    /* out */
    int16_t status;            /* out: GNTST_* */
};
_Static_assert(sizeof(struct gnttab_query_size) == 16, "gnttab_query_size");
_Static_assert(offsetof(struct gnttab_query_size, nr_frames) == 4, "query.nr_frames");
_Static_assert(offsetof(struct gnttab_query_size, max_nr_frames) == 8, "query.max_nr_frames");
_Static_assert(offsetof(struct gnttab_query_size, status) == 12, "query.status");

/* GNTTABOP_set_version: in the version wanted, out the one in force. */
struct gnttab_set_version {
    uint32_t version;          /* in/out */
};
_Static_assert(sizeof(struct gnttab_set_version) == 4, "gnttab_set_version");

/* GNTTABOP_get_version: the version of dom's table. */
struct gnttab_get_version {
    domid_t dom;               /* in */
    uint16_t pad;
    uint32_t version;          /* out */
};
_Static_assert(sizeof(struct gnttab_get_version) == 8, "gnttab_get_version");
_Static_assert(offsetof(struct gnttab_get_version, version) == 4, "get_version.version");

/* Entries per frame of a v1 table. */
#define GRANT_ENTRIES_V1_PER_FRAME (XEN_PAGE_SIZE / sizeof(struct grant_entry_v1))

#endif /* !__ASSEMBLER__ */

#endif
