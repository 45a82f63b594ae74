/*
 * Unit tests of the PV MMU hypercalls (host/mm/mm.c, host/mm/mmu_hypercalls.c):
 * mmu_update, mmuext_op and update_va_mapping, in the default mode and in
 * strict mode. Machine memory is host_env.c's heap buffer: frames below
 * GUEST_BASE are perch's, the rest the guest's; the page tables host_env
 * builds come from the top of memory, so they are guest frames too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/memory.h"
#include "../../host/mm/mm.h"

#define FRAMES       512
#define GUEST_BASE   64            /* frames 0-63: perch-private */
#define SHARED_INFO  5
#define M2P_FRAME    8             /* 512 entries: the whole M2P */
#define PRIVATE      10            /* some other perch frame */
#define BUF_MFN      100           /* requests, mapped RW at BUF_VA */
#define DATA_MFN     110           /* 4 data frames at DATA_VA */
#define FREE_MFN     150           /* zeroed guest frames for new tables */
#define BUF_VA       0xffffc90000000000ull
#define DATA_VA      0xffff888000200000ull
#define UNMAPPED_VA  0x0000000000400000ull

#define KPT  (PTE_P | PTE_RW | PTE_A | PTE_D)   /* Linux's _KERNPG_TABLE: no USER */
#define EINVAL (-XEN_EINVAL)
#define EBUSY  (-XEN_EBUSY)
#define EPERM  (-XEN_EPERM)
#define ESRCH  (-XEN_ESRCH)
#define EFAULT (-XEN_EFAULT)

static struct mm_frame_info frame_table[FRAMES];

/* The tables on BUF_VA's path in the boot tree (setup() finds them). */
static uint64_t l1, l2, l3, l4;

/* ---- The hole --------------------------------------------------------------------
 * hole_fill_l4 is host/mm/l4_slots.c's: it copies these from perch_shared.boot. */

#define KERNEL_257 (0x1000ull | PTE_P | PTE_RW)
#define KERNEL_258 (0x2000ull | PTE_P | PTE_RW)
#define USER_257   (0x3000ull | PTE_P)

/* ---- Helpers ------------------------------------------------------------------- */

static uint64_t *frame(uint64_t mfn)
{
    return host_env_frame(mfn);
}

static uint64_t *entry(uint64_t mfn, unsigned i)
{
    return frame(mfn) + i;
}

static uint64_t maddr(uint64_t mfn, unsigned i)
{
    return mfn * 4096 + i * 8ull;
}

/* Frame of the table at `level` (1-4) on va's path. */
static uint64_t table_of(uint64_t va, int level)
{
    return (uint64_t)((uint8_t *)host_env_pte(va, level - 1) - host_env_memory) >> 12;
}

static unsigned index_of(uint64_t va, int level)
{
    return (va >> (3 + 9 * level)) & 511;
}

static uint64_t kernel_l4(void)
{
    return current->kernel_cr3 >> 12;
}

/* A fresh machine: BUF_VA and DATA_VA mapped, the hooks set, mm_boot(). */
static long setup(bool strict)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FRAMES - GUEST_BASE;
    memset(frame_table, 0, sizeof(frame_table));
    mm_frames = frame_table;
    mm_strict = strict;
    mm_shared_info_mfn = SHARED_INFO;
    mm_m2p_maddr = M2P_FRAME * 4096;
    perch_shared.boot.kernel_slot_257 = KERNEL_257;
    perch_shared.boot.kernel_slot_258 = KERNEL_258;
    perch_shared.boot.user_slot_257 = USER_257;
    host_env_map(BUF_VA, BUF_MFN, HOST_ENV_RW);
    host_env_map_range(DATA_VA, DATA_MFN, 4, HOST_ENV_RW);
    l1 = table_of(BUF_VA, 1);
    l2 = table_of(BUF_VA, 2);
    l3 = table_of(BUF_VA, 3);
    l4 = kernel_l4();
    return mm_boot();
}

static long mmu1(uint64_t ptr, uint64_t val)
{
    struct mmu_update *r = (void *)frame(BUF_MFN);

    r->ptr = ptr;
    r->val = val;
    return do_mmu_update(BUF_VA, 1, 0, DOMID_SELF, 0);
}

static long ext1(uint32_t cmd, uint64_t arg1, uint64_t arg2)
{
    struct mmuext_op *op = (void *)frame(BUF_MFN);

    *op = (struct mmuext_op){ .cmd = cmd, .arg1 = arg1, .arg2 = arg2 };
    return do_mmuext_op(BUF_VA, 1, 0, DOMID_SELF, 0);
}

/* perch's slots in the L4 at mfn: a kernel view, a user view, or none. */
static bool kernel_view(uint64_t mfn)
{
    return *entry(mfn, 257) == KERNEL_257 && *entry(mfn, 258) == KERNEL_258;
}

static bool user_view(uint64_t mfn)
{
    return *entry(mfn, 257) == USER_257 && *entry(mfn, 258) == 0;
}

static bool no_view(uint64_t mfn)
{
    return *entry(mfn, 257) == 0 && *entry(mfn, 258) == 0;
}

/* A copy of the current kernel L4 in frame mfn: a second address space. */
static void copy_kernel_l4(uint64_t mfn)
{
    memcpy(frame(mfn), frame(kernel_l4()), 4096);
}

/* ---- mmu_update: entries at each level ------------------------------------------ */

static void l1_entry_gets_user(void)
{
    CHECK(setup(false) == 0);
    CHECK(mmu1(maddr(l1, 5), (DATA_MFN << 12) | PTE_P | PTE_RW) == 0);
    CHECK(*entry(l1, 5) == ((DATA_MFN << 12) | PTE_P | PTE_RW | PTE_US));
    CHECK(perch_shared.stats.pt_updates == 1);
    CHECK(current->pending == 0);          /* an L1 change: the guest flushes */
}

static void upper_entries_get_user_and_l4_accessed(void)
{
    CHECK(setup(false) == 0);
    *entry(FREE_MFN, 0) = (DATA_MFN << 12) | PTE_P;   /* a table, without USER */
    CHECK(mmu1(maddr(l2, 7), (FREE_MFN << 12) | KPT) == 0);
    CHECK(*entry(l2, 7) == ((FREE_MFN << 12) | KPT | PTE_US));
    /* The new L1 below was checked and adjusted too, and is known as one. */
    CHECK(*entry(FREE_MFN, 0) == ((DATA_MFN << 12) | PTE_P | PTE_US));
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_L1);
    CHECK(mmu1(maddr(l3, 9), ((FREE_MFN + 1) << 12) | KPT) == 0);
    CHECK(*entry(l3, 9) == (((FREE_MFN + 1) << 12) | KPT | PTE_US));
    CHECK(mmu1(maddr(l4, 3), ((FREE_MFN + 2) << 12) | PTE_P | PTE_RW) == 0);
    CHECK(*entry(l4, 3) == (((FREE_MFN + 2) << 12) | PTE_P | PTE_RW | PTE_US | PTE_A));
    CHECK(perch_shared.stats.pt_updates == 3);
}

