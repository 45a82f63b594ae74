/*
 * The x86-64 Xen PV ABI as perch speaks it: numbers, flags and struct layouts.
 *
 * These are facts of the interface (Xen's xen/include/public/, 4.17), written
 * down again for perch; every struct carries static checks of its size and
 * of the offsets a guest relies on. Shared by the Launcher, the Host, the test
 * guests and the unit tests, so it must stay freestanding: no libc headers.
 */
#ifndef PERCH_ABI_XEN_H
#define PERCH_ABI_XEN_H

/* The numbers are usable from assembly too; the structs are C only. */
#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stddef.h>
#endif

/* ---- Hypercall numbers (rax at the `syscall`) ---- */
#define HYPERVISOR_set_trap_table     0
#define HYPERVISOR_mmu_update         1
#define HYPERVISOR_set_gdt            2
#define HYPERVISOR_stack_switch       3
#define HYPERVISOR_set_callbacks      4
#define HYPERVISOR_fpu_taskswitch     5
#define HYPERVISOR_sched_op_compat    6
#define HYPERVISOR_platform_op        7
#define HYPERVISOR_set_debugreg       8
#define HYPERVISOR_get_debugreg       9
#define HYPERVISOR_update_descriptor 10
#define HYPERVISOR_memory_op         12
#define HYPERVISOR_multicall         13
#define HYPERVISOR_update_va_mapping 14
#define HYPERVISOR_set_timer_op      15
#define HYPERVISOR_event_channel_op_compat 16
#define HYPERVISOR_xen_version       17
#define HYPERVISOR_console_io        18
#define HYPERVISOR_physdev_op_compat 19
#define HYPERVISOR_grant_table_op    20
#define HYPERVISOR_vm_assist         21
#define HYPERVISOR_update_va_mapping_otherdomain 22
#define HYPERVISOR_iret              23
#define HYPERVISOR_vcpu_op           24
#define HYPERVISOR_set_segment_base  25
#define HYPERVISOR_mmuext_op         26
#define HYPERVISOR_xsm_op            27
#define HYPERVISOR_nmi_op            28
#define HYPERVISOR_sched_op          29
#define HYPERVISOR_callback_op       30
#define HYPERVISOR_xenoprof_op       31
#define HYPERVISOR_event_channel_op  32
#define HYPERVISOR_physdev_op        33
#define HYPERVISOR_hvm_op            34
#define HYPERVISOR_sysctl            35
#define HYPERVISOR_domctl            36
#define HYPERVISOR_kexec_op          37
#define HYPERVISOR_tmem_op           38
#define HYPERVISOR_argo_op           39
#define HYPERVISOR_xenpmu_op         40
#define HYPERVISOR_dm_op             41
#define HYPERVISOR_hypfs_op          42
#define XEN_NR_HYPERCALLS            64  /* table size; numbers above are -ENOSYS */

/* ---- Error values (returned negated in rax) ---- */
#define XEN_EPERM    1
#define XEN_ENOENT   2
#define XEN_ESRCH    3
#define XEN_EAGAIN  11
#define XEN_ENOMEM  12
#define XEN_EFAULT  14
#define XEN_EBUSY   16
#define XEN_EEXIST  17
#define XEN_EINVAL  22
#define XEN_ENOSPC  28
#define XEN_ENOSYS  38

/* ---- console_io ---- */
#define CONSOLEIO_write 0
#define CONSOLEIO_read  1

/* ---- The ring console (public/io/console.h): the page start_info's
 * console.domU.mfn names. Indices run free; a byte's slot is the index
 * modulo the ring's size. The guest produces out[] and consumes in[]. ---- */
#define XENCONS_IN_BYTES  1024u
#define XENCONS_OUT_BYTES 2048u

#ifndef __ASSEMBLER__
struct xencons_interface {
    char in[XENCONS_IN_BYTES];
    char out[XENCONS_OUT_BYTES];
    uint32_t in_cons, in_prod;
    uint32_t out_cons, out_prod;
};
_Static_assert(sizeof(struct xencons_interface) == 3088, "xencons_interface");
_Static_assert(offsetof(struct xencons_interface, in_cons) == 3072, "in_cons");
_Static_assert(offsetof(struct xencons_interface, out_prod) == 3084, "out_prod");
#endif

