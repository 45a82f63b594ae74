/* Registers, memory and breakpoints for gdb, while the guest is stopped (gdb_target.h). */
#include "gdb_target.h"

#include <string.h>

#include "../vm/pagetable.h"

#define RFLAGS_TF (1ull << 8)

/* gdb's own amd64 features, trimmed: the core, sse and segments ones of
 * gdb/features/i386/64bit-*.xml, with plain types for the vector
 * registers. The registers are numbered in this order from 0:
 * gdb_target.h. */
const char gdb_target_xml[] =
    "<?xml version=\"1.0\"?>"
    "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
    "<target version=\"1.0\"><architecture>i386:x86-64</architecture>"
    "<feature name=\"org.gnu.gdb.i386.core\">"
    "<flags id=\"i386_eflags\" size=\"4\">"
    "<field name=\"CF\" start=\"0\" end=\"0\"/><field name=\"\" start=\"1\" end=\"1\"/>"
    "<field name=\"PF\" start=\"2\" end=\"2\"/><field name=\"AF\" start=\"4\" end=\"4\"/>"
    "<field name=\"ZF\" start=\"6\" end=\"6\"/><field name=\"SF\" start=\"7\" end=\"7\"/>"
    "<field name=\"TF\" start=\"8\" end=\"8\"/><field name=\"IF\" start=\"9\" end=\"9\"/>"
    "<field name=\"DF\" start=\"10\" end=\"10\"/><field name=\"OF\" start=\"11\" end=\"11\"/>"
    "<field name=\"NT\" start=\"14\" end=\"14\"/><field name=\"RF\" start=\"16\" end=\"16\"/>"
    "<field name=\"VM\" start=\"17\" end=\"17\"/><field name=\"AC\" start=\"18\" end=\"18\"/>"
    "<field name=\"VIF\" start=\"19\" end=\"19\"/><field name=\"VIP\" start=\"20\" end=\"20\"/>"
    "<field name=\"ID\" start=\"21\" end=\"21\"/></flags>"
    "<reg name=\"rax\" bitsize=\"64\" type=\"int64\"/><reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rcx\" bitsize=\"64\" type=\"int64\"/><reg name=\"rdx\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rsi\" bitsize=\"64\" type=\"int64\"/><reg name=\"rdi\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rbp\" bitsize=\"64\" type=\"data_ptr\"/><reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>"
    "<reg name=\"r8\" bitsize=\"64\" type=\"int64\"/><reg name=\"r9\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"r10\" bitsize=\"64\" type=\"int64\"/><reg name=\"r11\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"r12\" bitsize=\"64\" type=\"int64\"/><reg name=\"r13\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"r14\" bitsize=\"64\" type=\"int64\"/><reg name=\"r15\" bitsize=\"64\" type=\"int64\"/>"
    "<reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>"
    "<reg name=\"eflags\" bitsize=\"32\" type=\"i386_eflags\"/>"
    "<reg name=\"cs\" bitsize=\"32\" type=\"int32\"/><reg name=\"ss\" bitsize=\"32\" type=\"int32\"/>"
    "<reg name=\"ds\" bitsize=\"32\" type=\"int32\"/><reg name=\"es\" bitsize=\"32\" type=\"int32\"/>"
    "<reg name=\"fs\" bitsize=\"32\" type=\"int32\"/><reg name=\"gs\" bitsize=\"32\" type=\"int32\"/>"
    "<reg name=\"st0\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st1\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"st2\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st3\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"st4\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st5\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"st6\" bitsize=\"80\" type=\"i387_ext\"/><reg name=\"st7\" bitsize=\"80\" type=\"i387_ext\"/>"
    "<reg name=\"fctrl\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fstat\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"ftag\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fiseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fioff\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"foseg\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fooff\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "<reg name=\"fop\" bitsize=\"32\" type=\"int\" group=\"float\"/>"
    "</feature><feature name=\"org.gnu.gdb.i386.sse\">"
    "<reg name=\"xmm0\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm1\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm2\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm3\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm4\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm5\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm6\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm7\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm8\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm9\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm10\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm11\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm12\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm13\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"xmm14\" bitsize=\"128\" type=\"uint128\"/><reg name=\"xmm15\" bitsize=\"128\" type=\"uint128\"/>"
    "<reg name=\"mxcsr\" bitsize=\"32\" type=\"int\" group=\"vector\"/>"
    "</feature><feature name=\"org.gnu.gdb.i386.segments\">"
    "<reg name=\"fs_base\" bitsize=\"64\" type=\"int\"/>"
    "<reg name=\"gs_base\" bitsize=\"64\" type=\"int\"/>"
    "</feature></target>";

void gdb_target_stopped(struct gdb_target *t, unsigned cpu, bool has_regs)
{
    struct gdb_vcpu_view *v = &t->vcpu[cpu];

    memcpy(&v->regs, (const void *)&t->shared->gdb.cpu[cpu].regs, sizeof(v->regs));
    v->has_regs = has_regs;
    v->regs_changed = false;
}