/* A frame perch does not know as a table: the entry still gets USER and
 * what every level refuses is refused. */
static void unknown_table_entry(void)
{
    CHECK(setup(false) == 0);
    CHECK(mmu1(maddr(FREE_MFN, 0), (DATA_MFN << 12) | PTE_P | PTE_G) == 0);
    CHECK(*entry(FREE_MFN, 0) == ((DATA_MFN << 12) | PTE_P | PTE_G | PTE_US));
    CHECK(mmu1(maddr(FREE_MFN, 1), (DATA_MFN << 12) | PTE_P | PTE_PS) == EINVAL);
    CHECK(mmu1(maddr(FREE_MFN, 1), (DATA_MFN << 12) | PTE_P | PTE_PCD) == EINVAL);
    CHECK(*entry(FREE_MFN, 1) == 0);
}

static void refused_flags(void)
{
    uint64_t d = DATA_MFN << 12;

    CHECK(setup(false) == 0);
    CHECK(mmu1(maddr(l1, 5), d | PTE_P | PTE_PCD) == EINVAL);
    CHECK(mmu1(maddr(l1, 5), d | PTE_P | PTE_PWT) == EINVAL);
    CHECK(mmu1(maddr(l1, 5), d | PTE_P | PTE_PS) == EINVAL);         /* PAT */
    CHECK(mmu1(maddr(l1, 5), d | PTE_P | (1ull << 62)) == EINVAL);
    CHECK(*entry(l1, 5) == 0);
    CHECK(mmu1(maddr(l1, 5), d | PTE_P | PTE_G | PTE_NX | (1ull << 52) | 0xe00) == 0);
    CHECK(mmu1(maddr(l2, 7), (FREE_MFN << 12) | KPT | PTE_PS) == EINVAL);   /* superpage */
    CHECK(mmu1(maddr(l2, 7), (FREE_MFN << 12) | KPT | PTE_G) == EINVAL);
    CHECK(mmu1(maddr(l4, 3), (FREE_MFN << 12) | KPT | PTE_PS) == EINVAL);
    CHECK(mmu1(maddr(l2, 7), (FREE_MFN << 12) | KPT | PTE_NX) == 0);
}

static void refused_frames(void)
{
    CHECK(setup(false) == 0);
    /* Another owner's frame: -EBUSY; outside memory: MMIO, -EPERM. */
    CHECK(mmu1(maddr(l1, 5), (PRIVATE << 12) | PTE_P) == EBUSY);
    CHECK(mmu1(maddr(l1, 5), ((uint64_t)FRAMES << 12) | PTE_P) == EPERM);
    CHECK(mmu1(maddr(l1, 5), (0xfffffffffull << 12) | PTE_P) == EPERM);
    CHECK(mmu1(maddr(l1, 5), ((GUEST_BASE - 1ull) << 12) | PTE_P) == EBUSY);
    CHECK(*entry(l1, 5) == 0);
    /* shared_info is the one perch frame an L1 entry may map. */
    CHECK(mmu1(maddr(l1, 5), (SHARED_INFO << 12) | PTE_P | PTE_RW) == 0);
    /* Tables must be the guest's: -EINVAL, shared_info included. */
    CHECK(mmu1(maddr(l2, 7), (PRIVATE << 12) | KPT) == EINVAL);
    CHECK(mmu1(maddr(l2, 7), (SHARED_INFO << 12) | KPT) == EINVAL);
    CHECK(mmu1(maddr(l2, 7), ((uint64_t)FRAMES << 12) | KPT) == EINVAL);
    CHECK(*entry(l2, 7) == 0);
    CHECK(perch_shared.stats.pt_updates == 1);
}

static void refused_targets(void)
{
    CHECK(setup(false) == 0);
    CHECK(mmu1(maddr(PRIVATE, 0), 0) == EINVAL);
    CHECK(mmu1(maddr(SHARED_INFO, 0), 0) == EINVAL);
    CHECK(mmu1(maddr(FRAMES, 0), 0) == EINVAL);
    CHECK(mmu1(~7ull, 0) == EINVAL);
    /* The low 3 bits are the command: an "unaligned" address is command
     * 4-7, which does not exist (Xen: -ENOSYS). */
    CHECK(mmu1(~3ull, 0) == -XEN_ENOSYS);
    CHECK(mmu1(maddr(l1, 5) + 4, (DATA_MFN << 12) | PTE_P) == -XEN_ENOSYS);
    CHECK(*entry(l1, 5) == 0 && *entry(l1, 6) == 0);
}

static void l4_hole_slots_refused(void)
{
    uint64_t old257;

    CHECK(setup(false) == 0);
    old257 = *entry(l4, 257);
    for (unsigned slot = 256; slot <= 271; slot++) {
        CHECK(mmu1(maddr(l4, slot), 0) == EINVAL);
        CHECK(mmu1(maddr(l4, slot), (FREE_MFN << 12) | KPT) == EINVAL);
    }
    CHECK(*entry(l4, 257) == old257);
    CHECK(mmu1(maddr(l4, 255), (FREE_MFN << 12) | KPT) == 0);
    CHECK(mmu1(maddr(l4, 272), ((FREE_MFN + 1) << 12) | KPT) == 0);
}

/* Also when the L4 is known only by its pin, not as a base pointer. */
static void pinned_l4_hole_slots_refused(void)
{
    CHECK(setup(false) == 0);
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, FREE_MFN, 0) == 0);
    CHECK(mmu1(maddr(FREE_MFN, 258), 0) == EINVAL);
    CHECK(mmu1(maddr(FREE_MFN, 300), 0) == 0);
}

static void not_present_values_stored_as_they_are(void)
{
    CHECK(setup(false) == 0);
    CHECK(mmu1(maddr(l1, 5), 0xdeadbeef000ull | PTE_PS | PTE_PCD) == 0);
    CHECK(*entry(l1, 5) == (0xdeadbeef000ull | PTE_PS | PTE_PCD));
}

static void preserve_ad_keeps_the_old_accessed_and_dirty_bits(void)
{
    uint64_t d = DATA_MFN << 12;

    CHECK(setup(false) == 0);
    *entry(l1, 5) = d | PTE_P | PTE_US | PTE_A | PTE_D;
    CHECK(mmu1(maddr(l1, 5) | MMU_PT_UPDATE_PRESERVE_AD, d | PTE_P) == 0);
    CHECK(*entry(l1, 5) == (d | PTE_P | PTE_US | PTE_A | PTE_D));
    CHECK(mmu1(maddr(l1, 5) | MMU_NORMAL_PT_UPDATE, d | PTE_P) == 0);
    CHECK(*entry(l1, 5) == (d | PTE_P | PTE_US));
    /* NO_TRANSLATE is NORMAL for a PV guest. */
    CHECK(mmu1(maddr(l1, 5) | MMU_PT_UPDATE_NO_TRANSLATE, d | PTE_P | PTE_RW) == 0);
    CHECK(*entry(l1, 5) == (d | PTE_P | PTE_RW | PTE_US));
}

