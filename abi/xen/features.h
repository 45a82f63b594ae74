/*
 * The XENFEAT_* bit numbers of XENVER_get_features (Xen 4.17's
 * public/features.h); all fit submap 0.
 */
#ifndef PERCH_ABI_XEN_FEATURES_H
#define PERCH_ABI_XEN_FEATURES_H

#define XENFEAT_writable_page_tables       0
#define XENFEAT_writable_descriptor_tables 1
#define XENFEAT_auto_translated_physmap    2
#define XENFEAT_supervisor_mode_kernel     3
#define XENFEAT_pae_pgdir_above_4gb        4
#define XENFEAT_mmu_pt_update_preserve_ad  5
#define XENFEAT_highmem_assist             6
#define XENFEAT_gnttab_map_avail_bits      7
#define XENFEAT_hvm_callback_vector        8
#define XENFEAT_hvm_safe_pvclock           9
#define XENFEAT_hvm_pirqs                 10
#define XENFEAT_dom0                      11
#define XENFEAT_grant_map_identity        12
#define XENFEAT_memory_op_vnode_supported 13
#define XENFEAT_ARM_SMCCC_supported       14
#define XENFEAT_linux_rsdp_unrestricted   15
#define XENFEAT_NR_SUBMAPS 1

#endif
