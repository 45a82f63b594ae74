/*
 * The rules of guest page-table entries, checking whole tables, and the page
 * types of strict mode (see mm.h). The facts are Xen's (arch/x86/mm.c,
 * pv/mm.h, 4.17) as they apply to a 64-bit PV domU without I/O resources.
 */
#include "mm.h"

#include "../core/env.h"
#include "../core/guest_mode.h"
#include "tlb.h"

bool mm_strict;
uint64_t mm_shared_info_mfn = INVALID_MFN;
uint64_t mm_m2p_maddr = INVALID_MFN;
struct mm_frame_info *mm_frames;
bool (*mm_shared_frame_hook)(uint64_t mfn);
void (*mm_writable_frame_hook)(uint64_t mfn);

#define ENTRIES    512u
#define HOLE_FIRST 256u   /* Xen's L4 slots 256-271 are the hypervisor's */
#define HOLE_LAST  271u

/* Bit 62 of an L1 entry is Xen's grant-mapping marker, never the guest's. */
#define PTE_GNTTAB (1ull << 62)

static long validate_table(uint64_t mfn, int level);
static void release_entries(uint64_t mfn, int level, unsigned n);

/* ---- Frames and entries ------------------------------------------------------ */

bool mm_strict_active(void)
{
    return mm_strict && mm_frames;
}

static struct mm_frame_info *frame_info(uint64_t mfn)
{
    return mm_frames && mfn < perch_shared.boot.machine_frames ? &mm_frames[mfn] : NULL;
}

