/*
 * The core of the x86-64 Xen PV interface as perch speaks it (the facts of
 * Xen 4.17's public/xen.h with the x86 parts of arch-x86/): hypercall
 * numbers, error values, domain ids, the MMU requests, multicall entries,
 * trap tables, the iret frame, start_info, shared_info and vcpu_info.
 *
 * Every area of the interface has its own header in abi/xen/, as Xen's
 * public headers are split; this one is what they all build on. Shared by
 * the Launcher, the Host, the test guests and the unit tests, so it stays
 * freestanding (no libc headers), and the numbers are usable from assembly.
 * Each struct carries static checks of its size and of the offsets a guest
 * relies on.
 */
#ifndef PERCH_ABI_XEN_XEN_H
#define PERCH_ABI_XEN_XEN_H

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>
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

/* Each slot of a hypercall page is this long; slot N makes hypercall N. */
#define XEN_HYPERCALL_SLOT_SIZE 32

/* ---- Error values (Xen's errno list; returned negated in rax) ---- */
#define XEN_EPERM        1
#define XEN_ENOENT       2
#define XEN_ESRCH        3
#define XEN_ENXIO        6
#define XEN_EAGAIN      11
#define XEN_ENOMEM      12
#define XEN_EFAULT      14
#define XEN_EBUSY       16
#define XEN_EEXIST      17
#define XEN_EINVAL      22
#define XEN_ENOSPC      28
#define XEN_ENOSYS      38
#define XEN_ETIME       62
#define XEN_EOPNOTSUPP  95

/* ---- Domain ids a guest may name besides real domains ---- */
#define DOMID_FIRST_RESERVED 0x7ff0u
#define DOMID_SELF           0x7ff0u   /* the calling domain */
#define DOMID_IO             0x7ff1u   /* I/O mappings (mmu_update's foreigndom) */
#define DOMID_XEN            0x7ff2u   /* Xen's own heap */
#define DOMID_COW            0x7ff3u
#define DOMID_INVALID        0x7ff4u
#define DOMID_IDLE           0x7fffu

/* ---- console_io ---- */
#define CONSOLEIO_write 0
#define CONSOLEIO_read  1

/* ---- Virtual IRQs: TIMER, DEBUG, XENOPROF and XENPMU are per vCPU, the
 * others global (ARCH_0..7 are 16..23). ---- */
#define VIRQ_TIMER       0
#define VIRQ_DEBUG       1
#define VIRQ_CONSOLE     2
#define VIRQ_DOM_EXC     3
#define VIRQ_TBUF        4
#define VIRQ_DEBUGGER    6
#define VIRQ_XENOPROF    7
#define VIRQ_CON_RING    8
#define VIRQ_PCPU_STATE  9
#define VIRQ_MEM_EVENT  10
#define VIRQ_ARGO       11
#define VIRQ_ENOMEM     12
#define VIRQ_XENPMU     13
#define VIRQ_ARCH_0     16
#define XEN_NR_VIRQS    24

/* ---- mmu_update: the command sits in the low 2 bits of ptr ---- */
#define MMU_NORMAL_PT_UPDATE       0   /* ptr: machine address of the entry */
#define MMU_MACHPHYS_UPDATE        1   /* ptr: machine address in the frame */
#define MMU_PT_UPDATE_PRESERVE_AD  2   /* as NORMAL, keeping the old A and D */
#define MMU_PT_UPDATE_NO_TRANSLATE 3   /* as NORMAL for a PV guest */

/* Set in a count by Xen's own continuations; a guest never needs it. */
#define MMU_UPDATE_PREEMPTED (1u << 31)

/* ---- mmuext_op commands ---- */
#define MMUEXT_PIN_L1_TABLE        0
#define MMUEXT_PIN_L2_TABLE        1
#define MMUEXT_PIN_L3_TABLE        2
#define MMUEXT_PIN_L4_TABLE        3
#define MMUEXT_UNPIN_TABLE         4
#define MMUEXT_NEW_BASEPTR         5
#define MMUEXT_TLB_FLUSH_LOCAL     6
#define MMUEXT_INVLPG_LOCAL        7
#define MMUEXT_TLB_FLUSH_MULTI     8
#define MMUEXT_INVLPG_MULTI        9
#define MMUEXT_TLB_FLUSH_ALL      10
#define MMUEXT_INVLPG_ALL         11
#define MMUEXT_FLUSH_CACHE        12
#define MMUEXT_SET_LDT            13
#define MMUEXT_NEW_USER_BASEPTR   15
#define MMUEXT_CLEAR_PAGE         16
#define MMUEXT_COPY_PAGE          17
#define MMUEXT_FLUSH_CACHE_GLOBAL 18
#define MMUEXT_MARK_SUPER         19
#define MMUEXT_UNMARK_SUPER       20