/* ---- sched_op ---- */
#define SCHEDOP_yield    0
#define SCHEDOP_block    1
#define SCHEDOP_shutdown 2
#define SCHEDOP_poll     3
#define SCHEDOP_remote_shutdown 4
#define SCHEDOP_shutdown_code   5
#define SCHEDOP_watchdog 6

#define SHUTDOWN_poweroff 0
#define SHUTDOWN_reboot   1
#define SHUTDOWN_suspend  2
#define SHUTDOWN_crash    3
#define SHUTDOWN_watchdog 4

#ifndef __ASSEMBLER__
struct sched_shutdown {
    uint32_t reason;
};
#endif

/* ---- xen_version ---- */
#define XENVER_version      0
#define XENVER_extraversion 1
#define XENVER_compile_info 2
#define XENVER_capabilities 3
#define XENVER_changeset    4
#define XENVER_platform_parameters 5
#define XENVER_get_features 6
#define XENVER_pagesize     7
#define XENVER_guest_handle 8
#define XENVER_commandline  9
#define XENVER_build_id    10

#define XEN_EXTRAVERSION_LEN 16
#define XEN_CAPABILITIES_LEN 1024
#define XEN_CHANGESET_LEN    64

#ifndef __ASSEMBLER__
struct xen_platform_parameters {
    uint64_t virt_start;
};
#endif

#ifndef __ASSEMBLER__
struct xen_feature_info {
    uint32_t submap_idx;
    uint32_t submap;
};
#endif

/* XENFEAT_* bit numbers. */
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

/* ---- Flat segment selectors of a 64-bit PV guest (Xen's reserved GDT) ---- */
#define FLAT_RING3_CS32   0xe023
#define FLAT_RING3_CS64   0xe033
#define FLAT_RING3_DS32   0xe02b
#define FLAT_RING3_SS64   0xe02b
#define FLAT_KERNEL_CS64  FLAT_RING3_CS64
#define FLAT_KERNEL_SS64  FLAT_RING3_SS64
#define FLAT_KERNEL_DS64  0
#define FLAT_USER_CS64    FLAT_RING3_CS64
#define FLAT_USER_SS64    FLAT_RING3_SS64
#define FIRST_RESERVED_GDT_PAGE  14
#define FIRST_RESERVED_GDT_ENTRY (FIRST_RESERVED_GDT_PAGE * 512)

/* ---- ELF notes (owner "Xen") ---- */
#define XEN_ELFNOTE_INFO             0
#define XEN_ELFNOTE_ENTRY            1
#define XEN_ELFNOTE_HYPERCALL_PAGE   2
#define XEN_ELFNOTE_VIRT_BASE        3
#define XEN_ELFNOTE_PADDR_OFFSET     4
#define XEN_ELFNOTE_XEN_VERSION      5
#define XEN_ELFNOTE_GUEST_OS         6
#define XEN_ELFNOTE_GUEST_VERSION    7
#define XEN_ELFNOTE_LOADER           8
#define XEN_ELFNOTE_PAE_MODE         9
#define XEN_ELFNOTE_FEATURES        10
#define XEN_ELFNOTE_BSD_SYMTAB      11
#define XEN_ELFNOTE_HV_START_LOW    12
#define XEN_ELFNOTE_L1_MFN_VALID    13
#define XEN_ELFNOTE_SUSPEND_CANCEL  14
#define XEN_ELFNOTE_INIT_P2M        15
#define XEN_ELFNOTE_MOD_START_PFN   16
#define XEN_ELFNOTE_SUPPORTED_FEATURES 17
#define XEN_ELFNOTE_PHYS32_ENTRY    18
#define XEN_ELFNOTE_MAX             XEN_ELFNOTE_PHYS32_ENTRY

/* Each slot of a hypercall page is this long; slot N makes hypercall N. */
#define XEN_HYPERCALL_SLOT_SIZE 32

/* ---- start_info: the page whose address the guest finds in rsi ---- */
#define XEN_START_INFO_MAGIC "xen-3.0-x86_64"
#define MAX_GUEST_CMDLINE 1024

#define SIF_PRIVILEGED       (1u << 0)
#define SIF_INITDOMAIN       (1u << 1)
#define SIF_MULTIBOOT_MOD    (1u << 2)
#define SIF_MOD_START_PFN    (1u << 3)
#define SIF_VIRT_P2M_4TOOLS  (1u << 4)

