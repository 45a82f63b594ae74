/*
 * Unit tests of memory_op (host/xen/memory_op.c): every command a PV Linux
 * issues, the extent bits of the command as Xen parses them, short and bad
 * buffers.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/memory.h"

#define FRAMES    64
#define VA        0xffffffff80300000ull
#define MFN       8
#define PAGES     2
#define UNMAPPED  0xffffffff80500000ull
#define FILL      0xa5
#define NR_PAGES  40
#define MFN_BASE  16

#define EXTENT(n) ((uint64_t)(n) << MEMOP_EXTENT_SHIFT)

static uint8_t *guest(uint64_t va)
{
    return (uint8_t *)host_env_frame(MFN) + (va - VA);
}

static void setup(uint64_t flags)
{
    host_env_reset(FRAMES);
    memset(host_env_frame(MFN), FILL, PAGES * 4096);
    host_env_map_range(VA, MFN, PAGES, flags);
    perch_shared.boot.guest_mfn_base = MFN_BASE;
    perch_shared.boot.guest_nr_pages = NR_PAGES;
}

static long mop(uint64_t cmd, uint64_t arg)
{
    return do_memory_op(cmd, arg, 0, 0, 0);
}

static void put_domid(uint64_t va, uint16_t domid)
{
    memcpy(guest(va), &domid, sizeof(domid));
}

static void memory_map_is_one_ram_region(void)
{
    struct xen_memory_map map = { .nr_entries = 128, .buffer = VA + 256 };
    struct e820_entry want = { 0, NR_PAGES * 4096ull, 1 }, got;

    setup(HOST_ENV_RW);
    memcpy(guest(VA), &map, sizeof(map));
    CHECK(mop(XENMEM_memory_map, VA) == 0);
    memcpy(&map, guest(VA), sizeof(map));
    CHECK(map.nr_entries == 1);
    CHECK(map.buffer == VA + 256);
    memcpy(&got, guest(VA + 256), sizeof(got));
    CHECK(memcmp(&got, &want, sizeof(got)) == 0);
    CHECK(sizeof(got) == 20);
    CHECK(guest(VA + 256)[20] == FILL);
}

static void memory_map_with_no_room(void)
{
    struct xen_memory_map map = { .nr_entries = 0, .buffer = UNMAPPED };

    setup(HOST_ENV_RW);
    memcpy(guest(VA), &map, sizeof(map));
    CHECK(mop(XENMEM_memory_map, VA) == 0);
    memcpy(&map, guest(VA), sizeof(map));
    CHECK(map.nr_entries == 0);
}

/* Room for exactly the one entry, ending at the end of the mapping. */
static void memory_map_exactly_one(void)
{
    uint64_t buf = VA + 2 * 4096 - 20;
    struct xen_memory_map map = { .nr_entries = 1, .buffer = buf };
    struct e820_entry want = { 0, NR_PAGES * 4096ull, 1 };

    setup(HOST_ENV_RW);
    memcpy(guest(VA), &map, sizeof(map));
    CHECK(mop(XENMEM_memory_map, VA) == 0);
    memcpy(&map, guest(VA), sizeof(map));
    CHECK(map.nr_entries == 1);
    CHECK(memcmp(guest(buf), &want, sizeof(want)) == 0);
}

static void memory_map_bad_buffers(void)
{
    struct xen_memory_map map = { .nr_entries = 4, .buffer = UNMAPPED };

    setup(HOST_ENV_RW);
    CHECK(mop(XENMEM_memory_map, UNMAPPED) == -XEN_EFAULT);
    CHECK(mop(XENMEM_memory_map, VA + 2 * 4096 - 8) == -XEN_EFAULT);
    memcpy(guest(VA), &map, sizeof(map));
    CHECK(mop(XENMEM_memory_map, VA) == -XEN_EFAULT);
    /* The count in the guest is left alone when the entries fail. */
    CHECK(((struct xen_memory_map *)guest(VA))->nr_entries == 4);
}

static void memory_map_read_only_struct(void)
{
    struct xen_memory_map map = { .nr_entries = 4, .buffer = VA + 4096 };

    setup(HOST_ENV_RW);
    host_env_map(VA, MFN, HOST_ENV_RO);
    memcpy(guest(VA), &map, sizeof(map));
    CHECK(mop(XENMEM_memory_map, VA) == -XEN_EFAULT);
}

static void memory_map_with_extent_bits_is_unknown(void)
{
    struct xen_memory_map map = { .nr_entries = 4, .buffer = VA + 256 };

    setup(HOST_ENV_RW);
    memcpy(guest(VA), &map, sizeof(map));
    CHECK(mop(XENMEM_memory_map | EXTENT(1), VA) == -XEN_ENOSYS);
    CHECK(guest(VA + 256)[0] == FILL);
}

static void machphys_mapping(void)
{
    struct xen_machphys_mapping m;

    setup(HOST_ENV_RW);
    CHECK(mop(XENMEM_machphys_mapping, VA + 8) == 0);
    memcpy(&m, guest(VA + 8), sizeof(m));
    CHECK(m.v_start == PERCH_M2P_VA);
    /* 64 frames: 512 bytes of M2P, one page. */
    CHECK(m.v_end == PERCH_M2P_VA + 4096);
    CHECK(m.max_mfn == FRAMES - 1);
    CHECK(guest(VA + 8 + 24)[0] == FILL && guest(VA + 7)[0] == FILL);
}