/* ---- update_va_mapping's flags: a flush type, then which vCPUs ---- */
#define UVMF_NONE           0ull
#define UVMF_TLB_FLUSH      1ull
#define UVMF_INVLPG         2ull
#define UVMF_FLUSHTYPE_MASK 3ull
#define UVMF_LOCAL          0ull   /* else a pointer to a vCPU bitmap ... */
#define UVMF_ALL            4ull   /* ... or all vCPUs */

/* ---- vm_assist ---- */
#define VMASST_CMD_enable   0
#define VMASST_CMD_disable  1
#define VMASST_TYPE_4gb_segments          0
#define VMASST_TYPE_4gb_segments_notify   1
#define VMASST_TYPE_writable_pagetables   2
#define VMASST_TYPE_pae_extended_cr3      3
#define VMASST_TYPE_architectural_iopl    4
#define VMASST_TYPE_runstate_update_flag  5
#define VMASST_TYPE_m2p_strict           32

/* ---- set_segment_base ---- */
#define SEGBASE_FS          0
#define SEGBASE_GS_USER     1
#define SEGBASE_GS_KERNEL   2
#define SEGBASE_GS_USER_SEL 3   /* load the user GS selector */

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

/* ---- Pages and page-table entries (x86-64, 4 levels) ---- */
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

/* ---- The iret hypercall's frame: VGCF_in_syscall in `flags` says the
 * guest came from a syscall, so rcx and r11 are sysret's. ---- */
#define VGCF_in_syscall (1ull << 8)

/* ---- trap_info flags: bits 0-1 the DPL an `int` needs, bit 2 "disable
 * events on entry" (an interrupt gate) ---- */
#define TI_DPL_MASK         3u
#define TI_DISABLES_EVENTS  4u

/* ---- start_info ---- */
#define XEN_START_INFO_MAGIC "xen-3.0-x86_64"
#define MAX_GUEST_CMDLINE 1024

#define SIF_PRIVILEGED       (1u << 0)
#define SIF_INITDOMAIN       (1u << 1)
#define SIF_MULTIBOOT_MOD    (1u << 2)
#define SIF_MOD_START_PFN    (1u << 3)
#define SIF_VIRT_P2M_4TOOLS  (1u << 4)

#define XEN_LEGACY_MAX_VCPUS 32
#define XEN_PVCLOCK_TSC_STABLE_BIT (1u << 0)

#ifndef __ASSEMBLER__

typedef uint16_t domid_t;

/* One request of mmu_update. */
struct mmu_update {
    uint64_t ptr;    /* machine address | MMU_* command in bits 0-1 */
    uint64_t val;
};
_Static_assert(sizeof(struct mmu_update) == 16, "mmu_update size");
_Static_assert(offsetof(struct mmu_update, val) == 8, "mmu_update.val");

/* One request of mmuext_op. */
struct mmuext_op {
    uint32_t cmd;
    uint32_t pad;
    uint64_t arg1;   /* mfn, or linear_addr */
    uint64_t arg2;   /* nr_ents (32 bits), vcpumask pointer, or src_mfn */
};
_Static_assert(sizeof(struct mmuext_op) == 24, "mmuext_op size");
_Static_assert(offsetof(struct mmuext_op, arg1) == 8, "mmuext_op.arg1");
_Static_assert(offsetof(struct mmuext_op, arg2) == 16, "mmuext_op.arg2");

/* One entry of a multicall batch: the result is written back in place. */
struct multicall_entry {
    uint64_t op;
    uint64_t result;
    uint64_t args[6];
};
_Static_assert(sizeof(struct multicall_entry) == 64, "multicall_entry size");
_Static_assert(offsetof(struct multicall_entry, result) == 8, "multicall_entry.result");
_Static_assert(offsetof(struct multicall_entry, args) == 16, "multicall_entry.args");

/* One entry of set_trap_table's array, which ends at address 0. */
struct trap_info {
    uint8_t vector;
    uint8_t flags;      /* TI_* */
    uint16_t cs;
    uint64_t address;
};
_Static_assert(sizeof(struct trap_info) == 16, "trap_info size");
_Static_assert(offsetof(struct trap_info, cs) == 2, "trap_info.cs");
_Static_assert(offsetof(struct trap_info, address) == 8, "trap_info.address");

