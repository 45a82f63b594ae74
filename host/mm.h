/*
 * Guest page tables: the PV MMU hypercalls (mmu_update, mmuext_op,
 * update_va_mapping, host/mm_ops.c), the rules every guest page-table entry
 * must follow (host/mm.c) and the writable-page-table assist that emulates a
 * guest-kernel store to a read-only PTE (host/ptwr.c).
 *
 * The Host writes guest page tables only through the alias of machine
 * memory (env_alias_base()), never through a guest virtual address, and
 * leaves the TLB flush to the next ring-0 visit (PENDING_TLB_FLUSH).
 *
 * Two modes:
 *  - default (mm_strict false), the fast path: every entry written through
 *    perch is checked and adjusted on its own (flags, which frame it names,
 *    perch's L4 slots), and pinning or installing a table checks and adjusts
 *    the tables below it once. Direct stores by the guest kernel into tables
 *    it left writable are not checked: the guest kernel can reach Host
 *    memory by design (docs/design.md), so this mode is no wall.
 *  - strict (mm_strict true): Xen's page types on top (a type and a
 *    reference count per machine frame, in mm_frames): page tables are
 *    validated when they first get their type, can never be mapped
 *    writable, and writable frames never become page tables. For catching
 *    guest bugs. Choose the mode before mm_boot() and keep it.
 */
#ifndef PERCH_HOST_MM_H
#define PERCH_HOST_MM_H

#include "host.h"
#include "vcpu.h"

/* ---- The ABI (public/xen.h, Xen 4.17) -------------------------------------
 * Not in abi/xen.h yet; the guards let it move there without a clash. */
#ifndef MMU_NORMAL_PT_UPDATE
#define MMU_NORMAL_PT_UPDATE       0   /* ptr: machine address of the entry */
#define MMU_MACHPHYS_UPDATE        1   /* ptr: machine address in the frame */
#define MMU_PT_UPDATE_PRESERVE_AD  2   /* as NORMAL, keeping the old A and D */
#define MMU_PT_UPDATE_NO_TRANSLATE 3   /* as NORMAL for a PV guest */
#endif

#ifndef MMUEXT_PIN_L1_TABLE
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
#endif

/* Set in a count by Xen's own continuations; a guest never needs it. */
#ifndef MMU_UPDATE_PREEMPTED
#define MMU_UPDATE_PREEMPTED (1u << 31)
#endif

#ifndef UVMF_NONE
#define UVMF_NONE           0ull
#define UVMF_TLB_FLUSH      1ull
#define UVMF_INVLPG         2ull
#define UVMF_FLUSHTYPE_MASK 3ull
#define UVMF_LOCAL          0ull   /* else a pointer to a vCPU bitmap ... */
#define UVMF_ALL            4ull   /* ... or all vCPUs */
#endif

#ifndef DOMID_SELF
#define DOMID_SELF 0x7ff0u
#define DOMID_IO   0x7ff1u
#define DOMID_XEN  0x7ff2u
#endif

#ifndef XEN_EOPNOTSUPP
#define XEN_EOPNOTSUPP 95
#endif

/* One mmu_update request (struct mmu_update). */
struct mm_update_req {
    uint64_t ptr;    /* machine address | MMU_* command in bits 0-1 */
    uint64_t val;
};
_Static_assert(sizeof(struct mm_update_req) == 16, "mmu_update size");

/* One mmuext_op request (struct mmuext_op). */
struct mm_ext_op {
    uint32_t cmd;
    uint32_t pad;
    uint64_t arg1;   /* mfn, or linear_addr */
    uint64_t arg2;   /* nr_ents (32 bits), vcpumask pointer, or src_mfn */
};
_Static_assert(sizeof(struct mm_ext_op) == 24, "mmuext_op size");
_Static_assert(offsetof(struct mm_ext_op, arg2) == 16, "mmuext_op.arg2");

/* ---- Settings and hooks ---------------------------------------------------- */

/* Xen's page-type rules (see the top of this file). Default false. */
extern bool mm_strict;

/* The shared_info frame: the one perch-private frame an L1 entry may map.
 * Default INVALID_MFN; set it from perch_shared.boot.shared_info_mfn. */
extern uint64_t mm_shared_info_mfn;

/* Machine address of M2P entry 0 (8 bytes per machine frame, contiguous,
 * perch-private), where MMU_MACHPHYS_UPDATE writes. Default INVALID_MFN:
 * then MMU_MACHPHYS_UPDATE fails with -EINVAL. */
extern uint64_t mm_m2p_maddr;

/* What perch knows of each machine frame. */
struct mm_frame_info {
    uint32_t count;   /* strict: references to `type`; default mode: 0 */
    uint8_t type;     /* MM_TYPE_*: strict: the frame's type; default mode:
                       * the level it was last checked as a table at, a
                       * hint (MM_TYPE_NONE: not known to be a table) */
    uint8_t flags;    /* MM_FRAME_* */
    uint16_t pad;
};
#define MM_TYPE_NONE     0
#define MM_TYPE_L1       1   /* L1 .. L4 = 1 .. 4, the table's level */
#define MM_TYPE_L2       2
#define MM_TYPE_L3       3
#define MM_TYPE_L4       4
#define MM_TYPE_WRITABLE 5   /* strict: count = writable mappings */
#define MM_FRAME_PINNED  0x01