static void machphys_update(void)
{
    uint64_t *m2p;

    CHECK(setup(false) == 0);
    m2p = frame(M2P_FRAME);
    /* Any address in the frame names it; the command is in bits 0-1. */
    CHECK(mmu1((DATA_MFN << 12) | 0x120 | MMU_MACHPHYS_UPDATE, 0x4567) == 0);
    CHECK(m2p[DATA_MFN] == 0x4567);
    CHECK(mmu1((PRIVATE << 12) | MMU_MACHPHYS_UPDATE, 1) == EINVAL);
    CHECK(m2p[PRIVATE] == 0);
    mm_m2p_maddr = INVALID_MFN;
    CHECK(mmu1((DATA_MFN << 12) | MMU_MACHPHYS_UPDATE, 1) == EINVAL);
    mm_m2p_maddr = FRAMES * 4096ull - 8;     /* room for entry 0 only */
    CHECK(mmu1(((FRAMES - 1ull) << 12) | MMU_MACHPHYS_UPDATE, 1) == EINVAL);
    CHECK(perch_shared.stats.pt_updates == 0);
}

/* ---- mmu_update: batches -------------------------------------------------------- */

static void done_count_and_first_failure(void)
{
    struct mmu_update *r;
    uint32_t *done;

    CHECK(setup(false) == 0);
    r = (void *)frame(BUF_MFN);
    done = (uint32_t *)((uint8_t *)frame(BUF_MFN) + 2048);
    r[0] = (struct mmu_update){ maddr(l1, 5), (DATA_MFN << 12) | PTE_P };
    r[1] = (struct mmu_update){ maddr(l1, 6), (PRIVATE << 12) | PTE_P };
    r[2] = (struct mmu_update){ maddr(l1, 7), (DATA_MFN << 12) | PTE_P };
    done[0] = 99;
    done[1] = 0xa5a5a5a5;
    CHECK(do_mmu_update(BUF_VA, 3, BUF_VA + 2048, DOMID_SELF, 0) == EBUSY);
    CHECK(done[0] == 1 && done[1] == 0xa5a5a5a5);   /* an unsigned int */
    CHECK(*entry(l1, 5) != 0 && *entry(l1, 7) == 0);
    r[1].val = (DATA_MFN << 12) | PTE_P;
    CHECK(do_mmu_update(BUF_VA, 3, BUF_VA + 2048, DOMID_SELF, 0) == 0);
    CHECK(done[0] == 3 && *entry(l1, 7) != 0);
    CHECK(do_mmu_update(BUF_VA, 0, BUF_VA + 2048, DOMID_SELF, 0) == 0);
    CHECK(done[0] == 0);
    CHECK(do_mmu_update(BUF_VA, 3, 0, DOMID_SELF, 0) == 0);
    CHECK(perch_shared.stats.pt_updates == 7);
}

static void bad_request_pointer(void)
{
    uint32_t *done;

    CHECK(setup(false) == 0);
    done = (uint32_t *)((uint8_t *)frame(BUF_MFN) + 2048);
    *done = 99;
    CHECK(do_mmu_update(UNMAPPED_VA, 1, BUF_VA + 2048, DOMID_SELF, 0) == EFAULT);
    CHECK(*done == 0);
    /* The second request runs off the mapped page. */
    ((struct mmu_update *)frame(BUF_MFN))[255] =
        (struct mmu_update){ maddr(table_of(BUF_VA, 1), 5), 0 };
    CHECK(do_mmu_update(BUF_VA + 4096 - 16, 2, BUF_VA + 2048, DOMID_SELF, 0) == EFAULT);
    CHECK(*done == 1);
    /* A done pointer that cannot be written is ignored, as in Xen. */
    CHECK(do_mmu_update(BUF_VA, 0, UNMAPPED_VA, DOMID_SELF, 0) == 0);
}

static void foreign_domains_refused(void)
{
    uint32_t *done;

    CHECK(setup(false) == 0);
    done = (uint32_t *)((uint8_t *)frame(BUF_MFN) + 2048);
    ((struct mmu_update *)frame(BUF_MFN))[0] =
        (struct mmu_update){ maddr(l1, 5), (DATA_MFN << 12) | PTE_P };
    *done = 99;
    CHECK(do_mmu_update(BUF_VA, 1, BUF_VA + 2048, 0, 0) == ESRCH);
    CHECK(*done == 0);
    /* DOMID_IO exists, but a domU may map none of its own RAM through it. */
    CHECK(do_mmu_update(BUF_VA, 1, 0, DOMID_IO, 0) == -XEN_EBUSY);
    CHECK(do_mmuext_op(BUF_VA, 1, 0, DOMID_IO, 0) == -XEN_EPERM);
    CHECK(do_mmu_update(BUF_VA, 1, 0, DOMID_XEN, 0) == ESRCH);
    CHECK(do_mmu_update(BUF_VA, 1, 0, (1u << 16) | DOMID_SELF, 0) == ESRCH);
    CHECK(*entry(l1, 5) == 0);
    CHECK(do_mmuext_op(BUF_VA, 1, 0, 1, 0) == ESRCH);
    CHECK(do_mmuext_op(BUF_VA, 0, 0, DOMID_SELF, 0) == 0);
}

/* A continuation's count goes on from the guest's done count. */
static void preempted_count(void)
{
    uint32_t *done;

    CHECK(setup(false) == 0);
    done = (uint32_t *)((uint8_t *)frame(BUF_MFN) + 2048);
    ((struct mmu_update *)frame(BUF_MFN))[0] =
        (struct mmu_update){ maddr(l1, 5), (DATA_MFN << 12) | PTE_P };
    *done = 4;
    CHECK(do_mmu_update(BUF_VA, MMU_UPDATE_PREEMPTED | 1, BUF_VA + 2048, DOMID_SELF, 0) == 0);
    CHECK(*done == 5);
}

static void upper_level_changes_flush(void)
{
    unsigned i = index_of(BUF_VA, 2);

    CHECK(setup(false) == 0);
    CHECK(mmu1(maddr(l2, 7), (FREE_MFN << 12) | KPT) == 0);
    CHECK(current->pending == 0);            /* was not present: nothing cached */
    CHECK(mmu1(maddr(l2, i), *entry(l2, i)) == 0);
    CHECK(current->pending == 0);            /* unchanged */
    CHECK(mmu1(maddr(l2, 7), 0) == 0);
    CHECK(current->pending == PENDING_TLB_FLUSH);
    current->pending = 0;
    CHECK(mmu1(maddr(l1, index_of(BUF_VA, 1)), 0) == 0);
    CHECK(current->pending == 0);            /* L1: the guest's own flush */
}

