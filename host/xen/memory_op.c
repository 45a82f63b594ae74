/*
 * memory_op: what the guest learns about its memory, and the reservation
 * calls of its balloon driver.
 *
 * A perch guest's frames are pseudo-physical 0 .. nr_pages-1 on machine
 * frames guest_mfn_base onward. Its balloon driver (Linux's, when
 * xenstore's memory/target goes down) gives frames back with
 * decrease_reservation and takes them again with populate_physmap (or
 * increase_reservation) when the target rises: host/mm/reservation.c
 * keeps them, and the Launcher returns their memory to the host. Only
 * single frames (extent order 0), which is all Linux's driver asks for.
 * The queries answer from the boot's figures less the frames given back.
 */
#include "../../abi/xen/memory.h"
#include "../core/host.h"
#include "../mm/mm.h"

/*
 * The guest's e820: one RAM region over its pages and no holes, so Linux
 * has nothing to release or remap at boot (docs/xen-pv.md section 7). Xen gives
 * at most the entries that fit and says how many it wrote.
 */
static long memory_map(uint64_t arg)
{
    const struct e820_entry ram = {
        .addr = 0,
        .size = perch_shared.boot.guest_nr_pages * XEN_PAGE_SIZE,
        .type = E820_RAM,
    };
    struct xen_memory_map map;

    if (copy_from_guest(&map, arg, sizeof(map)))
        return -XEN_EFAULT;
    if (map.nr_entries > 1)
        map.nr_entries = 1;
    if (copy_to_guest(map.buffer, &ram, map.nr_entries * sizeof(ram)) ||
        copy_to_guest(arg, &map, sizeof(map)))
        return -XEN_EFAULT;
    return 0;
}

/*
 * perch's M2P: one 8-byte entry per machine frame at PERCH_M2P_VA, in the
 * 4 KiB pages the Launcher mapped (launcher/vm/hole.c), so v_end is the end
 * of the last of them.
 */
static long machphys_mapping(uint64_t arg)
{
    uint64_t frames = perch_shared.boot.machine_frames;
    uint64_t bytes = (frames * 8 + XEN_PAGE_SIZE - 1) & ~(XEN_PAGE_SIZE - 1);
    struct xen_machphys_mapping m = {
        .v_start = PERCH_M2P_VA,
        .v_end = PERCH_M2P_VA + bytes,
        .max_mfn = frames - 1,
    };

    return copy_to_guest(arg, &m, sizeof(m)) ? -XEN_EFAULT : 0;
}

/*
 * current/maximum_reservation and maximum_gpfn of a domain: only the
 * guest's own (DOMID_SELF); any other id is a domain that does not exist.
 * Xen's maximum_gpfn comes from the max_pfn the guest wrote in shared_info;
 * perch answers with the builder's p2m size, the value Linux writes there.
 */
static long domain_query(unsigned op, uint64_t arg)
{
    uint64_t pages = perch_shared.boot.guest_nr_pages;
    uint16_t domid;

    if (copy_from_guest(&domid, arg, sizeof(domid)))
        return -XEN_EFAULT;
    if (domid != DOMID_SELF)
        return -XEN_ESRCH;
    if (op == XENMEM_maximum_gpfn)
        return (long)(pages ? pages - 1 : 0);
    if (op == XENMEM_current_reservation)
        return (long)(pages - reservation_given_back());
    return (long)pages;
}

/*
 * One reservation call, extent by extent from start_extent: the count of
 * extents done so far (those of earlier parts of the call counted), as
 * Xen returns, or a negative error before any. decrease: each extent names
 * a frame the guest gives back. populate: each names the pseudo-physical
 * frame to fill, and gets the machine frame written over it; increase:
 * the same with no pseudo-physical frame given.
 */
static long reservation(unsigned op, uint64_t arg, uint64_t start_extent)
{
    struct xen_memory_reservation r;
    uint64_t i;

    if (copy_from_guest(&r, arg, sizeof(r)))
        return -XEN_EFAULT;
    if (r.domid != DOMID_SELF)
        return -XEN_ESRCH;
    if (r.extent_order || start_extent > r.nr_extents || r.nr_extents >> 60 ||
        !guest_handle_okay(r.extent_start, r.nr_extents * 8))
        return -XEN_EINVAL;
    for (i = start_extent; i < r.nr_extents; i++) {
        uint64_t frame, mfn, slot = r.extent_start + i * 8;

        if (op != XENMEM_increase_reservation && copy_from_guest(&frame, slot, 8))
            break;
        if (op == XENMEM_decrease_reservation) {
            if (!reservation_give_back(frame))
                break;
            continue;
        }
        if (op == XENMEM_increase_reservation)
            frame = INVALID_MFN;
        else if (frame >= perch_shared.boot.guest_nr_pages)
            break;
        mfn = reservation_take(frame);
        if (mfn == INVALID_MFN)
            break;
        if (copy_to_guest(slot, &mfn, 8)) {
            reservation_give_back(mfn);   /* its request cannot be answered: back */
            break;
        }
    }
    reservation_release();
    return (long)i;
}

long do_memory_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    uint64_t start_extent = cmd >> MEMOP_EXTENT_SHIFT;
    unsigned op = cmd & MEMOP_CMD_MASK;

    (void)a3, (void)a4, (void)a5;
    switch (op) {
    case XENMEM_increase_reservation:
    case XENMEM_decrease_reservation:
    case XENMEM_populate_physmap:
        return reservation(op, arg, start_extent);
    case XENMEM_maximum_ram_page:
        /* Xen's max_page: one more than the highest machine frame. */
        return start_extent ? -XEN_EINVAL : (long)perch_shared.boot.machine_frames;
    case XENMEM_current_reservation:
    case XENMEM_maximum_reservation:
    case XENMEM_maximum_gpfn:
        return start_extent ? -XEN_EINVAL : domain_query(op, arg);
    }
    /* Xen's x86 operations match the whole command: extent bits make an
     * unknown command. */
    switch (cmd) {
    case XENMEM_memory_map:
        return memory_map(arg);
    case XENMEM_machphys_mapping:
        return machphys_mapping(arg);
    default:
        return -XEN_ENOSYS;
    }
}