/* perch_shared.boot.machine_frames entries, zeroed before mm_boot(). Strict
 * mode needs it; the default mode uses it to remember which frames are
 * checked tables (without it every pin re-checks whole trees, base-pointer
 * changes check nothing, and ptwr accepts any read-only guest frame). */
extern struct mm_frame_info *mm_frames;

/* host/hole.c: write perch's slots (257, 258) into the L4 at l4_maddr, for
 * a kernel view or a user view. It must write both slots, 258 as 0 in a
 * user view: a frame can go from one view to the other. Called when an L4
 * is pinned (user view unless it is the current kernel L4) and on every
 * NEW_BASEPTR (kernel view) and NEW_USER_BASEPTR (user view). */
void hole_fill_l4(uint64_t l4_maddr, bool user_view);

/* Counters: perch_shared.stats.pt_updates (entries written by mmu_update
 * and update_va_mapping) and perch_shared.stats.ptwr_emulations. */

/* ---- Entry points ------------------------------------------------------------ */

/*
 * Once, before the guest first runs, with vcpu0.kernel_cr3 set to the
 * builder's L4 and mm_strict, mm_frames and mm_shared_info_mfn settled:
 * checks the builder's page tables, takes the builder's pin on the L4 (the
 * guest unpins it later) and, in strict mode, the base pointer's reference.
 * 0, or a negative Xen error: the initial tables break a rule.
 */
long mm_boot(void);

long do_mmu_update(uint64_t reqs, uint64_t count, uint64_t done,
                   uint64_t foreigndom, uint64_t a5);
long do_mmuext_op(uint64_t ops, uint64_t count, uint64_t done,
                  uint64_t foreigndom, uint64_t a5);
long do_update_va_mapping(uint64_t va, uint64_t val, uint64_t flags,
                          uint64_t a4, uint64_t a5);

/*
 * Writable page tables: the trap path calls this for a guest-kernel #PF
 * whose error code says present + write; it acts only while the guest has
 * VMASST_TYPE_writable_pagetables on (vm_assist_enabled, emulate.h). If the
 * faulting store is one of the forms Linux uses on a live PTE (host/ptwr.c)
 * and lands on an L1 table mapped read-only, the store is checked like an
 * mmu_update entry, done through the alias, and regs stepped past it: 0.
 * Otherwise -1 (the caller delivers the #PF to the guest), with regs and
 * memory untouched.
 */
int ptwr_emulate(struct cpu_regs *regs, uint64_t fault_va, uint64_t error_code);

/* ---- Shared by host/mm*.c and host/ptwr.c ------------------------------------ */

/* How an entry is checked when it is written (mm_write_entry). */
#define MM_ANY    0    /* a table of unknown level (default mode only) */
#define MM_L1     1    /* L1 .. L4 */
#define MM_L2     2
#define MM_L3     3
#define MM_L4     4
#define MM_PLAIN  (-1) /* strict: not a page table, a plain store */

#define MM_NO_ENTRY (~0ull)

/* Is mfn one of the guest's own frames? */
bool mm_guest_frame(uint64_t mfn);

/* Strict mode in force: mm_strict, with mm_frames to keep the types in. */
bool mm_strict_active(void);

/* Canonical and outside Xen's hole (256-271): an address the guest owns. */
bool mm_guest_va(uint64_t va);

/* How a store into frame mfn is to be checked (MM_ANY .. MM_PLAIN). */
int mm_table_level(uint64_t mfn);

/* Check, adjust and write val into the entry at machine address maddr (8-byte
 * aligned, in a guest frame) of a table at `level`; strict mode moves the
 * type references from the old entry to the new one. 0 or -XEN_E*. */
long mm_write_entry(uint64_t maddr, uint64_t val, int level, bool preserve_ad);

/* Read the entry at machine address maddr. */
uint64_t mm_read_entry(uint64_t maddr);

/* Machine address of the L1 entry that maps va in the current guest-kernel
 * tables, or MM_NO_ENTRY (va in the hole, not canonical, a table missing). */
uint64_t mm_l1e_maddr(uint64_t va);

/* The MMUEXT operations on tables; mfn as the guest gave it. */
long mm_pin(uint64_t mfn, int level);
long mm_unpin(uint64_t mfn);
long mm_new_baseptr(uint64_t mfn);
long mm_new_user_baseptr(uint64_t mfn);
/* Strict mode: a writable reference for the Host's own store into a frame
 * (CLEAR_PAGE, COPY_PAGE); default mode: always 0. */
long mm_get_writable(uint64_t mfn);
void mm_put_writable(uint64_t mfn);

#endif