#ifndef __ASSEMBLER__
struct start_info {
    char magic[32];
    uint64_t nr_pages;
    uint64_t shared_info;      /* machine address of shared_info */
    uint32_t flags;
    uint64_t store_mfn;
    uint32_t store_evtchn;
    union {
        struct {
            uint64_t mfn;
            uint32_t evtchn;
        } domU;
        struct {
            uint32_t info_off;
            uint32_t info_size;
        } dom0;
    } console;
    uint64_t pt_base;          /* virtual address of the L4 */
    uint64_t nr_pt_frames;
    uint64_t mfn_list;         /* virtual address of the p2m array */
    uint64_t mod_start;        /* VA, or PFN with SIF_MOD_START_PFN */
    uint64_t mod_len;
    char cmd_line[MAX_GUEST_CMDLINE];
    uint64_t first_p2m_pfn;
    uint64_t nr_p2m_frames;
};
_Static_assert(sizeof(struct start_info) == 1168, "start_info size");
_Static_assert(offsetof(struct start_info, flags) == 48, "start_info.flags");
_Static_assert(offsetof(struct start_info, console.domU.evtchn) == 80, "console");
_Static_assert(offsetof(struct start_info, pt_base) == 88, "start_info.pt_base");
_Static_assert(offsetof(struct start_info, cmd_line) == 128, "start_info.cmd_line");
_Static_assert(offsetof(struct start_info, first_p2m_pfn) == 1152, "first_p2m_pfn");
#endif

/* ---- shared_info and vcpu_info ---- */
#define XEN_LEGACY_MAX_VCPUS 32

#ifndef __ASSEMBLER__
struct vcpu_time_info {
    uint32_t version;          /* odd while the hypervisor updates it */
    uint32_t pad0;
    uint64_t tsc_timestamp;
    uint64_t system_time;      /* ns at tsc_timestamp */
    uint32_t tsc_to_system_mul;
    int8_t tsc_shift;
    uint8_t flags;
    uint8_t pad1[2];
};
_Static_assert(sizeof(struct vcpu_time_info) == 32, "vcpu_time_info size");
#endif
#define XEN_PVCLOCK_TSC_STABLE_BIT (1u << 0)

#ifndef __ASSEMBLER__
struct arch_vcpu_info {
    uint64_t cr2;
    uint64_t pad;
};
#endif

#ifndef __ASSEMBLER__
struct vcpu_info {
    uint8_t evtchn_upcall_pending;
    uint8_t evtchn_upcall_mask;
    uint64_t evtchn_pending_sel;
    struct arch_vcpu_info arch;
    struct vcpu_time_info time;
};
_Static_assert(sizeof(struct vcpu_info) == 64, "vcpu_info size");
_Static_assert(offsetof(struct vcpu_info, time) == 32, "vcpu_info.time");
#endif

#ifndef __ASSEMBLER__
struct arch_shared_info {
    uint64_t max_pfn;
    uint64_t pfn_to_mfn_frame_list_list;
    uint64_t nmi_reason;
    uint64_t p2m_cr3;
    uint64_t p2m_vaddr;
    uint64_t p2m_generation;
};
#endif

#ifndef __ASSEMBLER__
struct shared_info {
    struct vcpu_info vcpu_info[XEN_LEGACY_MAX_VCPUS];
    uint64_t evtchn_pending[64];
    uint64_t evtchn_mask[64];
    uint32_t wc_version;
    uint32_t wc_sec;
    uint32_t wc_nsec;
    uint32_t wc_sec_hi;
    struct arch_shared_info arch;
};
_Static_assert(sizeof(struct shared_info) == 3136, "shared_info size");
_Static_assert(offsetof(struct shared_info, evtchn_pending) == 2048, "pending");
_Static_assert(offsetof(struct shared_info, wc_version) == 3072, "wc_version");
_Static_assert(offsetof(struct shared_info, arch) == 3088, "arch");
#endif

/* ---- Page-table entry bits (x86-64, 4-level) ---- */
#define PTE_P    (1ull << 0)
#define PTE_RW   (1ull << 1)
#define PTE_US   (1ull << 2)
#define PTE_PWT  (1ull << 3)
#define PTE_PCD  (1ull << 4)
#define PTE_A    (1ull << 5)
#define PTE_D    (1ull << 6)
#define PTE_PS   (1ull << 7)
#define PTE_G    (1ull << 8)
#define PTE_NX   (1ull << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ull

#define XEN_PAGE_SHIFT 12
#define XEN_PAGE_SIZE  4096ull
#define INVALID_MFN    (~0ull)
#define INVALID_P2M_ENTRY (~0ull)

#endif