/* ---- mmuext_op -------------------------------------------------------------------- */

static void flush_requests_for_this_vcpu_queue_one_tlb_flush(void)
{
    static const uint32_t cmds[] = { MMUEXT_TLB_FLUSH_LOCAL, MMUEXT_TLB_FLUSH_ALL,
                                     MMUEXT_INVLPG_LOCAL, MMUEXT_INVLPG_ALL };
    uint64_t *mask;

    CHECK(setup(false) == 0);
    current->tlb_stale = true;    /* something to flush (test_host_tlb.c: when not) */
    for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        current->pending = 0;
        CHECK(ext1(cmds[i], DATA_VA, 0) == 0);
        CHECK(current->pending == PENDING_TLB_FLUSH);
    }
    mask = frame(BUF_MFN) + 256;
    *mask = 1;
    current->pending = 0;
    CHECK(ext1(MMUEXT_TLB_FLUSH_MULTI, 0, BUF_VA + 2048) == 0);
    CHECK(current->pending == PENDING_TLB_FLUSH);
    *mask = 2;                             /* not this vCPU */
    current->pending = 0;
    CHECK(ext1(MMUEXT_INVLPG_MULTI, DATA_VA, BUF_VA + 2048) == 0);
    CHECK(current->pending == 0);
    CHECK(ext1(MMUEXT_INVLPG_MULTI, DATA_VA, UNMAPPED_VA) == EINVAL);
    CHECK(ext1(MMUEXT_FLUSH_CACHE, 0, 0) == 0);
    CHECK(ext1(MMUEXT_FLUSH_CACHE_GLOBAL, 0, 0) == 0);
    CHECK(current->pending == 0);
}

static void new_baseptr(void)
{
    uint64_t boot_l4;

    CHECK(setup(false) == 0);
    boot_l4 = kernel_l4();
    copy_kernel_l4(FREE_MFN);
    entry(FREE_MFN, 5)[0] = ((FREE_MFN + 1) << 12) | KPT;   /* a new, unchecked slot */
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FREE_MFN, 0) == 0);
    CHECK(current->kernel_cr3 == FREE_MFN << 12);
    CHECK(host_env_kernel_cr3_slot == FREE_MFN << 12);   /* guest_set_kernel_cr3 */
    CHECK(current->pending == PENDING_TLB_FLUSH);
    CHECK(kernel_view(FREE_MFN));
    CHECK(*entry(FREE_MFN, 5) == (((FREE_MFN + 1) << 12) | KPT | PTE_US));
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_L4);
    CHECK(frame_table[boot_l4].type == MM_TYPE_L4);    /* still pinned */
    /* Back to the boot L4, then away again: the unpinned one is forgotten. */
    CHECK(ext1(MMUEXT_NEW_BASEPTR, boot_l4, 0) == 0);
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_NONE);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, PRIVATE, 0) == EINVAL);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FRAMES, 0) == EINVAL);
    CHECK(current->kernel_cr3 == boot_l4 << 12);
}

static void new_baseptr_refuses_a_bad_l4(void)
{
    CHECK(setup(false) == 0);
    copy_kernel_l4(FREE_MFN);
    *entry(FREE_MFN, 257) = *entry(FREE_MFN, 258) = 0;
    *entry(FREE_MFN, 5) = (PRIVATE << 12) | KPT;
    current->pending = 0;
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FREE_MFN, 0) == EINVAL);
    CHECK(current->kernel_cr3 != FREE_MFN << 12 && current->pending == 0);
    CHECK(no_view(FREE_MFN));
}

static void new_user_baseptr(void)
{
    CHECK(setup(false) == 0);
    *entry(FREE_MFN, 0) = ((FREE_MFN + 1) << 12) | KPT;
    current->pending = 0;
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, FREE_MFN, 0) == 0);
    CHECK(current->user_cr3 == FREE_MFN << 12);
    CHECK(user_view(FREE_MFN));
    CHECK(*entry(FREE_MFN, 0) == (((FREE_MFN + 1) << 12) | KPT | PTE_US));
    CHECK(current->pending == 0);    /* loaded on the next switch to user */
    /* The same again: nothing to do. */
    *entry(FREE_MFN, 257) = 0;
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, FREE_MFN, 0) == 0 && no_view(FREE_MFN));
    /* One L4 never serves both views. */
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, kernel_l4(), 0) == EINVAL);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FREE_MFN, 0) == EINVAL);
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, PRIVATE, 0) == EINVAL);
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, 0, 0) == 0);
    CHECK(current->user_cr3 == 0);
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_NONE);
}

/* The view follows the use: a frame that was a kernel L4 loses the alias
 * (slot 258) when it becomes a user L4. */
static void views_follow_use(void)
{
    uint64_t boot_l4;

    CHECK(setup(false) == 0);
    boot_l4 = kernel_l4();
    copy_kernel_l4(FREE_MFN);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FREE_MFN, 0) == 0);
    CHECK(kernel_view(FREE_MFN));
    CHECK(ext1(MMUEXT_NEW_BASEPTR, boot_l4, 0) == 0);
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, FREE_MFN, 0) == 0);
    CHECK(user_view(FREE_MFN));
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, 0, 0) == 0);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FREE_MFN, 0) == 0);
    CHECK(kernel_view(FREE_MFN));
}

static void pin_and_unpin(void)
{
    CHECK(setup(false) == 0);
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, FREE_MFN, 0) == 0);
    CHECK(user_view(FREE_MFN));                      /* not a base pointer yet */
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_L4);
    CHECK(frame_table[FREE_MFN].flags & MM_FRAME_PINNED);
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, FREE_MFN, 0) == EINVAL);     /* already */
    CHECK(ext1(MMUEXT_PIN_L2_TABLE, FREE_MFN, 0) == EINVAL);
    CHECK(ext1(MMUEXT_UNPIN_TABLE, FREE_MFN, 0) == 0);
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_NONE);
    CHECK(ext1(MMUEXT_UNPIN_TABLE, FREE_MFN, 0) == EINVAL);      /* not pinned */
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, PRIVATE, 0) == EINVAL);
    CHECK(ext1(MMUEXT_UNPIN_TABLE, PRIVATE, 0) == EINVAL);
    CHECK(ext1(MMUEXT_PIN_L3_TABLE, FREE_MFN + 1, 0) == 0);
    CHECK(no_view(FREE_MFN + 1));                                /* L4s only */
    /* The builder's L4 (mm_boot's pin) may be unpinned while in use, as
     * Linux does; it stays known as the base pointer. */
    CHECK(ext1(MMUEXT_UNPIN_TABLE, kernel_l4(), 0) == 0);
    CHECK(frame_table[kernel_l4()].type == MM_TYPE_L4);
    /* Re-pinning the kernel's L4 keeps its kernel view. */
    *entry(kernel_l4(), 258) = 0;
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, kernel_l4(), 0) == 0);
    CHECK(kernel_view(kernel_l4()));
}

