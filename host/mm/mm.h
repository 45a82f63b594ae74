/*
 * Guest page tables: the PV MMU hypercalls (mmu_update, mmuext_op,
 * update_va_mapping, host/mm/mmu_hypercalls.c), the rules every guest page-table entry
 * must follow (host/mm/mm.c) and the writable-page-table assist that emulates a
 * guest-kernel store to a read-only PTE (host/mm/ptwr.c).
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

#include "../core/host.h"
#include "../core/vcpu.h"

/* ---- Settings and hooks ---------------------------------------------------- */

/* Xen's page-type rules (see the top of this file). Default false. */
extern bool mm_strict;

/* The shared_info frame: a perch-private frame an L1 entry may map (the
 * other ones are those mm_shared_frame_hook says yes to). Default
 * INVALID_MFN; set it from perch_shared.boot.shared_info_mfn. */
extern uint64_t mm_shared_info_mfn;

/*
 * What mm.c asks of the rooms above it that own frames, or something in
 * them, instead of including them: each owner fills in its hook when it
 * comes to own something (NULL: no owner yet, so no frame and nothing to
 * tell).
 *  - mm_shared_frame_hook: is mfn, a perch-private frame, one an L1 entry
 *    may map, writable too? The grant table's frames the guest has been
 *    given (host/xen/grant_table.c, from grant_table_boot()).
 *  - mm_writable_frame_hook: an L1 entry is about to map mfn writable.
 *    host/cpu/insn_patch.c undoes its patches there first (from its first
 *    patch on).
 */
extern bool (*mm_shared_frame_hook)(uint64_t mfn);
extern void (*mm_writable_frame_hook)(uint64_t mfn);

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
#define MM_FRAME_GIVEN_BACK 0x02   /* the balloon gave it back: host/mm/reservation.c */

/* perch_shared.boot.machine_frames entries, zeroed before mm_boot(). Strict
 * mode needs it; the default mode uses it to remember which frames are
 * checked tables (without it every pin re-checks whole trees, base-pointer
 * changes check nothing, and ptwr accepts any read-only guest frame). */
extern struct mm_frame_info *mm_frames;

/* perch's slots of every L4 the guest pins or installs: hole_fill_l4()
 * (host/mm/l4_slots.c, declared in env.h). */

/* Counters: perch_shared.stats.pt_updates (entries written by mmu_update
 * and update_va_mapping) and perch_shared.stats.ptwr_emulations. */

/* ---- Entry points ------------------------------------------------------------ */

/*
 * Once, before the guest first runs, with current->kernel_cr3 set to the
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
 * VMASST_TYPE_writable_pagetables on (vm_assist_enabled, vcpu.h). If the
 * faulting store is one of the forms Linux uses on a live PTE (host/mm/ptwr.c)
 * and lands on an L1 table mapped read-only, the store is checked like an
 * mmu_update entry, done through the alias, and regs stepped past it: 0.
 * Otherwise -1 (the caller delivers the #PF to the guest), with regs and
 * memory untouched.
 */
int ptwr_emulate(struct cpu_regs *regs, uint64_t fault_va, uint64_t error_code);

/*
 * The same store, taken through a patch (host/cpu/insn_patch.c) instead of a
 * fault: bytes[0 .. n) are the instruction as the guest wrote it, regs as
 * they were at it. 0: it was a page-table store and is done, regs stepped
 * past it. -1: it is not one now (its target is no read-only L1 table), and
 * nothing changed.
 */
int ptwr_emulate_original(struct cpu_regs *regs, const uint8_t *bytes, unsigned n);

/* ---- Shared by host/mm/mm*.c and host/mm/ptwr.c ------------------------------ */

/* How an entry is checked when it is written (mm_write_entry). */
#define MM_ANY    0    /* a table of unknown level (default mode only) */
#define MM_L1     1    /* L1 .. L4 */
#define MM_L2     2
#define MM_L3     3
#define MM_L4     4
#define MM_PLAIN  (-1) /* strict: not a page table, a plain store */

#define MM_NO_ENTRY (~0ull)

/* Strict mode in force: mm_strict, with mm_frames to keep the types in. */
bool mm_strict_active(void);

/* How a store into frame mfn is to be checked (MM_ANY .. MM_PLAIN). */
int mm_table_level(uint64_t mfn);

/* Check, adjust and write val into the entry at machine address maddr (8-byte
 * aligned, in a guest frame) of a table at `level`; strict mode moves the
 * type references from the old entry to the new one. 0 or -XEN_E*. */
long mm_write_entry(uint64_t maddr, uint64_t val, int level, bool preserve_ad);

/* The MMUEXT operations on tables; mfn as the guest gave it. */
long mm_pin(uint64_t mfn, int level);
long mm_unpin(uint64_t mfn);
long mm_new_baseptr(uint64_t mfn);
long mm_new_user_baseptr(uint64_t mfn);
/* Strict mode: a writable reference for the Host's own store into a frame
 * (CLEAR_PAGE, COPY_PAGE); default mode: always 0. */
/* VCPUOP_initialise: vCPU v (not yet running, no base pointer yet)
 * starts on the L4 at mfn, which must not be any vCPU's user L4. 0, or
 * -XEN_EINVAL or the L4's validation's error. */
struct vcpu;
long mm_start_baseptr(struct vcpu *v, uint64_t mfn);

long mm_get_writable(uint64_t mfn);
void mm_put_writable(uint64_t mfn);

/* Is the guest's frame mfn in use in a way perch tracks: strict, any
 * type reference (a table, a writable mapping); default, a pinned table
 * or a vCPU's base pointer. */
bool mm_frame_in_use(uint64_t mfn);

/* The M2P entry of the guest's frame mfn: 0, or -XEN_EINVAL. */
long mm_set_m2p(uint64_t mfn, uint64_t pfn);

/* ---- The balloon's frames (host/mm/reservation.c) ------------------------------ */

/*
 * Xen's decrease_reservation for one frame: the guest gives mfn back. It
 * must be one of its own, not given back already, not in use
 * (mm_frame_in_use); anything else is a guest that broke the rules and is
 * stopped (host_fatal). From now on no entry may map it, its M2P entry is
 * invalid, and its memory goes back to the host at the next
 * reservation_release(). Without mm_frames nothing can be given back:
 * false, nothing done.
 */
bool reservation_give_back(uint64_t mfn);

/* The frames given back so far go back to the host: one request to the
 * Launcher, which drops their memory (it reads as zero again). */
void reservation_release(void);

/* A frame given back earlier, taken again (populate_physmap,
 * increase_reservation), its M2P entry set to pfn; INVALID_MFN: none
 * left. Its memory reads as zero. */
uint64_t reservation_take(uint64_t pfn);

/* Frames given back and not taken again. */
uint64_t reservation_given_back(void);

#endif
