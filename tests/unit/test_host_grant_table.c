/*
 * Unit tests of grant_table_op (host/xen/grant_table.c): query_size,
 * setup_table growing the table and listing its frames, set_version and
 * get_version (v1 only), the calling convention (count, the command's
 * upper bits), bad domains and bad guest pointers, and which of the
 * table's frames an L1 entry may map (host/mm/mm.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/grant_table.h"
#include "../../host/xen/grant_table.h"
#include "../../host/core/guest_mode.h"
#include "../../host/mm/mm.h"

#define FRAMES     64
#define MFN_BASE   16
#define NR_PAGES   40
#define TABLE_MFN  4          /* perch-private */
#define TABLE_MAX  4
#define VA         0xffffffff80300000ull
#define BUF_MFN    20
#define PAGES      2
#define LIST_VA    (VA + 2048)
#define UNMAPPED   0xffffffff80500000ull
#define HOLE_VA    0xffff808000000000ull
#define FILL       0xa5

static uint8_t *guest(uint64_t va)
{
    return (uint8_t *)host_env_frame(BUF_MFN) + (va - VA);
}

static void setup(void)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = MFN_BASE;
    perch_shared.boot.guest_nr_pages = NR_PAGES;
    memset(host_env_frame(BUF_MFN), FILL, PAGES * 4096);
    host_env_map_range(VA, BUF_MFN, PAGES, HOST_ENV_RW);
    guest_mode_start(perch_shared.boot.kernel_cr3, false);
    mm_frames = NULL;
    mm_strict = false;
    mm_shared_info_mfn = INVALID_MFN;
    if (!grant_table_boot(TABLE_MFN, TABLE_MAX))
        abort();
}

static long gop(uint64_t cmd, uint64_t uop, uint64_t count)
{
    return do_grant_table_op(cmd, uop, count, 0, 0);
}

static struct gnttab_query_size query(domid_t dom, long *rc)
{
    struct gnttab_query_size q = { .dom = dom, .nr_frames = 77, .status = 99 };

    memcpy(guest(VA), &q, sizeof(q));
    *rc = gop(GNTTABOP_query_size, VA, 1);
    memcpy(&q, guest(VA), sizeof(q));
    return q;
}

static long setup_table(domid_t dom, uint32_t nr, uint64_t list, int16_t *status)
{
    struct gnttab_setup_table s = { .dom = dom, .nr_frames = nr, .status = 99,
                                    .frame_list = list };
    long rc;

    memcpy(guest(VA), &s, sizeof(s));
    rc = gop(GNTTABOP_setup_table, VA, 1);
    memcpy(&s, guest(VA), sizeof(s));
    *status = s.status;
    return rc;
}

static uint64_t listed(unsigned i)
{
    uint64_t mfn;

    memcpy(&mfn, guest(LIST_VA + i * 8), sizeof(mfn));
    return mfn;
}

static void no_table_is_enosys(void)
{
    setup();
    CHECK(grant_table_boot(0, 0));
    CHECK(gop(GNTTABOP_query_size, VA, 1) == -XEN_ENOSYS);
    CHECK(gop(GNTTABOP_setup_table, VA, 1) == -XEN_ENOSYS);
    CHECK(!grant_table_frame(0));
}

/* As Xen: one frame from the start, the maximum the Launcher set aside. */
static void query_size_at_start(void)
{
    struct gnttab_query_size q;
    long rc;

    setup();
    q = query(DOMID_SELF, &rc);
    CHECK(rc == 0);
    CHECK(q.status == GNTST_okay && q.nr_frames == 1 && q.max_nr_frames == TABLE_MAX);
    q = query(0, &rc);
    CHECK(rc == 0 && q.status == GNTST_bad_domain && q.nr_frames == 77);
    CHECK(gop(GNTTABOP_query_size, UNMAPPED, 1) == -XEN_EFAULT);
}