/* Pinning checks the tree below once and adjusts what the guest stored
 * directly (Linux's boot tables carry no USER). */
static void pin_adjusts_the_tree(void)
{
    uint64_t t4 = FREE_MFN, t3 = FREE_MFN + 1, t2 = FREE_MFN + 2, t1 = FREE_MFN + 3;

    CHECK(setup(false) == 0);
    *entry(t4, 511) = (t3 << 12) | KPT;
    *entry(t4, 260) = (t3 << 12) | KPT;     /* a guest value in Xen's slots */
    *entry(t3, 510) = (t2 << 12) | KPT;
    *entry(t2, 0) = (t1 << 12) | KPT | PTE_NX;
    *entry(t1, 0) = (DATA_MFN << 12) | PTE_P | PTE_RW | PTE_A;
    *entry(t1, 1) = (DATA_MFN << 12) | PTE_P;
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, t4, 0) == 0);
    CHECK(*entry(t4, 511) == ((t3 << 12) | KPT | PTE_US));
    CHECK(*entry(t4, 260) == 0);
    CHECK(user_view(t4));
    CHECK(*entry(t3, 510) == ((t2 << 12) | KPT | PTE_US));
    CHECK(*entry(t2, 0) == ((t1 << 12) | KPT | PTE_NX | PTE_US));
    CHECK(*entry(t1, 0) == ((DATA_MFN << 12) | PTE_P | PTE_RW | PTE_A | PTE_US));
    CHECK(*entry(t1, 1) == ((DATA_MFN << 12) | PTE_P | PTE_US));
    CHECK(frame_table[t3].type == MM_TYPE_L3 && frame_table[t2].type == MM_TYPE_L2 &&
          frame_table[t1].type == MM_TYPE_L1);
    /* Once known, the tables below are not walked again. */
    *entry(t1, 2) = (DATA_MFN << 12) | PTE_P;
    *entry(FREE_MFN + 4, 511) = (t3 << 12) | KPT;
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, FREE_MFN + 4, 0) == 0);
    CHECK(*entry(t1, 2) == ((DATA_MFN << 12) | PTE_P));
}

static void pin_refuses_bad_tables(void)
{
    CHECK(setup(false) == 0);
    *entry(FREE_MFN, 3) = (PRIVATE << 12) | PTE_P;
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, FREE_MFN, 0) == EBUSY);
    CHECK(!(frame_table[FREE_MFN].flags & MM_FRAME_PINNED));
    *entry(FREE_MFN + 1, 3) = (DATA_MFN << 12) | KPT | PTE_PS;
    CHECK(ext1(MMUEXT_PIN_L2_TABLE, FREE_MFN + 1, 0) == EINVAL);
    /* A bad entry two levels down. */
    *entry(FREE_MFN + 2, 0) = ((FREE_MFN + 3) << 12) | KPT;
    *entry(FREE_MFN + 3, 0) = (FREE_MFN << 12) | KPT;
    CHECK(ext1(MMUEXT_PIN_L3_TABLE, FREE_MFN + 2, 0) == EBUSY);
    CHECK(frame_table[FREE_MFN + 2].type == MM_TYPE_NONE);
}

/* Without mm_frames the default mode still checks what it is given. */
static void without_frame_table(void)
{
    CHECK(setup(false) == 0);
    mm_frames = NULL;
    CHECK(mmu1(maddr(l1, 5), (DATA_MFN << 12) | PTE_P) == 0);
    CHECK(*entry(l1, 5) & PTE_US);
    CHECK(mmu1(maddr(kernel_l4(), 257), 0) == EINVAL);   /* the base is an L4 */
    *entry(FREE_MFN, 0) = (DATA_MFN << 12) | PTE_P;
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, FREE_MFN, 0) == 0);
    CHECK(*entry(FREE_MFN, 0) & PTE_US);
    CHECK(ext1(MMUEXT_UNPIN_TABLE, FREE_MFN, 0) == 0);
    CHECK(ext1(MMUEXT_UNPIN_TABLE, FREE_MFN, 0) == 0);   /* pins not tracked */
    mm_strict = true;                                   /* needs the table */
    CHECK(mm_boot() == EINVAL);
}

static void set_ldt_accepts_an_aligned_table_of_at_most_8192_entries(void)
{
    CHECK(setup(false) == 0);
    CHECK(ext1(MMUEXT_SET_LDT, 0, 0) == 0);
    CHECK(ext1(MMUEXT_SET_LDT, DATA_VA, 0) == 0);
    CHECK(ext1(MMUEXT_SET_LDT, DATA_VA, 5) == EINVAL);
    CHECK(ext1(MMUEXT_SET_LDT, DATA_VA + 8, 5) == EINVAL);
    CHECK(ext1(MMUEXT_SET_LDT, 0, 8193) == EINVAL);
    CHECK(ext1(MMUEXT_SET_LDT, 0, 1ull << 32) == 0);    /* nr_ents is 32 bits */
}

static void clear_and_copy_page(void)
{
    uint8_t *a, *b;

    CHECK(setup(false) == 0);
    a = (uint8_t *)frame(DATA_MFN);
    b = (uint8_t *)frame(DATA_MFN + 1);
    memset(a, 0x5a, 4096);
    memset(b, 0x33, 4096);
    CHECK(ext1(MMUEXT_COPY_PAGE, DATA_MFN + 1, DATA_MFN) == 0);
    CHECK(b[0] == 0x5a && b[4095] == 0x5a);
    CHECK(ext1(MMUEXT_CLEAR_PAGE, DATA_MFN, 0) == 0);
    CHECK(a[0] == 0 && a[4095] == 0 && b[17] == 0x5a);
    CHECK(ext1(MMUEXT_CLEAR_PAGE, PRIVATE, 0) == EINVAL);
    CHECK(ext1(MMUEXT_COPY_PAGE, DATA_MFN, PRIVATE) == EINVAL);
    CHECK(ext1(MMUEXT_COPY_PAGE, PRIVATE, DATA_MFN) == EINVAL);
    CHECK(ext1(MMUEXT_COPY_PAGE, DATA_MFN, DATA_MFN) == 0);
}

static void unknown_commands(void)
{
    CHECK(setup(false) == 0);
    CHECK(ext1(14, 0, 0) == -XEN_ENOSYS);
    CHECK(ext1(21, 0, 0) == -XEN_ENOSYS);
    CHECK(ext1(0x80000000u, 0, 0) == -XEN_ENOSYS);
    CHECK(ext1(MMUEXT_MARK_SUPER, DATA_MFN, 0) == -XEN_EOPNOTSUPP);
    CHECK(ext1(MMUEXT_UNMARK_SUPER, DATA_MFN, 0) == -XEN_EOPNOTSUPP);
}

