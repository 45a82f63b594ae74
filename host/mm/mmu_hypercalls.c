/*
 * The PV MMU hypercalls: mmu_update (1), update_va_mapping (14) and
 * mmuext_op (26). They decode the guest's requests; the rules of entries,
 * tables and page types are in mm.c. As in Xen, a batch stops at its first
 * failing request and reports how many went through.
 *
 * TLB flushes are never done here: each sets PENDING_TLB_FLUSH, and the
 * next ring-0 visit (forced before the guest runs again) reloads CR3 once,
 * however many requests asked for it.
 */
#include "mm.h"

#include "../core/env.h"
#include "tlb.h"

static long flush(void)
{
    tlb_flush_requested();
    return 0;
}

/* A flush on every vCPU. */
static long flush_all(void)
{
    tlb_flush_vcpus(~0ull);
    return 0;
}

/* A flush for the vCPUs in the guest's bitmap at mask_va: its first word
 * holds all of them (PERCH_MAX_VCPUS is 64). An unreadable bitmap is
 * `err` (Xen: -EINVAL in mmuext_op, -EFAULT in update_va_mapping). */
static long flush_vcpus(uint64_t mask_va, long err)
{
    uint64_t mask;

    if (copy_from_guest(&mask, mask_va, sizeof(mask)))
        return err;
    tlb_flush_vcpus(mask);
    return 0;
}

/* ---- Batches ---------------------------------------------------------------- */

/* The count is an unsigned int. MMU_UPDATE_PREEMPTED marks one of Xen's own
 * continuations, which goes on from the done count the guest holds. */
static uint32_t batch_start(uint64_t count, uint64_t done_va, uint32_t *done)
{
    uint32_t n = (uint32_t)count;

    *done = 0;
    if ((n & MMU_UPDATE_PREEMPTED) && done_va) {
        if (copy_from_guest(done, done_va, sizeof(*done)))
            *done = 0;
    }
    return n & ~MMU_UPDATE_PREEMPTED;
}

/* The done count is an unsigned int too; Xen ignores a failure to write it. */
static void batch_end(uint64_t done_va, uint32_t done)
{
    if (done_va)
        (void)copy_to_guest(done_va, &done, sizeof(done));
}

/* ---- mmu_update ---------------------------------------------------------------- */

/* The M2P entry of one of the guest's frames (Linux: when it remaps memory
 * around e820 holes; the balloon's frames). The value is not checked, as
 * in Xen. */
long mm_set_m2p(uint64_t mfn, uint64_t pfn)
{
    uint64_t limit = perch_shared.boot.machine_frames * XEN_PAGE_SIZE;

    if (!guest_owns_frame(mfn) || mm_m2p_maddr >= limit || (mm_m2p_maddr & 7) ||
        mfn >= (limit - mm_m2p_maddr) / 8)
        return -XEN_EINVAL;
    *(uint64_t *)(env_alias_base() + mm_m2p_maddr + mfn * 8) = pfn;
    return 0;
}

/*
 * With foreigndom DOMID_IO a domU asks to map I/O memory it has no right
 * to: Xen refuses a present entry naming its own RAM with -EBUSY (the
 * frame's owner is not dom_io) and anything else with -EPERM.
 */
