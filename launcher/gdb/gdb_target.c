/* Registers, memory and breakpoints for gdb, while the guest is stopped (gdb_target.h). */
#include "gdb_target.h"

#include <string.h>

#include "../vm/pagetable.h"

#define RFLAGS_TF (1ull << 8)

void gdb_target_stopped(struct gdb_target *t)
{
    memcpy(&t->regs, (const void *)&t->shared->gdb.regs, sizeof(t->regs));
    t->regs_changed = false;
}

void gdb_target_resume(struct gdb_target *t, uint64_t how)
{
    volatile typeof(t->shared->gdb) *g = &t->shared->gdb;

    if (t->regs_changed)
        memcpy((void *)&g->regs, &t->regs, sizeof(t->regs));
    g->regs_changed = t->regs_changed;
    g->resume = how;
}

/* gdb's numbers 0-16: the general registers and rip, 8 bytes each. */
static uint64_t *reg64(struct perch_gdb_regs *r, unsigned n)
{
    uint64_t *const order[17] = {
        &r->rax, &r->rbx, &r->rcx, &r->rdx, &r->rsi, &r->rdi, &r->rbp, &r->rsp,
        &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15,
        &r->rip,
    };
    return n < 17 ? order[n] : NULL;
}

/* 17-23: eflags, cs, ss, ds, es, fs, gs, 4 bytes each. The Host keeps no
 * data selectors (64-bit PV code runs with null ones): they read 0. */
static uint64_t reg32(const struct perch_gdb_regs *r, unsigned n)
{
    switch (n) {
    case 17: return r->rflags;
    case 18: return r->cs;
    case 19: return r->ss;
    default: return 0;
    }
}

size_t gdb_target_get_reg(const struct gdb_target *t, unsigned n, uint8_t out[8])
{
    struct perch_gdb_regs copy = t->regs;
    uint64_t v;
    size_t size = n < 17 ? 8 : 4;

    if (n >= GDB_NR_REGS)
        return 0;
    v = n < 17 ? *reg64(&copy, n) : reg32(&copy, n);
    for (size_t i = 0; i < size; i++)
        out[i] = (uint8_t)(v >> (8 * i));
    return size;
}

int gdb_target_set_reg(struct gdb_target *t, unsigned n, const uint8_t *in, size_t size)
{
    uint64_t v = 0;

    if (n >= GDB_NR_REGS || size != (n < 17 ? 8u : 4u))
        return -1;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)in[i] << (8 * i);
    if (n < 17)
        *reg64(&t->regs, n) = v;
    else if (n == 17)   /* the Host keeps only what a guest may set */
        t->regs.rflags = v & ~RFLAGS_TF;
    else
        return 0;       /* selectors are the Host's: taken, not changed */
    t->regs_changed = true;
    return 0;
}

/* The L4 that maps va: the kernel's for the upper half, the user's for
 * the lower half while the guest is in user mode (the kernel's maps the
 * same user pages in Linux, but not in every guest). */
static uint64_t l4_for(const struct perch_gdb_regs *r, uint64_t va)
{
    if ((int64_t)va < 0 || r->in_kernel || !r->user_cr3)
        return r->kernel_cr3 >> PAGE_SHIFT;
    return r->user_cr3 >> PAGE_SHIFT;
}

/* Host pointer to the byte at va, or NULL: outside canonical space, in
 * Xen's hole, or not mapped to a guest frame. */
static uint8_t *guest_byte(const struct gdb_target *t, uint64_t va, uint64_t *maddr)
{
    uint64_t top = va >> 47, mfn;

    if ((top != 0 && top != 0x1ffff) || (va >= XEN_HOLE_START && va < XEN_HOLE_END))
        return NULL;
    mfn = pt_guest_lookup(t->gm, l4_for(&t->regs, va), va);
    if (mfn == INVALID_MFN)
        return NULL;
    if (maddr)
        *maddr = (mfn << PAGE_SHIFT) | (va & (PAGE_SIZE - 1));
    return (uint8_t *)gm_frame(t->gm, mfn) + (va & (PAGE_SIZE - 1));
}

static const struct gdb_breakpoint *breakpoint_at(const struct gdb_target *t, uint64_t va)
{
    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++)
        if (t->bp[i].used && t->bp[i].va == va)
            return &t->bp[i];
    return NULL;
}

/* Byte by byte: a read may cross into a page that is not there, and a
 * breakpoint's byte reads as it was. gdb's reads are small. */
size_t gdb_target_read(const struct gdb_target *t, uint64_t va, uint8_t *out, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        const uint8_t *p = guest_byte(t, va + i, NULL);
        const struct gdb_breakpoint *bp = breakpoint_at(t, va + i);

        if (!p)
            return i;
        out[i] = bp ? bp->original : *(volatile const uint8_t *)p;
    }
    return len;
}

/* Through perch's own mapping of guest memory, which the guest sees at
 * once (only page-table writes need the vCPU: docs/kvm.md). */
size_t gdb_target_write(struct gdb_target *t, uint64_t va, const uint8_t *in, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t *p = guest_byte(t, va + i, NULL);

        if (!p)
            return i;
        *(volatile uint8_t *)p = in[i];
    }
    return len;
}

/* The Host stops at the addresses in the shared table (host/gdb.c). */
static void publish(struct gdb_target *t, unsigned slot)
{
    t->shared->gdb.breakpoints[slot] = t->bp[slot].used ? t->bp[slot].va : 0;
}

int gdb_target_insert(struct gdb_target *t, uint64_t va)
{
    uint64_t maddr;
    uint8_t *p;
    unsigned i;

    if (breakpoint_at(t, va))
        return 0;
    for (i = 0; i < PERCH_GDB_BREAKPOINTS && t->bp[i].used; i++)
        ;
    p = guest_byte(t, va, &maddr);
    if (i == PERCH_GDB_BREAKPOINTS || !p || va == 0)
        return -1;
    t->bp[i] = (struct gdb_breakpoint){ .va = va, .maddr = maddr,
                                        .original = *p, .used = true };
    *(volatile uint8_t *)p = 0xcc;
    publish(t, i);
    return 0;
}

/* The byte goes back where the int3 was written, if the int3 is still
 * there (the guest may have rewritten its text meanwhile). */
static void take_out(struct gdb_target *t, unsigned i)
{
    volatile uint8_t *p = gm_range(t->gm, t->bp[i].maddr, 1);

    if (p && *p == 0xcc)
        *p = t->bp[i].original;
    t->bp[i].used = false;
    publish(t, i);
}

int gdb_target_remove(struct gdb_target *t, uint64_t va)
{
    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++)
        if (t->bp[i].used && t->bp[i].va == va) {
            take_out(t, i);
            return 0;
        }
    return -1;
}

void gdb_target_remove_all(struct gdb_target *t)
{
    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++)
        if (t->bp[i].used)
            take_out(t, i);
}