static void ext_batch_done_count(void)
{
    struct mmuext_op *ops;
    uint32_t *done;

    CHECK(setup(false) == 0);
    ops = (void *)frame(BUF_MFN);
    done = (uint32_t *)((uint8_t *)frame(BUF_MFN) + 2048);
    ops[0] = (struct mmuext_op){ .cmd = MMUEXT_TLB_FLUSH_LOCAL };
    ops[1] = (struct mmuext_op){ .cmd = MMUEXT_PIN_L1_TABLE, .arg1 = PRIVATE };
    ops[2] = (struct mmuext_op){ .cmd = MMUEXT_TLB_FLUSH_LOCAL };
    CHECK(do_mmuext_op(BUF_VA, 3, BUF_VA + 2048, DOMID_SELF, 0) == EINVAL);
    CHECK(*done == 1);
    ops[1].cmd = MMUEXT_INVLPG_LOCAL;
    CHECK(do_mmuext_op(BUF_VA, 3, BUF_VA + 2048, DOMID_SELF, 0) == 0);
    CHECK(*done == 3);
    CHECK(do_mmuext_op(UNMAPPED_VA, 1, BUF_VA + 2048, DOMID_SELF, 0) == EFAULT);
    CHECK(*done == 0);
}

/* ---- update_va_mapping --------------------------------------------------------------- */

static void update_va_mapping_mapped(void)
{
    uint64_t *pte;

    CHECK(setup(false) == 0);
    pte = host_env_pte(DATA_VA + 4096, 0);
    CHECK(do_update_va_mapping(DATA_VA + 4096, (DATA_MFN << 12) | PTE_P | PTE_A,
                               UVMF_NONE, 0, 0) == 0);
    CHECK(*pte == ((DATA_MFN << 12) | PTE_P | PTE_A | PTE_US));
    CHECK(current->pending == 0 && perch_shared.stats.pt_updates == 1);
    CHECK(do_update_va_mapping(DATA_VA + 4096, 0, UVMF_INVLPG, 0, 0) == 0);
    CHECK(*pte == 0 && current->pending == PENDING_TLB_FLUSH);
    current->pending = 0;
    CHECK(do_update_va_mapping(DATA_VA + 4096, 0, UVMF_TLB_FLUSH | UVMF_ALL, 0, 0) == 0);
    CHECK(current->pending == PENDING_TLB_FLUSH);
    current->pending = 0;
    CHECK(do_update_va_mapping(DATA_VA + 4096, 0, UVMF_FLUSHTYPE_MASK, 0, 0) == 0);
    CHECK(current->pending == 0);
}

static void update_va_mapping_vcpu_mask(void)
{
    CHECK(setup(false) == 0);
    frame(BUF_MFN)[256] = 1;
    CHECK(do_update_va_mapping(DATA_VA, 0, UVMF_INVLPG | (BUF_VA + 2048), 0, 0) == 0);
    CHECK(current->pending == PENDING_TLB_FLUSH);
    current->pending = 0;
    /* An unreadable bitmap: the entry is written, the call says -EFAULT. */
    CHECK(do_update_va_mapping(DATA_VA + 4096, 0, UVMF_INVLPG | UNMAPPED_VA, 0, 0) == EFAULT);
    CHECK(*host_env_pte(DATA_VA + 4096, 0) == 0 && current->pending == 0);
}

static void update_va_mapping_refused(void)
{
    CHECK(setup(false) == 0);
    CHECK(do_update_va_mapping(UNMAPPED_VA, 0, UVMF_INVLPG, 0, 0) == EINVAL);
    CHECK(do_update_va_mapping(PERCH_REGION_VA, 0, 0, 0, 0) == EINVAL);
    CHECK(do_update_va_mapping(0x0000800000000000ull, 0, 0, 0, 0) == EINVAL);
    CHECK(do_update_va_mapping(DATA_VA, (PRIVATE << 12) | PTE_P, UVMF_INVLPG, 0, 0) == EBUSY);
    CHECK(current->pending == 0);
    CHECK(*host_env_pte(DATA_VA, 0) == ((DATA_MFN << 12) | HOST_ENV_RW));
    /* A superpage on the way. */
    *host_env_pte(DATA_VA, 1) |= PTE_PS;
    CHECK(do_update_va_mapping(DATA_VA, 0, 0, 0, 0) == EINVAL);
    CHECK(perch_shared.stats.pt_updates == 0);
}

/* ---- Strict mode -------------------------------------------------------------------------- */

static void strict_boot_types(void)
{
    CHECK(setup(true) == 0);
    CHECK(frame_table[kernel_l4()].type == MM_TYPE_L4);
    CHECK(frame_table[kernel_l4()].count == 2);        /* pin + base pointer */
    CHECK(frame_table[table_of(BUF_VA, 1)].type == MM_TYPE_L1);
    CHECK(frame_table[table_of(BUF_VA, 3)].type == MM_TYPE_L3);
    CHECK(frame_table[table_of(BUF_VA, 3)].count == 1);
    CHECK(frame_table[DATA_MFN].type == MM_TYPE_WRITABLE);
    CHECK(frame_table[DATA_MFN].count == 1);
}

/* A frame with writable mappings cannot become a table; once read-only it
 * can, and then it cannot be mapped writable. */
static void strict_writable_and_tables_exclude(void)
{
    CHECK(setup(true) == 0);
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, DATA_MFN, 0) == EINVAL);
    CHECK(do_update_va_mapping(DATA_VA, (DATA_MFN << 12) | PTE_P | PTE_A, 0, 0, 0) == 0);
    CHECK(frame_table[DATA_MFN].count == 0);
    current->pending = 0;
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, DATA_MFN, 0) == 0);
    CHECK(current->pending == PENDING_TLB_FLUSH);  /* a writable TLB entry may linger */
    CHECK(frame_table[DATA_MFN].type == MM_TYPE_L1);
    CHECK(mmu1(maddr(l1, 5), (DATA_MFN << 12) | PTE_P | PTE_RW) == EBUSY);
    CHECK(*entry(l1, 5) == 0);
    CHECK(mmu1(maddr(l1, 5), (DATA_MFN << 12) | PTE_P) == 0);
    CHECK(do_update_va_mapping(DATA_VA, (DATA_MFN << 12) | PTE_P | PTE_RW, 0, 0, 0) == EBUSY);
    /* CLEAR_PAGE writes: not into a table. */
    CHECK(ext1(MMUEXT_CLEAR_PAGE, DATA_MFN, 0) == EINVAL);
    CHECK(ext1(MMUEXT_CLEAR_PAGE, DATA_MFN + 1, 0) == 0);
    CHECK(frame_table[DATA_MFN + 1].count == 1);
    /* Unpinned, no longer a table: writable again. */
    CHECK(ext1(MMUEXT_UNPIN_TABLE, DATA_MFN, 0) == 0);
    CHECK(do_update_va_mapping(DATA_VA, (DATA_MFN << 12) | PTE_P | PTE_RW, 0, 0, 0) == 0);
    CHECK(frame_table[DATA_MFN].type == MM_TYPE_WRITABLE);
}