static void machphys_mapping_rounds_to_pages(void)
{
    struct xen_machphys_mapping m;

    setup(HOST_ENV_RW);
    perch_shared.boot.machine_frames = 513;   /* 4104 bytes: two pages */
    CHECK(mop(XENMEM_machphys_mapping, VA) == 0);
    memcpy(&m, guest(VA), sizeof(m));
    CHECK(m.v_end == PERCH_M2P_VA + 8192);
    CHECK(m.max_mfn == 512);
    perch_shared.boot.machine_frames = 512;
    CHECK(mop(XENMEM_machphys_mapping, VA) == 0);
    memcpy(&m, guest(VA), sizeof(m));
    CHECK(m.v_end == PERCH_M2P_VA + 4096);
}

static void machphys_mapping_bad_buffer(void)
{
    setup(HOST_ENV_RO);
    CHECK(mop(XENMEM_machphys_mapping, VA) == -XEN_EFAULT);
    CHECK(mop(XENMEM_machphys_mapping, UNMAPPED) == -XEN_EFAULT);
    CHECK(mop(XENMEM_machphys_mapping | EXTENT(2), VA) == -XEN_ENOSYS);
}

static void maximum_ram_page(void)
{
    setup(HOST_ENV_RW);
    CHECK(mop(XENMEM_maximum_ram_page, 0) == FRAMES);
    CHECK(mop(XENMEM_maximum_ram_page, UNMAPPED) == FRAMES);
    CHECK(mop(XENMEM_maximum_ram_page | EXTENT(1), 0) == -XEN_EINVAL);
}

static void reservations_of_self(void)
{
    setup(HOST_ENV_RW);
    put_domid(VA, DOMID_SELF);
    CHECK(mop(XENMEM_current_reservation, VA) == NR_PAGES);
    CHECK(mop(XENMEM_maximum_reservation, VA) == NR_PAGES);
    CHECK(mop(XENMEM_maximum_gpfn, VA) == NR_PAGES - 1);
}

static void reservations_of_others_and_bad_args(void)
{
    setup(HOST_ENV_RW);
    put_domid(VA, 0);
    CHECK(mop(XENMEM_current_reservation, VA) == -XEN_ESRCH);
    put_domid(VA, 7);
    CHECK(mop(XENMEM_maximum_reservation, VA) == -XEN_ESRCH);
    CHECK(mop(XENMEM_maximum_gpfn, UNMAPPED) == -XEN_EFAULT);
    put_domid(VA, DOMID_SELF);
    CHECK(mop(XENMEM_current_reservation | EXTENT(3), VA) == -XEN_EINVAL);
    CHECK(mop(XENMEM_maximum_gpfn | EXTENT(1), UNMAPPED) == -XEN_EINVAL);
    /* The domid is 16 bits: the next byte does not matter. */
    put_domid(VA + 4096 - 2, DOMID_SELF);
    CHECK(mop(XENMEM_current_reservation, VA + 4096 - 2) == NR_PAGES);
}

/* Without the frame table (host/mm/reservation.c keeps the balloon's
 * frames in it) nothing is given back or taken. */
static void reservation_changes_do_no_extent(void)
{
    struct xen_memory_reservation r = { .extent_start = VA + 512, .nr_extents = 4,
                             .domid = DOMID_SELF };

    setup(HOST_ENV_RW);
    memcpy(guest(VA), &r, sizeof(r));
    CHECK(mop(XENMEM_increase_reservation, VA) == 0);
    CHECK(mop(XENMEM_decrease_reservation, VA) == 0);
    CHECK(mop(XENMEM_populate_physmap, VA) == 0);
    /* A continuation reports the extents of its earlier parts. */
    CHECK(mop(XENMEM_populate_physmap | EXTENT(3), VA) == 3);
    CHECK(mop(XENMEM_decrease_reservation, UNMAPPED) == -XEN_EFAULT);
    /* Nothing was written to the extent list. */
    CHECK(guest(VA + 512)[0] == FILL);
}

static void other_commands_are_enosys(void)
{
    setup(HOST_ENV_RW);
    CHECK(mop(XENMEM_machphys_mfn_list, VA) == -XEN_ENOSYS);
    CHECK(mop(XENMEM_add_to_physmap, VA) == -XEN_ENOSYS);
    CHECK(mop(XENMEM_exchange, VA) == -XEN_ENOSYS);
    CHECK(mop(8, VA) == -XEN_ENOSYS);
    CHECK(mop(63, VA) == -XEN_ENOSYS);
    CHECK(mop(28, VA) == -XEN_ENOSYS);
}

int main(void)
{
    RUN(memory_map_is_one_ram_region);
    RUN(memory_map_with_no_room);
    RUN(memory_map_exactly_one);
    RUN(memory_map_bad_buffers);
    RUN(memory_map_read_only_struct);
    RUN(memory_map_with_extent_bits_is_unknown);
    RUN(machphys_mapping);
    RUN(machphys_mapping_rounds_to_pages);
    RUN(machphys_mapping_bad_buffer);
    RUN(maximum_ram_page);
    RUN(reservations_of_self);
    RUN(reservations_of_others_and_bad_args);
    RUN(reservation_changes_do_no_extent);
    RUN(other_commands_are_enosys);
    return check_exit_status();
}
