/*
 * xen_version (Xen 4.17's public/version.h): the version, the strings and
 * the feature bitmaps a guest can ask for (the bits are in features.h).
 */
#ifndef PERCH_ABI_XEN_VERSION_H
#define PERCH_ABI_XEN_VERSION_H

#include "xen.h"

#define XENVER_version             0   /* returns major << 16 | minor */
#define XENVER_extraversion        1
#define XENVER_compile_info        2
#define XENVER_capabilities        3
#define XENVER_changeset           4
#define XENVER_platform_parameters 5
#define XENVER_get_features        6
#define XENVER_pagesize            7
#define XENVER_guest_handle        8
#define XENVER_commandline         9
#define XENVER_build_id           10

#define XEN_EXTRAVERSION_LEN 16
#define XEN_CAPABILITIES_LEN 1024
#define XEN_CHANGESET_LEN    64
#define XEN_COMMANDLINE_LEN  1024

#ifndef __ASSEMBLER__

/* The fixed-size strings some commands copy out whole. */
typedef char xen_extraversion_t[XEN_EXTRAVERSION_LEN];
typedef char xen_capabilities_info_t[XEN_CAPABILITIES_LEN];
typedef char xen_changeset_info_t[XEN_CHANGESET_LEN];
_Static_assert(sizeof(xen_extraversion_t) == 16, "xen_extraversion_t");
_Static_assert(sizeof(xen_capabilities_info_t) == 1024, "xen_capabilities_info_t");
_Static_assert(sizeof(xen_changeset_info_t) == 64, "xen_changeset_info_t");

struct xen_compile_info {
    char compiler[64];
    char compile_by[16];
    char compile_domain[32];
    char compile_date[32];
};
_Static_assert(sizeof(struct xen_compile_info) == 144, "xen_compile_info");
_Static_assert(offsetof(struct xen_compile_info, compile_by) == 64, "compile_by");
_Static_assert(offsetof(struct xen_compile_info, compile_domain) == 80, "compile_domain");
_Static_assert(offsetof(struct xen_compile_info, compile_date) == 112, "compile_date");

struct xen_platform_parameters {
    uint64_t virt_start;       /* where the hypervisor's part begins */
};
_Static_assert(sizeof(struct xen_platform_parameters) == 8, "platform_parameters");

/* XENVER_get_features: the guest names a submap, Xen fills its bits. */
struct xen_feature_info {
    uint32_t submap_idx;
    uint32_t submap;
};
_Static_assert(sizeof(struct xen_feature_info) == 8, "xen_feature_info");
_Static_assert(offsetof(struct xen_feature_info, submap) == 4, "feature_info.submap");

#endif /* !__ASSEMBLER__ */

#endif