/* Only the status field goes back; the list holds the frames' mfns. */
static void setup_table_grows_and_lists(void)
{
    struct gnttab_query_size q;
    struct gnttab_setup_table s;
    int16_t status;
    long rc;

    setup();
    CHECK(setup_table(DOMID_SELF, 3, LIST_VA, &status) == 0);
    CHECK(status == GNTST_okay);
    for (unsigned i = 0; i < 3; i++)
        CHECK(listed(i) == TABLE_MFN + i);
    CHECK(guest(LIST_VA + 24)[0] == FILL);
    memcpy(&s, guest(VA), sizeof(s));
    CHECK(s.nr_frames == 3 && s.frame_list == LIST_VA);
    q = query(DOMID_SELF, &rc);
    CHECK(q.nr_frames == 3);
    /* Fewer frames: listed, the table does not shrink. */
    CHECK(setup_table(DOMID_SELF, 1, LIST_VA, &status) == 0 && status == GNTST_okay);
    q = query(DOMID_SELF, &rc);
    CHECK(q.nr_frames == 3);
    CHECK(setup_table(DOMID_SELF, 0, 0, &status) == 0 && status == GNTST_okay);
    CHECK(setup_table(DOMID_SELF, TABLE_MAX, LIST_VA, &status) == 0 && status == GNTST_okay);
    CHECK(listed(TABLE_MAX - 1) == TABLE_MFN + TABLE_MAX - 1);
}

static void setup_table_refusals(void)
{
    struct gnttab_query_size q;
    int16_t status;
    long rc;

    setup();
    CHECK(setup_table(DOMID_SELF, TABLE_MAX + 1, LIST_VA, &status) == 0);
    CHECK(status == GNTST_general_error);
    CHECK(setup_table(DOMID_SELF, UINT32_MAX, 0x1000, &status) == 0);
    CHECK(status == GNTST_general_error);
    CHECK(setup_table(0, 2, LIST_VA, &status) == 0 && status == GNTST_bad_domain);
    CHECK(setup_table(1, 2, LIST_VA, &status) == 0 && status == GNTST_bad_domain);
    q = query(DOMID_SELF, &rc);
    CHECK(q.nr_frames == 1);
    CHECK(guest(LIST_VA)[0] == FILL);
    /* A list where guest pointers may not point: the call fails. */
    CHECK(setup_table(DOMID_SELF, 1, HOLE_VA, &status) == -XEN_EFAULT);
    CHECK(setup_table(DOMID_SELF, 2, 0x00007ffffffffff8ull, &status) == -XEN_EFAULT);
    /* An unmapped one: the table grew, the status says the copy failed. */
    CHECK(setup_table(DOMID_SELF, 2, UNMAPPED, &status) == 0);
    CHECK(status == GNTST_bad_virt_addr);
    q = query(DOMID_SELF, &rc);
    CHECK(q.nr_frames == 2);
    /* A list that runs off the mapping half-way. */
    CHECK(setup_table(DOMID_SELF, 2, VA + PAGES * 4096 - 8, &status) == 0);
    CHECK(status == GNTST_bad_virt_addr);
    CHECK(gop(GNTTABOP_setup_table, UNMAPPED, 1) == -XEN_EFAULT);
}

/* Every operation here insists on count 1; Xen reads cmd and count as
 * 32-bit numbers, and a negative count is refused first. */
static void calling_convention(void)
{
    long rc;

    setup();
    CHECK(gop(GNTTABOP_query_size, VA, 0) == -XEN_EINVAL);
    CHECK(gop(GNTTABOP_query_size, VA, 2) == -XEN_EINVAL);
    CHECK(gop(GNTTABOP_setup_table, VA, 2) == -XEN_EINVAL);
    CHECK(gop(GNTTABOP_query_size, VA, 0xffffffffull) == -XEN_EINVAL);
    CHECK(gop(GNTTABOP_map_grant_ref, VA, 0x80000000ull) == -XEN_EINVAL);
    query(DOMID_SELF, &rc);
    CHECK(rc == 0);
    CHECK(gop(GNTTABOP_query_size | (1ull << 32), VA, 1 | (1ull << 32)) == 0);
    CHECK(gop(GNTTABOP_query_size | (1u << 12), VA, 1) == -XEN_EINVAL);
    CHECK(gop(GNTTABOP_cache_flush | (1u << 12), VA, 1) == -XEN_ENOSYS);
    CHECK(gop(GNTTABOP_map_grant_ref, VA, 1) == -XEN_ENOSYS);
    CHECK(gop(GNTTABOP_copy, VA, 1) == -XEN_ENOSYS);
    CHECK(gop(GNTTABOP_get_status_frames, VA, 1) == -XEN_ENOSYS);
    CHECK(gop(4095, VA, 1) == -XEN_ENOSYS);
}