static uint64_t entry_mfn(uint64_t e)
{
    return (e & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT;
}

static uint64_t entry_maddr(uint64_t table_mfn, unsigned i)
{
    return table_mfn * XEN_PAGE_SIZE + i * 8ull;
}

/* One 8-byte access, as guest_read_entry()'s: the guest is stopped, but
 * the MMU walks these. */
static void store_entry(uint64_t maddr, uint64_t val)
{
    __atomic_store_n((uint64_t *)(env_alias_base() + maddr), val, __ATOMIC_RELAXED);
}

static uint64_t base_of(uint64_t cr3)
{
    return cr3 ? (cr3 & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT : MM_NO_ENTRY;
}

/* The current vCPU's base pointers (a vCPU that runs always has a kernel one). */
static uint64_t kernel_base(void)
{
    return base_of(current->kernel_cr3);
}

static uint64_t user_base(void)
{
    return base_of(current->user_cr3);
}

/* Is mfn some vCPU's kernel base pointer (with_user: or user one)? */
static bool any_vcpu_base(uint64_t mfn, bool with_user)
{
    for (unsigned i = 0; i < host_nr_vcpus; i++) {
        const struct vcpu *v = vcpu_of(i);

        if (mfn == base_of(v->kernel_cr3) || (with_user && mfn == base_of(v->user_cr3)))
            return true;
    }
    return false;
}

static bool is_base(uint64_t mfn)
{
    return any_vcpu_base(mfn, true);
}

/* An L4 slot the guest may fill; perch's and the rest of Xen's are not. */
static bool guest_slot(unsigned i, int level)
{
    return level != MM_L4 || i < HOLE_FIRST || i > HOLE_LAST;
}

/*
 * Flags a present entry may not carry. Xen lets a domain without I/O
 * resources set P, RW, US, A, D, the available bits 9-11 and 52-62, and NX;
 * an L1 entry may be global too, but not carry bit 62. Bit 7 (PS above L1,
 * PAT in an L1), PWT and PCD are refused at every level: PV has no
 * superpages, and Xen allows cache attributes only with I/O resources. An
 * entry of unknown level (MM_ANY) gets what every level refuses.
 */
static uint64_t refused_flags(int level)
{
    const uint64_t upper = PTE_PWT | PTE_PCD | PTE_PS | PTE_G;

    if (level == MM_L1)
        return (upper & ~PTE_G) | PTE_GNTTAB;
    if (level == MM_ANY)
        return upper & ~PTE_G;
    return upper;
}

/* The perch-private frames Xen would have shared with the guest, which an
 * L1 entry may map (writable too): shared_info, and the grant table's
 * frames the guest has been given (mm_shared_frame_hook). */
static bool shared_with_guest(uint64_t mfn)
{
    return mfn < perch_shared.boot.machine_frames &&
           (mfn == mm_shared_info_mfn || (mm_shared_frame_hook && mm_shared_frame_hook(mfn)));
}

/*
 * The frame a present entry names must be the guest's (and not one its
 * balloon gave back); an L1 entry may also map a frame shared with it. Xen's errors: in an L1 entry, a frame of another owner
 * is -EBUSY, one outside RAM is MMIO the guest may not map, -EPERM, and the
 * all-ones frame number -EINVAL; a table that is not the guest's is
 * -EINVAL. MM_ANY gets the L1 answers.
 */
static long check_target(uint64_t mfn, int level)
{
    uint64_t frames = perch_shared.boot.machine_frames;
    const struct mm_frame_info *f = frame_info(mfn);

    if (guest_owns_frame(mfn) && !(f && (f->flags & MM_FRAME_GIVEN_BACK)))
        return 0;
    if (level > MM_L1)
        return -XEN_EINVAL;
    if (shared_with_guest(mfn))
        return 0;
    if (mfn == PTE_ADDR_MASK >> XEN_PAGE_SHIFT)
        return -XEN_EINVAL;   /* the all-ones frame: INVALID_MFN, never MMIO */
    return mfn < frames ? -XEN_EBUSY : -XEN_EPERM;
}

static long check_entry(uint64_t e, int level)
{
    if (e & refused_flags(level))
        return -XEN_EINVAL;
    return check_target(entry_mfn(e), level);
}

/*
 * What Xen's adjust_guest_l*e() add: the guest kernel runs at CPL3, so every
 * present entry is a user entry; an L4 entry is also marked accessed. (Xen
 * further marks L1 entries that lacked USER with bit 52 and makes user pages
 * global, for its own TLB handling; perch needs neither and leaves the
 * guest's bits alone.)
 */
static uint64_t adjust(uint64_t e, int level)
{
    if (!(e & PTE_P))
        return e;
    e |= PTE_US;
    if (level == MM_L4)
        e |= PTE_A;
    return e;
}

/* ---- Strict mode: page types ---------------------------------------------------- */

static bool is_table_type(unsigned type)
{
    return type >= MM_TYPE_L1 && type <= MM_TYPE_L4;
}

/*
 * Take a reference of `type` on frame mfn (Xen's get_page_type). A frame
 * with no references may change type, and becomes a table only once all its
 * entries pass (taking their own references); otherwise the type must match.
 */
static long get_type(uint64_t mfn, unsigned type)
{
    struct mm_frame_info *f = frame_info(mfn);
    unsigned old;
    long rc;

    if (!f)
        return -XEN_EINVAL;
    if (f->count) {
        if (f->type != type || f->count == UINT32_MAX)
            return -XEN_EINVAL;
        f->count++;
        return 0;
    }
    old = f->type;
    /* Typed while its entries are checked: an entry that leads back here
     * at another level, or maps it writable, meets the new type. */
    f->type = (uint8_t)type;
    f->count = 1;
    if (!is_table_type(type))
        return 0;
    rc = validate_table(mfn, type);
    if (rc) {
        f->type = (uint8_t)old;
        f->count = 0;
        return rc;
    }
    /* A writable mapping may linger in the TLB: flush before the guest
     * runs again, as Xen does on a type change. */
    if (old == MM_TYPE_WRITABLE)
        tlb_flush_everywhere();
    return 0;
}

/*
 * Drop a reference (Xen's put_page_type); a table's last one drops what its
 * entries hold. Never below 0: a guest that wrote a table behind perch's
 * back (through the alias, which its kernel can reach) only unbalances its
 * own counts.
 */
static void put_type(uint64_t mfn)
{
    struct mm_frame_info *f = frame_info(mfn);

    if (!f || !f->count)
        return;
    if (--f->count == 0 && is_table_type(f->type))
        release_entries(mfn, f->type, ENTRIES);
}

/* What a present, checked entry of a typed table holds: the table below
 * holds its level's type; a writable L1 mapping holds the writable type,
 * which a table cannot give (-EBUSY, as Xen). */
static long take_ref(uint64_t e, int level)
{
    if (level > MM_L1)
        return get_type(entry_mfn(e), (unsigned)level - 1);
    if (!(e & PTE_RW))
        return 0;
    return get_type(entry_mfn(e), MM_TYPE_WRITABLE) ? -XEN_EBUSY : 0;
}

static void drop_ref(uint64_t e, int level)
{
    if (!(e & PTE_P) || (level == MM_L1 && !(e & PTE_RW)))
        return;
    put_type(entry_mfn(e));
}

/* Drop what the first n entries of a typed table hold. */
static void release_entries(uint64_t mfn, int level, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (guest_slot(i, level))
            drop_ref(guest_read_entry(entry_maddr(mfn, i)), level);
}

/* ---- Default mode: tables checked once ----------------------------------------- */

/*
 * A frame mapped writable is no live table (Linux makes a freed table
 * writable before it reuses the page), so a mark left from its life as a
 * table goes: it would have later writes to the page checked at the wrong
 * level. Pinned frames keep theirs.
 */
static void forget_table_mark(uint64_t e)
{
    struct mm_frame_info *f = (e & PTE_RW) ? frame_info(entry_mfn(e)) : NULL;

    if (f && !(f->flags & MM_FRAME_PINNED))
        f->type = MM_TYPE_NONE;
}

/* The table an upper entry names, checked unless the hint says it was
 * already, at that level. Without mm_frames every call checks. */
static long check_child(uint64_t e, int level)
{
    uint64_t child = entry_mfn(e);
    struct mm_frame_info *f;
    long rc;

    if (level <= MM_L1) {
        forget_table_mark(e);
        return 0;
    }
    f = frame_info(child);
    if (f && f->type == level - 1)
        return 0;
    rc = validate_table(child, level - 1);
    if (!rc && f)
        f->type = (uint8_t)(level - 1);
    return rc;
}

/* ---- Tables ------------------------------------------------------------------------- */

/*
 * Check and adjust every present entry of the table at mfn, and take what
 * the entries need (strict: their references; default: the tables below
 * checked). On failure nothing stays taken. In an L4, the guest's values in
 * Xen's slots are cleared as Xen overwrites them; perch's own (257, 258)
 * are left to hole_fill_l4().
 */
static long validate_table(uint64_t mfn, int level)
{
    for (unsigned i = 0; i < ENTRIES; i++) {
        uint64_t maddr = entry_maddr(mfn, i), e = guest_read_entry(maddr);
        long rc;

        if (!guest_slot(i, level)) {
            if (i != PERCH_SLOT_FIRST && i != PERCH_ALIAS_SLOT && e)
                store_entry(maddr, 0);
            continue;
        }
        if (!(e & PTE_P))
            continue;
        rc = check_entry(e, level);
        if (!rc)
            rc = mm_strict_active() ? take_ref(e, level) : check_child(e, level);
        if (rc) {
            if (mm_strict_active())
                release_entries(mfn, level, i);
            return rc;
        }
        /* Stores to a live table are costly under a shadow MMU: only
         * when the entry changes. */
        if (adjust(e, level) != e)
            store_entry(maddr, adjust(e, level));
    }
    return 0;
}

int mm_table_level(uint64_t mfn)
{
    struct mm_frame_info *f = frame_info(mfn);

    if (mm_strict_active())
        return f && f->count && is_table_type(f->type) ? f->type : MM_PLAIN;
    if (is_base(mfn))
        return MM_L4;
    return f && is_table_type(f->type) ? f->type : MM_ANY;
}

/*
 * One entry, as Xen's mod_l*_entry(): perch's slots of an L4 are refused; a
 * present value is checked and adjusted and (strict) takes its references
 * before the store, the old value's are dropped after it. A plain store in
 * strict mode is Xen's write to a frame that is no page table: unchecked.
 * Xen flushes after changing an upper-level entry; perch only when one
 * that was present changes (a non-present one is never cached).
 */
long mm_write_entry(uint64_t maddr, uint64_t val, int level, bool preserve_ad)
{
    /* tour multicall.4: an mmu_update entry checked as Xen would, then stored through the alias */
    uint64_t old = guest_read_entry(maddr), new = val;
    long rc;

    if (level == MM_PLAIN) {
        store_entry(maddr, val);
        return 0;
    }
    if (!guest_slot((maddr & 0xfff) / 8, level))
        return -XEN_EINVAL;
    if (new & PTE_P) {
        rc = check_entry(new, level);
        if (!rc)
            rc = mm_strict_active() ? take_ref(new, level) : check_child(new, level);
        if (rc)
            return rc;
        new = adjust(new, level);
        if ((new & PTE_RW) && mm_writable_frame_hook)
            mm_writable_frame_hook((new & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT);
    }
    if (preserve_ad)
        new |= old & (PTE_A | PTE_D);
    if (new != old)
        store_entry(maddr, new);
    if (mm_strict_active())
        drop_ref(old, level);
    tlb_note_change(old, new, level);
    return 0;
}

/* ---- Pins and base pointers ------------------------------------------------------ */

/* The view perch gives an L4: the kernel's only while it is the kernel's
 * base pointer (a user view never maps the Host or the alias). */
static void fill_hole(uint64_t mfn)
{
    hole_fill_l4(mfn * XEN_PAGE_SIZE, !any_vcpu_base(mfn, false));
}

long mm_pin(uint64_t mfn, int level)
{
    struct mm_frame_info *f = frame_info(mfn);
    long rc;

    if (!guest_owns_frame(mfn))
        return -XEN_EINVAL;
    if (mm_strict_active()) {
        rc = get_type(mfn, (unsigned)level);
        if (rc)
            return rc;
        if (f->flags & MM_FRAME_PINNED) {
            put_type(mfn);
            return -XEN_EINVAL;
        }
    } else {
        if (f && (f->flags & MM_FRAME_PINNED))
            return -XEN_EINVAL;
        /* The table itself always: the guest filled it with plain stores. */
        rc = validate_table(mfn, level);
        if (rc)
            return rc;
        if (f)
            f->type = (uint8_t)level;
    }
    if (f)
        f->flags |= MM_FRAME_PINNED;
    if (level == MM_L4)
        fill_hole(mfn);
    return 0;
}

bool mm_frame_in_use(uint64_t mfn)
{
    const struct mm_frame_info *f = frame_info(mfn);

    if (mm_strict_active())
        return f->count != 0;
    return (f && (f->flags & MM_FRAME_PINNED)) || is_base(mfn);
}

/* Unpinning a table in use is allowed, as in Xen (Linux unpins the
 * builder's L4 while it is still CR3): a base pointer holds its own
 * reference. Without mm_frames pins are not tracked. */
long mm_unpin(uint64_t mfn)
{
    struct mm_frame_info *f = frame_info(mfn);

    if (!guest_owns_frame(mfn))
        return -XEN_EINVAL;
    if (!f)
        return 0;
    if (!(f->flags & MM_FRAME_PINNED))
        return -XEN_EINVAL;
    f->flags &= (uint8_t)~MM_FRAME_PINNED;
    if (mm_strict_active())
        put_type(mfn);
    else if (!is_base(mfn))
        f->type = MM_TYPE_NONE;   /* no longer known to be a table */
    return 0;
}

/* A frame becomes a base pointer: strict, an L4 reference; default, checked
 * as an L4 unless already known to be one (without mm_frames, not checked:
 * it would cost a whole tree on every address-space switch). */
static long take_base(uint64_t mfn)
{
    struct mm_frame_info *f = frame_info(mfn);
    long rc;

    if (mm_strict_active())
        return get_type(mfn, MM_TYPE_L4);
    if (!f || f->type == MM_TYPE_L4)
        return 0;
    rc = validate_table(mfn, MM_L4);
    if (!rc)
        f->type = MM_TYPE_L4;
    return rc;
}

/* A frame has stopped being a base pointer (the vCPU no longer names it). */
static void drop_base(uint64_t mfn)
{
    struct mm_frame_info *f = frame_info(mfn);

    if (mm_strict_active())
        put_type(mfn);
    else if (f && !(f->flags & MM_FRAME_PINNED) && !is_base(mfn))
        f->type = MM_TYPE_NONE;
}

/* One L4 never serves both views: the user view must not see the kernel's
 * slot 258 (the alias of all memory). */
long mm_new_baseptr(uint64_t mfn)
{
    uint64_t old = kernel_base();
    long rc;

    if (!guest_owns_frame(mfn) || mfn == user_base())
        return -XEN_EINVAL;
    if (mfn != old) {
        rc = take_base(mfn);
        if (rc)
            return rc;
    }
    guest_set_kernel_cr3(mfn * XEN_PAGE_SIZE);
    if (mfn != old)
        drop_base(old);
    hole_fill_l4(mfn * XEN_PAGE_SIZE, false);
    current->pending |= PENDING_TLB_FLUSH;
    return 0;
}

/* 0 means none (a kernel thread). Loaded on the next switch to guest user,
 * which reloads CR3 anyway: no flush. */
long mm_new_user_baseptr(uint64_t mfn)
{
    uint64_t old = user_base();
    long rc;

    if (mfn == (old == MM_NO_ENTRY ? 0 : old))
        return 0;
    if (mfn) {
        if (!guest_owns_frame(mfn) || mfn == kernel_base())
            return -XEN_EINVAL;
        rc = take_base(mfn);
        if (rc)
            return rc;
        hole_fill_l4(mfn * XEN_PAGE_SIZE, true);
    }
    current->user_cr3 = mfn * XEN_PAGE_SIZE;
    if (old != MM_NO_ENTRY)
        drop_base(old);
    return 0;
}

long mm_start_baseptr(struct vcpu *v, uint64_t mfn)
{
    long rc;

    if (!guest_owns_frame(mfn) || v->kernel_cr3 ||
        any_vcpu_base(mfn, true) != any_vcpu_base(mfn, false))
        return -XEN_EINVAL;
    rc = take_base(mfn);
    if (rc)
        return rc;
    v->kernel_cr3 = mfn * XEN_PAGE_SIZE;
    hole_fill_l4(mfn * XEN_PAGE_SIZE, false);
    return 0;
}

long mm_get_writable(uint64_t mfn)
{
    return mm_strict_active() ? get_type(mfn, MM_TYPE_WRITABLE) : 0;
}

void mm_put_writable(uint64_t mfn)
{
    if (mm_strict_active())
        put_type(mfn);
}

long mm_boot(void)
{
    uint64_t mfn = kernel_base();
    long rc;

    if (mm_strict && !mm_frames)
        return -XEN_EINVAL;
    rc = mm_pin(mfn, MM_L4);
    if (rc || !mm_strict_active())
        return rc;
    return get_type(mfn, MM_TYPE_L4);   /* the base pointer's own */
}