static void strict_type_mismatch(void)
{
    CHECK(setup(true) == 0);
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, FREE_MFN, 0) == 0);
    CHECK(ext1(MMUEXT_PIN_L2_TABLE, FREE_MFN, 0) == EINVAL);
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, FREE_MFN, 0) == EINVAL);   /* already pinned */
    CHECK(frame_table[FREE_MFN].count == 1);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, l1, 0) == EINVAL);          /* not an L4 */
    CHECK(ext1(MMUEXT_NEW_USER_BASEPTR, FREE_MFN, 0) == EINVAL);
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, table_of(BUF_VA, 2), 0) == EINVAL);
}

/* Unpinning the base pointer is allowed (Linux does it at boot): the base
 * keeps its own reference until the guest switches away. */
static void strict_base_pointer_references(void)
{
    uint64_t boot_l4;

    CHECK(setup(true) == 0);
    boot_l4 = kernel_l4();
    CHECK(ext1(MMUEXT_UNPIN_TABLE, boot_l4, 0) == 0);
    CHECK(frame_table[boot_l4].count == 1 && frame_table[boot_l4].type == MM_TYPE_L4);
    copy_kernel_l4(FREE_MFN);
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, FREE_MFN, 0) == 0);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, FREE_MFN, 0) == 0);
    CHECK(frame_table[FREE_MFN].count == 2);
    CHECK(frame_table[boot_l4].count == 0);
    /* The tables below are held by the new L4 alone. */
    CHECK(frame_table[table_of(BUF_VA, 3)].count == 1);
    CHECK(frame_table[DATA_MFN].count == 1);
    /* Now a plain frame: writable mappings of it are fine. */
    CHECK(do_update_va_mapping(DATA_VA, (boot_l4 << 12) | PTE_P | PTE_RW, 0, 0, 0) == 0);
    CHECK(ext1(MMUEXT_NEW_BASEPTR, boot_l4, 0) == EINVAL);
}

/* In strict mode, a store into a frame that is no page table is plain. */
static void strict_plain_store(void)
{
    CHECK(setup(true) == 0);
    CHECK(mmu1(maddr(DATA_MFN, 3), (PRIVATE << 12) | PTE_P | PTE_PS) == 0);
    CHECK(*entry(DATA_MFN, 3) == ((PRIVATE << 12) | PTE_P | PTE_PS));
    CHECK(mmu1(maddr(DATA_MFN, 3) | MMU_PT_UPDATE_PRESERVE_AD, 5) == 0);
    CHECK(*entry(DATA_MFN, 3) == 5);
}

/* Hooking a table validates it; a bad entry below refuses the hook. */
static void strict_hook_validates_the_table(void)
{
    CHECK(setup(true) == 0);
    *entry(FREE_MFN, 0) = (l1 << 12) | PTE_P | PTE_RW;   /* a table, writable */
    CHECK(mmu1(maddr(l2, 100), (FREE_MFN << 12) | KPT) == EBUSY);
    CHECK(*entry(l2, 100) == 0 && frame_table[FREE_MFN].count == 0);
    *entry(FREE_MFN, 0) = ((DATA_MFN + 2) << 12) | PTE_P | PTE_RW;
    CHECK(mmu1(maddr(l2, 100), (FREE_MFN << 12) | KPT) == 0);
    CHECK(frame_table[FREE_MFN].type == MM_TYPE_L1 && frame_table[FREE_MFN].count == 1);
    CHECK(frame_table[DATA_MFN + 2].count == 2);
    CHECK(*entry(FREE_MFN, 0) & PTE_US);
    /* Unhooked: its references go with it. */
    current->pending = 0;
    CHECK(mmu1(maddr(l2, 100), 0) == 0);
    CHECK(frame_table[FREE_MFN].count == 0 && frame_table[DATA_MFN + 2].count == 1);
    CHECK(current->pending == PENDING_TLB_FLUSH);
    /* Now writable again. */
    CHECK(mmu1(maddr(l1, 9), (FREE_MFN << 12) | PTE_P | PTE_RW) == 0);
}

/* A loop of tables is never a valid tree. */
static void strict_self_reference(void)
{
    uint64_t t4 = FREE_MFN;

    CHECK(setup(true) == 0);
    *entry(t4, 0) = (t4 << 12) | KPT;
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, t4, 0) == EINVAL);
    *entry(t4, 0) = 0;
    *entry(FREE_MFN + 1, 0) = ((FREE_MFN + 1) << 12) | PTE_P | PTE_RW;
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, FREE_MFN + 1, 0) == EBUSY);
    CHECK(frame_table[FREE_MFN + 1].count == 0);
    CHECK(ext1(MMUEXT_PIN_L4_TABLE, t4, 0) == 0);
}

/* ---- The balloon's frames (host/mm/reservation.c, through memory_op) -------- */

#define EXTENTS_VA (BUF_VA + 1024)

/* A reservation call of op over the n extents given. */
static long reserve(unsigned op, const uint64_t *extents, unsigned n)
{
    struct xen_memory_reservation r = { .extent_start = EXTENTS_VA, .nr_extents = n,
                                        .domid = DOMID_SELF };

    memcpy(frame(BUF_MFN), &r, sizeof(r));
    memcpy(frame(BUF_MFN) + 128, extents, n * 8ull);
    return do_memory_op(op, BUF_VA, 0, 0, 0);
}

static uint64_t extent(unsigned i)
{
    return frame(BUF_MFN)[128 + i];
}

static long current_reservation(void)
{
    uint16_t self = DOMID_SELF;

    memcpy(frame(BUF_MFN), &self, sizeof(self));
    return do_memory_op(XENMEM_current_reservation, BUF_VA, 0, 0, 0);
}

static bool given_back(uint64_t mfn)
{
    return frame_table[mfn].flags & MM_FRAME_GIVEN_BACK;
}

/* Given back: marked, out of the M2P, released to the Launcher in ranges
 * at the end of the call; taken again: each once, its M2P entry the
 * pseudo-physical frame asked for, until none is left. */