/* What the guest leaves at rsp for the iret hypercall, lowest first. */
struct iret_context {
    uint64_t rax, r11, rcx, flags, rip, cs, rflags, rsp, ss;
};
_Static_assert(sizeof(struct iret_context) == 72, "iret_context size");
_Static_assert(offsetof(struct iret_context, flags) == 24, "iret_context.flags");
_Static_assert(offsetof(struct iret_context, rip) == 32, "iret_context.rip");
_Static_assert(offsetof(struct iret_context, ss) == 64, "iret_context.ss");

/* The page whose address the guest finds in rsi at its entry. */
struct start_info {
    char magic[32];
    uint64_t nr_pages;
    uint64_t shared_info;      /* machine address of shared_info */
    uint32_t flags;            /* SIF_* */
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
_Static_assert(offsetof(struct start_info, shared_info) == 40, "start_info.shared_info");
_Static_assert(offsetof(struct start_info, flags) == 48, "start_info.flags");
_Static_assert(offsetof(struct start_info, store_mfn) == 56, "start_info.store_mfn");
_Static_assert(offsetof(struct start_info, console.domU.mfn) == 72, "console.domU.mfn");
_Static_assert(offsetof(struct start_info, console.domU.evtchn) == 80, "console.domU.evtchn");
_Static_assert(offsetof(struct start_info, pt_base) == 88, "start_info.pt_base");
_Static_assert(offsetof(struct start_info, mfn_list) == 104, "start_info.mfn_list");
_Static_assert(offsetof(struct start_info, cmd_line) == 128, "start_info.cmd_line");
_Static_assert(offsetof(struct start_info, first_p2m_pfn) == 1152, "first_p2m_pfn");

/* pvclock: system time = system_time + scaled (rdtsc - tsc_timestamp). */
struct vcpu_time_info {
    uint32_t version;          /* odd while the hypervisor updates it */
    uint32_t pad0;
    uint64_t tsc_timestamp;
    uint64_t system_time;      /* ns at tsc_timestamp */
    uint32_t tsc_to_system_mul;
    int8_t tsc_shift;
    uint8_t flags;             /* XEN_PVCLOCK_* */
    uint8_t pad1[2];
};
_Static_assert(sizeof(struct vcpu_time_info) == 32, "vcpu_time_info size");
_Static_assert(offsetof(struct vcpu_time_info, system_time) == 16, "system_time");
_Static_assert(offsetof(struct vcpu_time_info, tsc_shift) == 28, "tsc_shift");

struct arch_vcpu_info {
    uint64_t cr2;              /* a #PF's address, for the guest's handler */
    uint64_t pad;
};
_Static_assert(sizeof(struct arch_vcpu_info) == 16, "arch_vcpu_info size");

struct vcpu_info {
    uint8_t evtchn_upcall_pending;
    uint8_t evtchn_upcall_mask;
    uint64_t evtchn_pending_sel;
    struct arch_vcpu_info arch;
    struct vcpu_time_info time;
};
_Static_assert(sizeof(struct vcpu_info) == 64, "vcpu_info size");
_Static_assert(offsetof(struct vcpu_info, evtchn_upcall_mask) == 1, "upcall_mask");
_Static_assert(offsetof(struct vcpu_info, evtchn_pending_sel) == 8, "pending_sel");
_Static_assert(offsetof(struct vcpu_info, arch.cr2) == 16, "vcpu_info.arch.cr2");
_Static_assert(offsetof(struct vcpu_info, time) == 32, "vcpu_info.time");

struct arch_shared_info {
    uint64_t max_pfn;
    uint64_t pfn_to_mfn_frame_list_list;
    uint64_t nmi_reason;
    uint64_t p2m_cr3;
    uint64_t p2m_vaddr;
    uint64_t p2m_generation;
};
_Static_assert(sizeof(struct arch_shared_info) == 48, "arch_shared_info size");

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
_Static_assert(offsetof(struct shared_info, evtchn_pending) == 2048, "evtchn_pending");
_Static_assert(offsetof(struct shared_info, evtchn_mask) == 2560, "evtchn_mask");
_Static_assert(offsetof(struct shared_info, wc_version) == 3072, "wc_version");
_Static_assert(offsetof(struct shared_info, wc_sec_hi) == 3084, "wc_sec_hi");
_Static_assert(offsetof(struct shared_info, arch) == 3088, "arch");

#endif /* !__ASSEMBLER__ */

#endif