static long set_version(uint32_t v, uint32_t *out)
{
    long rc;

    memcpy(guest(VA), &v, sizeof(v));
    rc = gop(GNTTABOP_set_version, VA, 1);
    memcpy(out, guest(VA), sizeof(*out));
    return rc;
}

/* v1 only: v2 is what a Xen without it says (Linux then uses v1); the
 * version in force always goes back. */
static void versions(void)
{
    struct gnttab_get_version g = { .dom = DOMID_SELF, .pad = 0x1234, .version = 9 };
    uint32_t v;

    setup();
    CHECK(set_version(1, &v) == 0 && v == 1);
    CHECK(set_version(2, &v) == -XEN_ENOSYS && v == 1);
    CHECK(set_version(0, &v) == -XEN_EINVAL && v == 1);
    CHECK(set_version(3, &v) == -XEN_EINVAL && v == 1);
    CHECK(set_version(1, &v) == 0 && gop(GNTTABOP_set_version, VA, 7) == 0);
    CHECK(gop(GNTTABOP_set_version, UNMAPPED, 1) == -XEN_EFAULT);
    memcpy(guest(VA), &g, sizeof(g));
    CHECK(gop(GNTTABOP_get_version, VA, 1) == 0);
    memcpy(&g, guest(VA), sizeof(g));
    CHECK(g.version == 1 && g.pad == 0x1234 && g.dom == DOMID_SELF);
    g.dom = 0;
    memcpy(guest(VA), &g, sizeof(g));
    CHECK(gop(GNTTABOP_get_version, VA, 1) == -XEN_ESRCH);
    CHECK(gop(GNTTABOP_get_version, UNMAPPED, 1) == -XEN_EFAULT);
}

/* The frames given so far may be mapped writable by an L1 entry, like
 * shared_info; the rest of the table's frames, and any of them as a page
 * table, may not. */
static void mapping_the_frames(void)
{
    uint64_t l1e;
    int16_t status;

    setup();
    l1e = host_env_map(UNMAPPED, MFN_BASE, HOST_ENV_RW);
    CHECK(grant_table_frame(TABLE_MFN) && !grant_table_frame(TABLE_MFN + 1));
    CHECK(mm_write_entry(l1e, TABLE_MFN << 12 | HOST_ENV_RW, MM_L1, false) == 0);
    CHECK(guest_read_entry(l1e) == (TABLE_MFN << 12 | HOST_ENV_RW));
    CHECK(mm_write_entry(l1e, (TABLE_MFN + 1) << 12 | HOST_ENV_RW, MM_L1, false) == -XEN_EBUSY);
    CHECK(mm_write_entry(l1e, TABLE_MFN << 12 | HOST_ENV_RW, MM_L2, false) == -XEN_EINVAL);
    CHECK(setup_table(DOMID_SELF, TABLE_MAX, LIST_VA, &status) == 0 && status == GNTST_okay);
    CHECK(mm_write_entry(l1e, (TABLE_MFN + TABLE_MAX - 1) << 12 | HOST_ENV_RW, MM_L1, false) == 0);
    CHECK(mm_write_entry(l1e, (TABLE_MFN + TABLE_MAX) << 12 | HOST_ENV_RW, MM_L1, false) == -XEN_EBUSY);
    CHECK(mm_write_entry(l1e, (TABLE_MFN - 1) << 12 | HOST_ENV_RW, MM_L1, false) == -XEN_EBUSY);
}

/* The Launcher's frames must be perch-private and inside memory. */
static void boot_refuses_bad_frames(void)
{
    setup();
    CHECK(!grant_table_boot(MFN_BASE, 1));
    CHECK(!grant_table_boot(MFN_BASE - 1, 2));
    CHECK(!grant_table_boot(UINT64_MAX, 1));
    CHECK(!grant_table_boot(1, UINT64_MAX));
    CHECK(gop(GNTTABOP_query_size, VA, 1) == -XEN_ENOSYS);
    CHECK(grant_table_boot(1, MFN_BASE - 1));
}

int main(void)
{
    RUN(no_table_is_enosys);
    RUN(query_size_at_start);
    RUN(setup_table_grows_and_lists);
    RUN(setup_table_refusals);
    RUN(calling_convention);
    RUN(versions);
    RUN(mapping_the_frames);
    RUN(boot_refuses_bad_frames);
    return check_exit_status();
}
