/*
 * The table of trapping store sites (perch_shared.stats.patch_sites, which
 * --stats prints) and the patches made of them: the rules are in
 * insn_patch.h. A patch's `syscall` arrives in host_hypercall, which asks
 * insn_patch_entry() first; active patches are found there by return
 * address through a small open-addressed index.
 */
#include "insn_patch.h"

#include "../core/env.h"
#include "../core/host_lock.h"
#include "../x86/insn.h"
#include "../x86/insn_liveness.h"
#include "../mm/mm.h"
#include "../core/vcpu.h"

#define INDEX_SLOTS 128u   /* a power of two, over twice PERCH_PATCH_SITES */

static const uint8_t call_saving_both[5] = { 0x51, 0x41, 0x53, 0x0f, 0x05 };
static const uint8_t call_saving_rcx[3] = { 0x51, 0x0f, 0x05 };
#define CALL_REL32 0xe8

/* Host-only facts of each site: the machine address of its first byte. */
static uint64_t site_maddr[PERCH_PATCH_SITES];
/* Return address -> site number + 1 (0: empty), for active patches. */
static uint64_t index_key[INDEX_SLOTS];
static uint8_t index_site[INDEX_SLOTS];
static unsigned nr_active;

/* Sites in the table (the count is in memory the guest kernel can reach). */
static unsigned nr_sites(void)
{
    uint32_t n = perch_shared.stats.nr_patch_sites;

    return n < PERCH_PATCH_SITES ? n : PERCH_PATCH_SITES;
}

static unsigned slot_of(uint64_t ret)
{
    return (unsigned)((ret ^ (ret >> 7)) & (INDEX_SLOTS - 1));
}

static void index_rebuild(void)
{
    __builtin_memset(index_site, 0, sizeof(index_site));
    nr_active = 0;
    for (unsigned i = 0; i < nr_sites(); i++) {
        const struct perch_patch_site *s = &perch_shared.stats.patch_sites[i];
        uint64_t ret = s->rip + s->patch_len;
        unsigned slot;

        if (s->state != PERCH_PATCH_ACTIVE)
            continue;
        for (slot = slot_of(ret); index_site[slot]; slot = (slot + 1) & (INDEX_SLOTS - 1))
            ;
        index_key[slot] = ret;
        index_site[slot] = (uint8_t)(i + 1);
        nr_active++;
    }
}

/* The active patch whose call returns to ret, if any. The table is in
 * memory the guest kernel can reach, so the index's answer is re-checked. */
static struct perch_patch_site *active_site(uint64_t ret)
{
    if (!nr_active)
        return 0;
    for (unsigned slot = slot_of(ret); index_site[slot]; slot = (slot + 1) & (INDEX_SLOTS - 1)) {
        struct perch_patch_site *s = &perch_shared.stats.patch_sites[index_site[slot] - 1];

        if (index_key[slot] == ret)
            return s->state == PERCH_PATCH_ACTIVE && s->rip + s->patch_len == ret ? s : 0;
    }
    return 0;
}

/* The site at rip in the table, or 0. */
static struct perch_patch_site *site_listed(uint64_t rip)
{
    for (unsigned i = 0; i < nr_sites(); i++)
        if (perch_shared.stats.patch_sites[i].rip == rip)
            return &perch_shared.stats.patch_sites[i];
    return 0;
}

/* The site at rip, added if new; 0 when the table is full. */
static struct perch_patch_site *site_at(uint64_t rip, unsigned len)
{
    unsigned n = nr_sites();
    struct perch_patch_site *s = site_listed(rip);

    if (s)
        return s;
    if (n >= PERCH_PATCH_SITES)
        return 0;
    if (!n)
        index_rebuild();               /* a table started afresh */
    s = &perch_shared.stats.patch_sites[n];
    __builtin_memset(s, 0, sizeof(*s));
    s->rip = rip;
    s->len = (uint8_t)len;
    s->state = PERCH_PATCH_WAITING;
    perch_shared.stats.nr_patch_sites = n + 1;
    return s;
}

static uint8_t *text_bytes(const struct perch_patch_site *s)
{
    return (uint8_t *)env_alias_base() + site_maddr[s - perch_shared.stats.patch_sites];
}

#define INT3 0xcc

/*
 * Replace one instruction's bytes. Other vCPUs may be running that text,
 * so as Linux's text_poke_bp: an int3 over the first byte, every other
 * vCPU serialized, the rest of the bytes, serialized again, then the first
 * byte, and once more. A vCPU that meets the int3 meanwhile waits for the
 * Host lock and is sent back to the instruction (insn_patch_stray_int3).
 */
static void rewrite_text(uint8_t *text, const uint8_t *bytes, unsigned len)
{
    if (!len)
        return;
    if (host_nr_vcpus == 1) {
        __builtin_memcpy(text, bytes, len);
        return;
    }
    __atomic_store_n(text, INT3, __ATOMIC_SEQ_CST);
    host_sync_others();
    __builtin_memcpy(text + 1, bytes + 1, len - 1);
    host_sync_others();
    __atomic_store_n(text, bytes[0], __ATOMIC_SEQ_CST);
    host_sync_others();
}