static long io_owner_check(uint64_t val)
{
    if (!(val & PTE_P))
        return 0;
    return guest_owns_frame((val & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT) ? -XEN_EBUSY
                                                                   : -XEN_EPERM;
}

/* The low 3 bits of ptr are the command (a PTE is 8-byte aligned). */
static long mmu_update_one(const struct mmu_update *req, bool io_owner)
{
    unsigned cmd = req->ptr & 7;
    uint64_t maddr = req->ptr & ~7ull, mfn = maddr >> XEN_PAGE_SHIFT;
    long rc;

    if (cmd == MMU_MACHPHYS_UPDATE)
        return mm_set_m2p(mfn, req->val);
    /* NORMAL, PRESERVE_AD, and NO_TRANSLATE (NORMAL for a PV guest). */
    if (cmd > MMU_PT_UPDATE_NO_TRANSLATE)
        return -XEN_ENOSYS;
    if (!guest_owns_frame(mfn))
        return -XEN_EINVAL;
    if (io_owner && (rc = io_owner_check(req->val)))
        return rc;
    rc = mm_write_entry(maddr, req->val, mm_table_level(mfn),
                        cmd == MMU_PT_UPDATE_PRESERVE_AD);
    if (!rc)
        perch_shared.stats.pt_updates++;
    return rc;
}

/*
 * foreigndom: the frames' owner in bits 0-15 and (plus one) the tables'
 * owner in bits 16-31. There is no other domain: DOMID_SELF, or DOMID_IO
 * (whose mappings each request then refuses), else -ESRCH.
 */
long do_mmu_update(uint64_t reqs, uint64_t count, uint64_t done_va,
                   uint64_t foreigndom, uint64_t a5)
{
    uint32_t done, n = batch_start(count, done_va, &done), i = 0;
    bool io_owner = (uint32_t)foreigndom == DOMID_IO;
    long rc = (uint32_t)foreigndom == DOMID_SELF || io_owner ? 0 : -XEN_ESRCH;

    (void)a5;
    /* tour fault.6: the kernel's fix for the fault arrives here, one mmu_update per PTE */
    for (; !rc && i < n; i++) {
        struct mmu_update req;

        if (copy_from_guest(&req, reqs + (uint64_t)i * sizeof(req), sizeof(req)))
            rc = -XEN_EFAULT;
        else
            rc = mmu_update_one(&req, io_owner);
        if (rc)
            break;
    }
    batch_end(done_va, done + i);
    return rc;
}

/* ---- update_va_mapping ------------------------------------------------------------ */

/* UVMF_*: no flush, a full one, or one page (here: full); for this vCPU,
 * all of them, or those in a bitmap the rest of flags points to. */
static long uvmf_flush(uint64_t flags)
{
    uint64_t type = flags & UVMF_FLUSHTYPE_MASK, mask = flags & ~UVMF_FLUSHTYPE_MASK;

    if (type != UVMF_TLB_FLUSH && type != UVMF_INVLPG)
        return 0;
    if (mask == UVMF_LOCAL)
        return flush();
    if (mask == UVMF_ALL)
        return flush_all();
    return flush_vcpus(mask, -XEN_EFAULT);
}

/* The L1 entry that maps va in the current guest-kernel tables: -EINVAL if
 * there is none (a table missing, va in the hole), or (strict) if the table
 * holding it is not typed L1. The flush comes only after a success. */
long do_update_va_mapping(uint64_t va, uint64_t val, uint64_t flags,
                          uint64_t a4, uint64_t a5)
{
    uint64_t pte = guest_l1e_maddr(va, PTE_P);
    long rc;

    (void)a4, (void)a5;
    if (pte == GUEST_NO_ENTRY || !guest_owns_frame(pte >> XEN_PAGE_SHIFT))
        return -XEN_EINVAL;
    if (mm_strict_active() && mm_table_level(pte >> XEN_PAGE_SHIFT) != MM_L1)
        return -XEN_EINVAL;
    rc = mm_write_entry(pte, val, MM_L1, false);
    if (rc)
        return rc;
    perch_shared.stats.pt_updates++;
    return uvmf_flush(flags);
}

/* ---- mmuext_op ----------------------------------------------------------------------- */

/*
 * Linux loads an empty LDT on every CPU's start and on each switch to an mm
 * without one (arg1 0, nr_ents 0). perch has no LDT to give a guest yet, so
 * only the empty one is accepted; Xen would also take up to 8192 entries
 * at a page-aligned guest address (modify_ldt() users: Wine, old threads).
 */
static long set_ldt(uint64_t va, uint32_t ents)
{
    (void)va;
    return ents ? -XEN_EINVAL : 0;
}

/* Frames the Host writes on the guest's behalf: the guest's own, and
 * (strict) not a page table. */
static long clear_page(uint64_t mfn)
{
    if (!guest_owns_frame(mfn) || mm_get_writable(mfn))
        return -XEN_EINVAL;
    __builtin_memset(env_alias_base() + mfn * XEN_PAGE_SIZE, 0, XEN_PAGE_SIZE);
    mm_put_writable(mfn);
    return 0;
}

static long copy_page(uint64_t dst, uint64_t src)
{
    uint8_t *alias = env_alias_base();

    if (!guest_owns_frame(src) || !guest_owns_frame(dst) || mm_get_writable(dst))
        return -XEN_EINVAL;
    if (dst != src)
        __builtin_memcpy(alias + dst * XEN_PAGE_SIZE, alias + src * XEN_PAGE_SIZE,
                         XEN_PAGE_SIZE);
    mm_put_writable(dst);
    return 0;
}

static long ext_op(const struct mmuext_op *op)
{
    switch (op->cmd) {
    case MMUEXT_PIN_L1_TABLE:
    case MMUEXT_PIN_L2_TABLE:
    case MMUEXT_PIN_L3_TABLE:
    case MMUEXT_PIN_L4_TABLE:
        return mm_pin(op->arg1, MM_L1 + (int)(op->cmd - MMUEXT_PIN_L1_TABLE));
    case MMUEXT_UNPIN_TABLE:
        return mm_unpin(op->arg1);
    case MMUEXT_NEW_BASEPTR:
        return mm_new_baseptr(op->arg1);
    case MMUEXT_NEW_USER_BASEPTR:
        return mm_new_user_baseptr(op->arg1);
    case MMUEXT_TLB_FLUSH_LOCAL:
    case MMUEXT_INVLPG_LOCAL:
        return flush();
    case MMUEXT_TLB_FLUSH_ALL:
    case MMUEXT_INVLPG_ALL:
        return flush_all();
    case MMUEXT_TLB_FLUSH_MULTI:
    case MMUEXT_INVLPG_MULTI:
        return flush_vcpus(op->arg2, -XEN_EINVAL);
    case MMUEXT_FLUSH_CACHE:
    case MMUEXT_FLUSH_CACHE_GLOBAL:
        return 0;   /* the caches are coherent; Xen says -EACCES to a domU */
    case MMUEXT_SET_LDT:
        return set_ldt(op->arg1, (uint32_t)op->arg2);
    case MMUEXT_CLEAR_PAGE:
        return clear_page(op->arg1);
    case MMUEXT_COPY_PAGE:
        return copy_page(op->arg1, op->arg2);
    case MMUEXT_MARK_SUPER:
    case MMUEXT_UNMARK_SUPER:
        return -XEN_EOPNOTSUPP;
    default:
        return -XEN_ENOSYS;
    }
}

/* foreigndom is a domid_t here: DOMID_IO is a domain a domU has no
 * privilege over (-EPERM), any other but DOMID_SELF does not exist
 * (-ESRCH); both before any request and without a done count (as Xen). */
long do_mmuext_op(uint64_t ops, uint64_t count, uint64_t done_va,
                  uint64_t foreigndom, uint64_t a5)
{
    uint32_t done, n, i;
    long rc = 0;

    (void)a5;
    if ((uint16_t)foreigndom == DOMID_IO)
        return -XEN_EPERM;
    if ((uint16_t)foreigndom != DOMID_SELF)
        return -XEN_ESRCH;
    n = batch_start(count, done_va, &done);
    for (i = 0; i < n; i++) {
        struct mmuext_op op;

        if (copy_from_guest(&op, ops + (uint64_t)i * sizeof(op), sizeof(op)))
            rc = -XEN_EFAULT;
        else
            rc = ext_op(&op);
        if (rc)
            break;
    }
    batch_end(done_va, done + i);
    return rc;
}
