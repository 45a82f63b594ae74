/*
 * xen_version: perch presents itself as Xen 4.17 (the ABI it implements,
 * the era of Linux 6.1) with ".0-perch" as the extra version, so guests
 * that check version numbers take their modern paths.
 */
#include "../../abi/xen/features.h"
#include "../../abi/xen/version.h"
#include "../core/host.h"

#define PERCH_XEN_MAJOR 4
#define PERCH_XEN_MINOR 17

static const char extraversion[XEN_EXTRAVERSION_LEN] = ".0-perch";
static const char capabilities[] = "xen-3.0-x86_64";
static const char changeset[XEN_CHANGESET_LEN] = "perch";

/*
 * XENFEAT bits for a PV guest (submap 0), of those Xen gives a PV domU:
 * mmu_update's PRESERVE_AD is implemented; grant-map avail bits describe
 * how grant mappings would treat software bits (perch has no grant maps
 * yet, but Linux 6.1 refuses to boot without the bit).
 */
static const uint32_t features_submap0 = (1u << XENFEAT_mmu_pt_update_preserve_ad) |
                                         (1u << XENFEAT_gnttab_map_avail_bits);

static long copy_string_out(uint64_t arg, const char *s, size_t bytes)
{
    return copy_to_guest(arg, s, bytes) ? -XEN_EFAULT : 0;
}

static long version_features(uint64_t arg)
{
    struct xen_feature_info info;

    if (copy_from_guest(&info, arg, sizeof(info)))
        return -XEN_EFAULT;
    if (info.submap_idx >= XENFEAT_NR_SUBMAPS)
        return -XEN_EINVAL;
    info.submap = features_submap0;
    return copy_to_guest(arg, &info, sizeof(info)) ? -XEN_EFAULT : 0;
}

long do_xen_version(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    static const struct xen_compile_info compile_info = {
        "gcc", "perch", "perch", "",
    };
    char caps[XEN_CAPABILITIES_LEN] = { 0 };
    struct xen_platform_parameters params = { XEN_HOLE_START };

    (void)a3, (void)a4, (void)a5;
    switch (cmd) {
    case XENVER_version:
        return (PERCH_XEN_MAJOR << 16) | PERCH_XEN_MINOR;
    case XENVER_extraversion:
        return copy_string_out(arg, extraversion, sizeof(extraversion));
    case XENVER_compile_info:
        return copy_string_out(arg, (const char *)&compile_info, sizeof(compile_info));
    case XENVER_capabilities:
        __builtin_memcpy(caps, capabilities, sizeof(capabilities));
        return copy_string_out(arg, caps, sizeof(caps));
    case XENVER_changeset:
        return copy_string_out(arg, changeset, sizeof(changeset));
    case XENVER_platform_parameters:
        return copy_string_out(arg, (const char *)&params, sizeof(params));
    case XENVER_get_features:
        return version_features(arg);
    case XENVER_pagesize:
        return XEN_PAGE_SIZE;
    case XENVER_commandline:
    case XENVER_build_id:
        return -XEN_EPERM;   /* not for a domU, as in Xen */
    default:
        return -XEN_ENOSYS;
    }
}