/* Put the guest's own bytes back (at most an instruction's, whatever the
 * table in the guest's reach says); the site's state becomes `why`. */
static void undo(struct perch_patch_site *s, enum perch_patch_state why)
{
    rewrite_text(text_bytes(s), s->original, s->len < INSN_MAX_BYTES ? s->len : INSN_MAX_BYTES);
    s->state = (uint8_t)why;
    index_rebuild();
}

/* Its page is being mapped writable: the guest's bytes back, and the site
 * waits to be patched again once the page is read-only at a later trap
 * (Linux's text_poke maps a page writable for each change and unmaps it
 * after), unless that keeps happening. */
static void undo_for_write(struct perch_patch_site *s)
{
    if (++s->rewrites >= PERCH_PATCH_MAX_REWRITES) {
        undo(s, PERCH_PATCH_UNDONE_WRITE);
        return;
    }
    undo(s, PERCH_PATCH_WAITING);
}

/* Whether the site may ever be patched, by where it is; ACTIVE: it may. */
static enum perch_patch_state placement(const struct perch_patch_site *s)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;

    if (optimizations_off & PERCH_OPT_INSN_PATCHING)
        return PERCH_PATCH_OFF;
    if (s->rip < b->kernel_text_start || s->rip + s->len > b->kernel_text_end)
        return PERCH_PATCH_NOT_TEXT;
    if ((s->rip & 0xfff) + s->len > 4096)
        return PERCH_PATCH_CROSSES_PAGE;
    return PERCH_PATCH_ACTIVE;
}

/* Which patch fits the instruction's length: its length, or 0 when none
 * does (the r11 scan, the dearest check, runs once per site). */
static unsigned patch_length(uint64_t rip, unsigned len)
{
    if (len >= 5)
        return 5;
    return len >= 3 && insn_r11_dead_after(rip + len) ? 3 : 0;
}

/* Five bytes can be `call xen_hypercall_pv` once perch has made that a
 * jump to the Host (direct_calls.h): the call enters the Host with no trap,
 * every register kept. Returns whether it was written into bytes. */
static bool call_bytes(const struct perch_patch_site *s, uint8_t *bytes)
{
    int64_t rel = (int64_t)(perch_shared.boot.hypercall_func - (s->rip + 5));
    int32_t rel32 = (int32_t)rel;

    if (perch_shared.stats.direct_state != PERCH_DIRECT_ACTIVE || rel != rel32)
        return false;
    bytes[0] = CALL_REL32;
    __builtin_memcpy(bytes + 1, &rel32, 4);
    return true;
}

/* len: the instruction's, as the Host decoded it (the table's copy is in
 * the guest's reach). */
static void try_patch(struct perch_patch_site *s, unsigned len)
{
    unsigned patch_len, i = (unsigned)(s - perch_shared.stats.patch_sites);
    enum perch_patch_state where = placement(s);
    uint8_t *text, bytes[INSN_MAX_BYTES];

    if (where != PERCH_PATCH_ACTIVE) {
        s->state = (uint8_t)where;
        return;
    }
    site_maddr[i] = guest_frame_maddr(s->rip, true);
    if (!site_maddr[i])
        return;                        /* not yet patchable: wait */
    if (len < 5 && __atomic_load_n(&perch_shared.boot.kernel_symbols, __ATOMIC_ACQUIRE) ==
                          PERCH_SYMBOLS_PENDING)
        return;                        /* the r11 scan needs them: wait */
    patch_len = patch_length(s->rip, len);
    if (!patch_len) {
        s->state = PERCH_PATCH_TOO_SHORT;
        return;
    }
    s->by_call = patch_len == 5 && call_bytes(s, bytes);
    if (!s->by_call)
        __builtin_memcpy(bytes, patch_len == 5 ? call_saving_both : call_saving_rcx, patch_len);
    __builtin_memset(bytes + patch_len, INT3, len - patch_len);
    text = text_bytes(s);
    __builtin_memcpy(s->original, text, len);
    rewrite_text(text, bytes, len);
    s->patch_len = (uint8_t)patch_len;
    s->state = PERCH_PATCH_ACTIVE;
    index_rebuild();
    /* A page holds a patch: mm.c tells us before it maps one writable. */
    mm_writable_frame_hook = insn_patch_frame_writable;
}

void insn_patch_trapped(uint64_t rip, unsigned len)
{
    struct perch_patch_site *s = site_at(rip, len);

    if (!s) {
        perch_shared.stats.patch_sites_unlisted++;
        return;
    }
    s->traps++;
    if (s->state != PERCH_PATCH_WAITING)
        return;
    s->len = (uint8_t)len;             /* as it is now: the guest may have rewritten it */
    try_patch(s, len);
}

/* The guest's own instruction at the site, with regs: whether it was a
 * page-table store, done, regs stepped past it. */
