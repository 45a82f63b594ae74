/*
 * grant_table_op, version 1, for the guest's own table: what a PV front end
 * needs before it can grant anything (query_size, setup_table,
 * set_version, get_version). Granting itself needs no hypercall: the guest
 * writes entries into the table's frames, which it maps itself, and the
 * back ends, which run in the Launcher as domain 0, check each entry when
 * they use it (launcher/xenbus/grant.c). The operations a back end would issue
 * (map, unmap, copy, transfer) have no caller in a domU here: -ENOSYS.
 *
 * The facts are Xen's (common/grant_table.c, 4.17): the table starts with
 * one frame and grows, never shrinks, as setup_table asks for more, up to
 * its maximum; every operation but set_version insists on count 1; the
 * per-operation outcome is the status field, the return value only says
 * whether the arguments could be read.
 */
#include "grant_table.h"

#include "../../abi/xen/grant_table.h"
#include "../mm/mm.h"

/* Xen's INITIAL_NR_GRANT_FRAMES: the frame every table has from the start. */
#define INITIAL_FRAMES 1u

static uint64_t first_frame;
static uint32_t max_frames;
static uint32_t frames_in_use;

bool grant_table_boot(uint64_t first_mfn, uint64_t nr_frames)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;

    first_frame = 0;
    max_frames = frames_in_use = 0;
    mm_shared_frame_hook = grant_table_frame;   /* mm.c asks before an L1 entry maps one */
    if (!nr_frames)
        return true;
    if (nr_frames > UINT32_MAX || first_mfn > b->guest_mfn_base ||
        nr_frames > b->guest_mfn_base - first_mfn || b->guest_mfn_base > b->machine_frames)
        return false;
    first_frame = first_mfn;
    max_frames = (uint32_t)nr_frames;
    frames_in_use = INITIAL_FRAMES;
    return true;
}

bool grant_table_frame(uint64_t mfn)
{
    return mfn - first_frame < frames_in_use;
}

/* perch has one domain the guest can name: itself. */
static bool is_self(domid_t dom)
{
    return dom == DOMID_SELF;
}

/* Grow the table to at least n frames (n <= max_frames). The frames were
 * zeroed by the Launcher and never handed out before: nothing to clear. */
static void grow(uint32_t n)
{
    if (n > frames_in_use)
        frames_in_use = n;
}

/* The frames' machine numbers (a PV guest's gfns are mfns) into the
 * guest's list of xen_pfn_t, as many as asked; the status of the copy. */
static int16_t list_frames(uint64_t frame_list, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t mfn = first_frame + i;

        if (copy_to_guest(frame_list + i * sizeof(mfn), &mfn, sizeof(mfn)))
            return GNTST_bad_virt_addr;
    }
    return GNTST_okay;
}

static long setup_table(uint64_t uop, uint32_t count)
{
    struct gnttab_setup_table op;

    if (count != 1)
        return -XEN_EINVAL;
    if (copy_from_guest(&op, uop, sizeof(op)))
        return -XEN_EFAULT;
    if (!guest_handle_okay(op.frame_list, (uint64_t)op.nr_frames * sizeof(uint64_t)))
        return -XEN_EFAULT;
    if (!is_self(op.dom))
        op.status = GNTST_bad_domain;
    else if (op.nr_frames > max_frames)
        op.status = GNTST_general_error;
    else {
        grow(op.nr_frames);
        op.status = list_frames(op.frame_list, op.nr_frames);
    }
    /* Only the status goes back, as in Xen. */
    if (copy_to_guest(uop + offsetof(struct gnttab_setup_table, status),
                      &op.status, sizeof(op.status)))
        return -XEN_EFAULT;
    return 0;
}

static long query_size(uint64_t uop, uint32_t count)
{
    struct gnttab_query_size op;

    if (count != 1)
        return -XEN_EINVAL;
    if (copy_from_guest(&op, uop, sizeof(op)))
        return -XEN_EFAULT;
    if (is_self(op.dom)) {
        op.nr_frames = frames_in_use;
        op.max_nr_frames = max_frames;
        op.status = GNTST_okay;
    } else {
        op.status = GNTST_bad_domain;
    }
    return copy_to_guest(uop, &op, sizeof(op)) ? -XEN_EFAULT : 0;
}

/*
 * Version 1 only, as a Xen whose max_version is 1 (gnttab=max-ver:1):
 * asking for 2 is -ENOSYS ("as before set_version existed"), which Linux
 * takes as "use v1"; anything but 1 or 2 is -EINVAL. Either way the
 * version in force goes back to the guest. Xen reads no count here.
 */
static long set_version(uint64_t uop)
{
    struct gnttab_set_version op;
    long rc;

    if (copy_from_guest(&op, uop, sizeof(op)))
        return -XEN_EFAULT;
    if (op.version == 1)
        rc = 0;
    else
        rc = op.version == 2 ? -XEN_ENOSYS : -XEN_EINVAL;
    op.version = 1;
    return copy_to_guest(uop, &op, sizeof(op)) ? -XEN_EFAULT : rc;
}

static long get_version(uint64_t uop)
{
    struct gnttab_get_version op;

    if (copy_from_guest(&op, uop, sizeof(op)))
        return -XEN_EFAULT;
    if (!is_self(op.dom))
        return -XEN_ESRCH;
    op.version = 1;
    return copy_to_guest(uop + offsetof(struct gnttab_get_version, version),
                         &op.version, sizeof(op.version)) ? -XEN_EFAULT : 0;
}

/* Xen takes cmd and count as unsigned int: the registers' upper halves are
 * not looked at. A count that is negative as an int is -EINVAL first. */
long do_grant_table_op(uint64_t cmd64, uint64_t uop, uint64_t count64,
                       uint64_t a4, uint64_t a5)
{
    uint32_t cmd = (uint32_t)cmd64, count = (uint32_t)count64;

    (void)a4, (void)a5;
    if (!max_frames)
        return -XEN_ENOSYS;
    if ((int32_t)count < 0)
        return -XEN_EINVAL;
    if ((cmd & ~GNTTABOP_CMD_MASK) && (cmd & GNTTABOP_CMD_MASK) != GNTTABOP_cache_flush)
        return -XEN_EINVAL;
    switch (cmd) {
    case GNTTABOP_setup_table:
        return setup_table(uop, count);
    case GNTTABOP_query_size:
        return query_size(uop, count);
    case GNTTABOP_set_version:
        return set_version(uop);
    case GNTTABOP_get_version:
        return get_version(uop);
    default:
        return -XEN_ENOSYS;
    }
}