static void balloon_gives_back_and_takes_again(void)
{
    const uint64_t out[] = { DATA_MFN, DATA_MFN + 1, DATA_MFN + 2, FREE_MFN + 7 };
    const uint64_t pfns[] = { 5, 6 };
    long all;
    uint64_t a, b;

    CHECK(setup(false) == 0);
    all = current_reservation();
    frame(DATA_MFN + 1)[3] = 0x77;
    CHECK(reserve(XENMEM_decrease_reservation, out, 4) == 4);
    CHECK(given_back(DATA_MFN) && given_back(DATA_MFN + 2) && given_back(FREE_MFN + 7));
    CHECK(frame(M2P_FRAME)[DATA_MFN + 1] == INVALID_MFN);
    CHECK(host_env_requests_of[PERCH_REQ_RELEASE_FRAMES] == 1);
    CHECK(perch_shared.release.nr == 0);   /* handed over */
    CHECK(perch_shared.release.range[0].first_mfn == DATA_MFN &&
          perch_shared.release.range[0].frames == 3);
    CHECK(perch_shared.release.range[1].first_mfn == FREE_MFN + 7 &&
          perch_shared.release.range[1].frames == 1);
    CHECK(host_env_last_request()->arg0 == 2);
    CHECK(current_reservation() == all - 4);
    /* No entry may map a frame given back. */
    CHECK(do_update_va_mapping(DATA_VA, (DATA_MFN << 12) | PTE_P, 0, 0, 0) == EBUSY);

    CHECK(reserve(XENMEM_populate_physmap, pfns, 2) == 2);
    a = extent(0), b = extent(1);
    CHECK(a != b && (a == DATA_MFN || a == DATA_MFN + 1 || a == DATA_MFN + 2 || a == FREE_MFN + 7));
    CHECK(b == DATA_MFN || b == DATA_MFN + 1 || b == DATA_MFN + 2 || b == FREE_MFN + 7);
    CHECK(!given_back(a) && !given_back(b));
    CHECK(frame(M2P_FRAME)[a] == 5 && frame(M2P_FRAME)[b] == 6);
    CHECK(current_reservation() == all - 2);
    CHECK(reserve(XENMEM_increase_reservation, pfns, 2) == 2);
    CHECK(reserve(XENMEM_increase_reservation, pfns, 2) == 0);   /* none left */
    CHECK(current_reservation() == all);
    CHECK(perch_shared.stats.frames_given_back == 4 && perch_shared.stats.frames_taken == 4);
    CHECK(host_env_requests_of[PERCH_REQ_RELEASE_FRAMES] == 1);   /* nothing more to drop */
    CHECK(do_update_va_mapping(DATA_VA, (DATA_MFN << 12) | PTE_P, 0, 0, 0) == 0);
}

/* Only the guest's own pseudo-physical frames are filled, only single
 * frames handled, only the guest's own reservation. */
static void balloon_refuses_bad_calls(void)
{
    const uint64_t out[] = { DATA_MFN }, big[] = { FRAMES };
    struct xen_memory_reservation r = { .extent_start = EXTENTS_VA, .nr_extents = 1,
                                        .extent_order = 1, .domid = DOMID_SELF };

    CHECK(setup(false) == 0);
    CHECK(reserve(XENMEM_decrease_reservation, out, 1) == 1);
    CHECK(reserve(XENMEM_populate_physmap, big, 1) == 0);
    CHECK(given_back(DATA_MFN));
    memcpy(frame(BUF_MFN), &r, sizeof(r));
    CHECK(do_memory_op(XENMEM_populate_physmap, BUF_VA, 0, 0, 0) == EINVAL);
    r.extent_order = 0, r.domid = 0;
    memcpy(frame(BUF_MFN), &r, sizeof(r));
    CHECK(do_memory_op(XENMEM_populate_physmap, BUF_VA, 0, 0, 0) == ESRCH);
    r.domid = DOMID_SELF, r.extent_start = UNMAPPED_VA;
    memcpy(frame(BUF_MFN), &r, sizeof(r));
    CHECK(do_memory_op(XENMEM_populate_physmap, BUF_VA, 0, 0, 0) == 0);
    r.extent_start = 0xffff800000000000ull;   /* the hole */
    memcpy(frame(BUF_MFN), &r, sizeof(r));
    CHECK(do_memory_op(XENMEM_populate_physmap, BUF_VA, 0, 0, 0) == EINVAL);
    CHECK(given_back(DATA_MFN));
}

/* A balloon that gives back what is not the guest's, the same frame
 * twice or a table in use is stopped with one line. */
static void balloon_breaking_the_rules_is_stopped(uint64_t mfn, const char *why)
{
    const uint64_t out[] = { mfn };

    CHECK(HOST_ENV_EXPECT_STOP(reserve(XENMEM_decrease_reservation, out, 1)));
    CHECK(host_env_last_request()->reason == PERCH_REQ_FATAL);
    CHECK_CONTAINS(host_env_last_request()->message, why);
}

static void balloon_rule_breakers(void)
{
    const uint64_t once[] = { DATA_MFN };

    CHECK(setup(false) == 0);
    balloon_breaking_the_rules_is_stopped(PRIVATE, "not the guest's");
    CHECK(setup(false) == 0);
    CHECK(reserve(XENMEM_decrease_reservation, once, 1) == 1);
    balloon_breaking_the_rules_is_stopped(DATA_MFN, "twice");
    CHECK(setup(false) == 0);
    balloon_breaking_the_rules_is_stopped(kernel_l4(), "in use");
    CHECK(setup(false) == 0);
    CHECK(ext1(MMUEXT_PIN_L1_TABLE, FREE_MFN, 0) == 0);
    balloon_breaking_the_rules_is_stopped(FREE_MFN, "in use");
    CHECK(setup(true) == 0);   /* strict: a writable mapping is a use */
    balloon_breaking_the_rules_is_stopped(DATA_MFN, "in use");
}

int main(void)
{
    RUN(l1_entry_gets_user);
    RUN(upper_entries_get_user_and_l4_accessed);
    RUN(unknown_table_entry);
    RUN(refused_flags);
    RUN(refused_frames);
    RUN(refused_targets);
    RUN(l4_hole_slots_refused);
    RUN(pinned_l4_hole_slots_refused);
    RUN(not_present_values_stored_as_they_are);
    RUN(preserve_ad_keeps_the_old_accessed_and_dirty_bits);
    RUN(machphys_update);
    RUN(done_count_and_first_failure);
    RUN(bad_request_pointer);
    RUN(foreign_domains_refused);
    RUN(preempted_count);
    RUN(upper_level_changes_flush);
    RUN(flush_requests_for_this_vcpu_queue_one_tlb_flush);
    RUN(new_baseptr);
    RUN(new_baseptr_refuses_a_bad_l4);
    RUN(new_user_baseptr);
    RUN(views_follow_use);
    RUN(pin_and_unpin);
    RUN(pin_adjusts_the_tree);
    RUN(pin_refuses_bad_tables);
    RUN(without_frame_table);
    RUN(set_ldt_accepts_an_aligned_table_of_at_most_8192_entries);
    RUN(clear_and_copy_page);
    RUN(unknown_commands);
    RUN(ext_batch_done_count);
    RUN(update_va_mapping_mapped);
    RUN(update_va_mapping_vcpu_mask);
    RUN(update_va_mapping_refused);
    RUN(strict_boot_types);
    RUN(strict_writable_and_tables_exclude);
    RUN(strict_type_mismatch);
    RUN(strict_base_pointer_references);
    RUN(strict_plain_store);
    RUN(strict_hook_validates_the_table);
    RUN(strict_self_reference);
    RUN(balloon_gives_back_and_takes_again);
    RUN(balloon_refuses_bad_calls);
    RUN(balloon_rule_breakers);
    host_env_reset(0);
    mm_frames = NULL;
    return check_exit_status();
}