static bool store_as_original(const struct perch_patch_site *s, struct cpu_regs *regs)
{
    regs->rip = s->rip;
    if (ptwr_emulate_original(regs, s->original, s->len))
        return false;
    perch_shared.stats.patched_stores++;
    return true;
}

/* regs at the patched instruction: it is done (emulated as the guest wrote
 * it), or, when it turns out not to store to a page table, the patch is
 * undone for good and the original runs from rip. */
static void run_original(struct perch_patch_site *s, struct cpu_regs *regs)
{
    s->calls++;
    if (!store_as_original(s, regs))
        undo(s, PERCH_PATCH_UNDONE_TARGET);
}

/* The site whose patch of that form (a `call`, or a `syscall` form) ends
 * at ret, whatever its state now: with several vCPUs, one that left the
 * patch just before another vCPU, holding the Host lock, gave the site its
 * bytes back. */
static struct perch_patch_site *site_returning_to(uint64_t ret, bool by_call)
{
    for (unsigned i = 0; i < nr_sites(); i++) {
        struct perch_patch_site *s = &perch_shared.stats.patch_sites[i];

        if (s->patch_len && s->by_call == by_call && s->rip + s->patch_len == ret)
            return s;
    }
    return 0;
}

bool insn_patch_entry(struct cpu_regs *regs)
{
    struct perch_patch_site *s = active_site(regs->rcx);
    bool undone = false;
    unsigned words;
    uint64_t saved[2];

    /* Undone since (site_returning_to): the registers are put back as
     * below and the caller goes back to the site, to run what it holds now. */
    if (!s || s->by_call) {
        s = host_nr_vcpus > 1 ? site_returning_to(regs->rcx, false) : 0;
        undone = true;
    }
    if (!s)
        return false;
    /* The patch pushed rcx, then (5 bytes) r11; `syscall` put the flags in r11. */
    words = s->patch_len == 5 ? 2 : 1;
    if (copy_from_guest(saved, regs->rsp, words * 8))
        host_fatal("guest kernel entered the patch at %lx with rsp %lx, "
                   "which holds no saved registers", s->rip, regs->rsp);
    regs->rflags = regs->r11;
    if (words == 2) {
        regs->r11 = saved[0];
        regs->rcx = saved[1];
    } else {
        regs->rcx = saved[0];
    }
    regs->rsp += words * 8;
    if (undone)
        regs->rip = s->rip;
    else
        run_original(s, regs);
    return true;
}

/*
 * A `syscall` patch is two or three instructions (push %rcx, [push %r11,]
 * syscall): guest code stopped by an event between them has pushed one
 * or two words. Its rip there lies inside the guest's own instruction, so
 * an undo (another vCPU's, or this one's while the guest kernel runs the
 * event's handler and switches tasks) would leave the frame the guest
 * keeps, or the resume, in the middle of it. So such code is put back to
 * before the patch: the pushes taken back (the words below rsp are dead),
 * rip at the site, which runs whatever the site holds when it resumes.
 */
void insn_patch_leave_interior(struct cpu_regs *regs)
{
    for (unsigned i = 0; i < nr_sites(); i++) {
        const struct perch_patch_site *s = &perch_shared.stats.patch_sites[i];
        uint64_t into = regs->rip - s->rip;

        if (!s->patch_len || (into != 1 && !(into == 3 && s->patch_len == 5)))
            continue;
        regs->rsp += into == 1 ? 8 : 16;
        regs->rip = s->rip;
        return;
    }
}

bool insn_patch_call(struct cpu_regs *regs)
{
    struct perch_patch_site *s = active_site(regs->rip);

    if (s && s->by_call) {
        run_original(s, regs);
        return true;
    }
    /* Undone since (site_returning_to): the caller goes back to the site
     * and runs what it holds now. */
    s = host_nr_vcpus > 1 ? site_returning_to(regs->rip, true) : 0;
    if (!s)
        return false;
    regs->rip = s->rip;
    return true;
}

bool insn_patch_fault_at_site(struct cpu_regs *regs)
{
    struct perch_patch_site *s = site_listed(regs->rip);

    if (!s || s->state != PERCH_PATCH_ACTIVE || !store_as_original(s, regs))
        return false;
    s->calls++;
    return true;
}

void insn_patch_frame_writable(uint64_t mfn)
{
    for (unsigned i = 0; nr_active && i < nr_sites(); i++) {
        struct perch_patch_site *s = &perch_shared.stats.patch_sites[i];

        if (s->state == PERCH_PATCH_ACTIVE && site_maddr[i] >> XEN_PAGE_SHIFT == mfn)
            undo_for_write(s);
    }
}

bool insn_patch_stray_int3(struct cpu_regs *regs)
{
    const struct perch_patch_site *s = site_listed(regs->rip - 1);

    if (!s || !site_maddr[s - perch_shared.stats.patch_sites] || text_bytes(s)[0] == INT3)
        return false;
    regs->rip = s->rip;
    return true;
}
