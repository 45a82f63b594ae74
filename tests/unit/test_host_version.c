/*
 * Unit tests of xen_version (host/xen/version.c): the numbers perch presents,
 * and the structures it copies out, byte for byte at the ABI's sizes (the
 * bytes after them in guest memory stay untouched).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/features.h"
#include "../../abi/xen/version.h"
#include "host_env.h"

#define FRAMES 64
#define VA     0xffffffff80500000ull
#define MFN    8
#define PAGES  2
#define FILL   0xa5

/* Sizes of Xen's public structures (xen/include/public/version.h). */

static uint8_t *guest_bytes(uint64_t va)
{
    return (uint8_t *)host_env_frame(MFN) + (va - VA);
}

static void setup(uint64_t flags)
{
    host_env_reset(FRAMES);
    memset(host_env_frame(MFN), FILL, PAGES * 4096);
    host_env_map_range(VA, MFN, PAGES, flags);
}

static long xv(uint64_t cmd, uint64_t arg)
{
    return do_xen_version(cmd, arg, 0, 0, 0);
}

/* Exactly `want` (of `bytes`) at va, FILL before and after. */
static int copied_exactly(uint64_t va, const void *want, size_t bytes)
{
    const uint8_t *g = guest_bytes(va);

    if (g[-1] != FILL || g[bytes] != FILL)
        return 0;
    return memcmp(g, want, bytes) == 0;
}

static void version_is_4_17(void)
{
    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_version, 0) == ((4 << 16) | 17));
    CHECK(xv(XENVER_version, ~0ull) == 0x40011);
    CHECK(host_env_nr_requests == 0);
}

static void extraversion_16_bytes(void)
{
    xen_extraversion_t want = ".0-perch";

    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_extraversion, VA + 100) == 0);
    CHECK(copied_exactly(VA + 100, want, sizeof(want)));
}

static void capabilities_1024_bytes_across_a_page(void)
{
    static xen_capabilities_info_t want = "xen-3.0-x86_64";
    uint64_t va = VA + 4096 - 300;

    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_capabilities, va) == 0);
    CHECK(copied_exactly(va, want, sizeof(want)));
}

static void changeset_64_bytes(void)
{
    xen_changeset_info_t want = "perch";

    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_changeset, VA + 8) == 0);
    CHECK(copied_exactly(VA + 8, want, sizeof(want)));
}

static void compile_info_fills_each_field(void)
{
    const uint8_t *g;

    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_compile_info, VA + 16) == 0);
    g = guest_bytes(VA + 16);
    CHECK(g[-1] == FILL);
    CHECK(g[(int)sizeof(struct xen_compile_info)] == FILL);
    for (int i = 0; i < (int)sizeof(struct xen_compile_info); i++)
        CHECK(g[i] != FILL);
    /* Each field NUL-terminated within its size. */
    CHECK(memchr(g, 0, 64) != NULL);
    CHECK(memchr(g + 64, 0, 16) != NULL);
    CHECK(memchr(g + 80, 0, 32) != NULL);
    CHECK(memchr(g + 112, 0, 32) != NULL);
    CHECK(strcmp((const char *)g, "gcc") == 0);
}

static void platform_parameters_hole_start(void)
{
    uint64_t want = 0xffff800000000000ull;

    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_platform_parameters, VA + 4096 - 4) == 0);
    CHECK(copied_exactly(VA + 4096 - 4, &want, 8));
}

static void get_features_submap_0(void)
{
    struct xen_feature_info fi = { .submap_idx = 0, .submap = 0xffffffffu };

    setup(HOST_ENV_RW);
    memcpy(guest_bytes(VA + 32), &fi, sizeof(fi));
    CHECK(xv(XENVER_get_features, VA + 32) == 0);
    memcpy(&fi, guest_bytes(VA + 32), sizeof(fi));
    CHECK(fi.submap_idx == 0);
    CHECK(fi.submap == ((1u << XENFEAT_mmu_pt_update_preserve_ad) |
                        (1u << XENFEAT_gnttab_map_avail_bits)));
    CHECK(guest_bytes(VA + 32)[8] == FILL);
}

static void get_features_other_submaps_einval(void)
{
    static const uint32_t idx[] = { 1, 2, 0x80000000u, 0xffffffffu };

    for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
        struct xen_feature_info fi = { .submap_idx = idx[i], .submap = 0x1234 };

        setup(HOST_ENV_RW);
        memcpy(guest_bytes(VA), &fi, sizeof(fi));
        CHECK(xv(XENVER_get_features, VA) == -XEN_EINVAL);
        memcpy(&fi, guest_bytes(VA), sizeof(fi));
        CHECK(fi.submap == 0x1234);   /* untouched */
    }
}

static void get_features_read_only_efault(void)
{
    struct xen_feature_info fi = { 0, 0 };

    setup(HOST_ENV_RO);
    memcpy(guest_bytes(VA), &fi, sizeof(fi));
    CHECK(xv(XENVER_get_features, VA) == -XEN_EFAULT);
}

static void pagesize_4096(void)
{
    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_pagesize, 0) == 4096);
}

static void commandline_and_build_id_eperm(void)
{
    setup(HOST_ENV_RW);
    CHECK(xv(XENVER_commandline, VA) == -XEN_EPERM);
    CHECK(xv(XENVER_commandline, VA) == -1);
    CHECK(xv(XENVER_build_id, VA) == -XEN_EPERM);
    CHECK(guest_bytes(VA)[0] == FILL);
}

static void bad_pointers_efault(void)
{
    static const uint64_t cmds[] = {
        XENVER_extraversion, XENVER_compile_info, XENVER_capabilities,
        XENVER_changeset, XENVER_platform_parameters, XENVER_get_features,
    };
    static const uint64_t vas[] = {
        0, 0x0000800000000000ull, XEN_HOLE_START, HOST_IMAGE_VA,
        VA + PAGES * 4096, VA + PAGES * 4096 - 4,
    };

    for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
        setup(HOST_ENV_RW);
        for (size_t v = 0; v < sizeof(vas) / sizeof(vas[0]); v++)
            CHECK(xv(cmds[c], vas[v]) == -XEN_EFAULT);
    }
    /* Read-only output buffers too (get_features has its own case: its
     * input must be valid to get as far as writing). */
    setup(HOST_ENV_RO);
    for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
        if (cmds[c] != XENVER_get_features)
            CHECK(xv(cmds[c], VA) == -XEN_EFAULT);
    CHECK(guest_bytes(VA)[0] == FILL);
}

static void unknown_enosys(void)
{
    static const uint64_t cmds[] = { 11, 12, 100, 0x80000000ull, ~0ull,
                                     (1ull << 32) | XENVER_version };

    setup(HOST_ENV_RW);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        CHECK(xv(cmds[i], VA) == -XEN_ENOSYS);
    CHECK(guest_bytes(VA)[0] == FILL);
}

int main(void)
{
    RUN(version_is_4_17);
    RUN(extraversion_16_bytes);
    RUN(capabilities_1024_bytes_across_a_page);
    RUN(changeset_64_bytes);
    RUN(compile_info_fills_each_field);
    RUN(platform_parameters_hole_start);
    RUN(get_features_submap_0);
    RUN(get_features_other_submaps_einval);
    RUN(get_features_read_only_efault);
    RUN(pagesize_4096);
    RUN(commandline_and_build_id_eperm);
    RUN(bad_pointers_efault);
    RUN(unknown_enosys);
    return check_exit_status();
}