void gdb_target_resume(struct gdb_target *t, unsigned cpu, uint64_t how)
{
    volatile struct perch_gdb_vcpu *g = &t->shared->gdb.cpu[cpu];
    const struct gdb_vcpu_view *v = &t->vcpu[cpu];

    if (v->regs_changed)
        memcpy((void *)&g->regs, &v->regs, sizeof(v->regs));
    g->regs_changed = v->regs_changed;
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

size_t gdb_target_reg_size(unsigned n)
{
    if (n < 17 || n == GDB_REG_FS_BASE || n == GDB_REG_GS_BASE)
        return 8;
    if (n < 24 || (n >= 32 && n < 40) || n == 56)
        return 4;
    if (n < 32)
        return 10;          /* st0-7 */
    return n < 56 ? 16 : 0; /* xmm0-15 */
}

/* The tag of x87 register `phys` as gdb's full tag word has it (0 valid,
 * 1 zero, 2 special, 3 empty) from FXSAVE's one bit a register and the
 * register itself, as the CPU's own FSAVE would: i387_tag() in gdb. */
static unsigned full_tag(const struct kvm_fpu *f, unsigned phys)
{
    unsigned top = (f->fsw >> 11) & 7;
    const uint8_t *st = f->fpr[(phys - top) & 7];
    unsigned exponent = (st[9] & 0x7f) << 8 | st[8];
    uint64_t mantissa;

    if (!(f->ftwx >> phys & 1))
        return 3;
    memcpy(&mantissa, st, 8);
    if (exponent == 0x7fff)
        return 2;
    if (exponent == 0)
        return mantissa ? 2 : 1;
    return mantissa >> 63 ? 0 : 2;
}

/* 32-39: fctrl, fstat, ftag, fiseg, fioff, foseg, fooff, fop. In 64-bit
 * mode FXSAVE keeps 64-bit instruction and operand pointers: their upper
 * halves are fiseg and foseg, as gdb's amd64 FXSAVE reader takes them. */
static uint64_t x87_control(const struct kvm_fpu *f, unsigned n)
{
    uint64_t tags = 0;

    switch (n) {
    case 32: return f->fcw;
    case 33: return f->fsw;
    case 34:
        for (unsigned phys = 0; phys < 8; phys++)
            tags |= (uint64_t)full_tag(f, phys) << (2 * phys);
        return tags;
    case 35: return f->last_ip >> 32;
    case 36: return (uint32_t)f->last_ip;
    case 37: return f->last_dp >> 32;
    case 38: return (uint32_t)f->last_dp;
    default: return f->last_opcode & 0x7ff;
    }
}

/* 24-56 from the FXSAVE image, when the vCPU gave one. */
static size_t fpu_reg(const struct gdb_vcpu_view *view, unsigned n, uint8_t out[GDB_REG_MAX])
{
    const struct kvm_fpu *f = &view->fpu;
    uint64_t v;

    if (!view->has_fpu)
        return 0;
    if (n < 32) {
        memcpy(out, f->fpr[n - 24], 10);
        return 10;
    }
    if (n >= 40 && n < 56) {
        memcpy(out, f->xmm[n - 40], 16);
        return 16;
    }
    v = n == 56 ? f->mxcsr : x87_control(f, n);
    for (size_t i = 0; i < 4; i++)
        out[i] = (uint8_t)(v >> (8 * i));
    return 4;
}

size_t gdb_target_get_reg(const struct gdb_target *t, unsigned n,
                          uint8_t out[GDB_REG_MAX])
{
    const struct gdb_vcpu_view *view = &t->vcpu[t->cpu];
    struct perch_gdb_regs copy = view->regs;
    uint64_t v;
    size_t size = gdb_target_reg_size(n);

    if (!view->has_regs)
        return 0;
    if (n == GDB_REG_FS_BASE || n == GDB_REG_GS_BASE)
        v = n == GDB_REG_FS_BASE ? copy.fs_base : copy.gs_base;
    else if (n < GDB_NR_REGS)
        v = n < 17 ? *reg64(&copy, n) : reg32(&copy, n);
    else if (size)
        return fpu_reg(view, n, out);
    else
        return 0;
    for (size_t i = 0; i < size; i++)
        out[i] = (uint8_t)(v >> (8 * i));
    return size;
}

int gdb_target_set_reg(struct gdb_target *t, unsigned n, const uint8_t *in, size_t size)
{
    struct gdb_vcpu_view *view = &t->vcpu[t->cpu];
    uint64_t v = 0;

    if (n >= GDB_NR_REGS || size != (n < 17 ? 8u : 4u) || !view->has_regs)
        return -1;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)in[i] << (8 * i);
    if (n < 17)
        *reg64(&view->regs, n) = v;
    else if (n == 17)   /* the Host keeps only what a guest may set */
        view->regs.rflags = v & ~RFLAGS_TF;
    else
        return 0;       /* selectors are the Host's: taken, not changed */
    view->regs_changed = true;
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

/* Whose page tables gdb's addresses go through: the Hg vCPU's, or the
 * first vCPU's with registers when it has none (not up); NULL: none. */
static const struct perch_gdb_regs *tables(const struct gdb_target *t)
{
    if (t->vcpu[t->cpu].has_regs)
        return &t->vcpu[t->cpu].regs;
    for (unsigned i = 0; i < t->nr_vcpus; i++)
        if (t->vcpu[i].has_regs)
            return &t->vcpu[i].regs;
    return NULL;
}

/* Host pointer to the byte at va, or NULL: outside canonical space, in
 * Xen's hole, or not mapped to a guest frame. */
static uint8_t *guest_byte(const struct gdb_target *t, uint64_t va, uint64_t *maddr)
{
    const struct perch_gdb_regs *r = tables(t);
    uint64_t top = va >> 47, mfn;

    if ((top != 0 && top != 0x1ffff) || (va >= XEN_HOLE_START && va < XEN_HOLE_END) || !r)
        return NULL;
    mfn = pt_guest_lookup(t->gm, l4_for(r, va), va);
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

/* The Host stops at the addresses in the shared table (host/entry/gdb.c). */
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
