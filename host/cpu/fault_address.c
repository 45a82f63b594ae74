/*
 * The address of a #PF delivered at CPL3. The hardware knows it (CR2), but
 * only ring 0 can read it, and a ring-0 visit costs more than the rest of
 * the fault. So the Host finds the address itself: every byte the faulting
 * instruction touches lies in an operand the decoder (host/x86/insn.c) can
 * name, and the guest's page tables say which of those pages is in the
 * state the error code reports (not present; or present but read-only, for
 * a write). When exactly one candidate fits, it is the address; when none
 * or several do (stale TLB entries, two absent operands, an instruction
 * the decoder does not model), CR2 is read after all. A fault that comes
 * back at once with the same proven address is also read from CR2: a
 * wrong proof can then never loop.
 */
#include "fault_address.h"

#include "../core/env.h"
#include "../core/guest_mode.h"
#include "../x86/insn.h"
#include "../core/vcpu.h"

#define PF_PRESENT   (1u << 0)
#define PF_WRITE     (1u << 1)
#define PF_RESERVED  (1u << 3)
#define PF_FETCH     (1u << 4)
#define PF_UNPROVABLE (PF_RESERVED | (1u << 5) | (1u << 6))   /* + PK, SS */

#define PAGE 4096ull
#define NO_ADDRESS (~0ull)

enum page_state { PAGE_UNKNOWN, PAGE_ABSENT, PAGE_READ_ONLY, PAGE_WRITABLE };

/* What the guest's tables say of the page at va (the Host forces USER on
 * every entry, so only presence and write access differ). */
static enum page_state page_state(uint64_t va)
{
    uint64_t l1e, e;

    if (!guest_va_ok(va) || guest_l1e_maddr(va, 0) == GUEST_NO_ENTRY)
        return PAGE_UNKNOWN;
    l1e = guest_l1e_maddr(va, PTE_P);
    if (l1e == GUEST_NO_ENTRY || !((e = guest_read_entry(l1e)) & PTE_P))
        return PAGE_ABSENT;
    if ((e & PTE_RW) && guest_l1e_maddr(va, PTE_P | PTE_RW) != GUEST_NO_ENTRY)
        return PAGE_WRITABLE;
    return PAGE_READ_ONLY;
}

/* Would a fault at va be the one the error code describes? */
static bool fits(uint64_t va, uint64_t error)
{
    enum page_state s = page_state(va);

    if (!(error & PF_PRESENT))
        return s == PAGE_ABSENT;
    return (error & PF_WRITE) && s == PAGE_READ_ONLY;
}

/* Candidates seen so far: one address, or proof that there are several. */
struct candidates {
    uint64_t address;
    unsigned count;
};

static void consider(struct candidates *c, uint64_t va, uint64_t error)
{
    if (!fits(va, error) || (c->count && c->address == va))
        return;
    c->address = va;
    c->count++;
}

/* An access of `bytes` at va: its first byte's page, and the next page if
 * it runs into it (the fault is then at that page's first byte). */
static void consider_access(struct candidates *c, uint64_t va, unsigned bytes,
                            uint64_t error)
{
    uint64_t last = va + (bytes ? bytes : 1) - 1;

    consider(c, va, error);
    if ((last & ~(PAGE - 1)) != (va & ~(PAGE - 1)))
        consider(c, last & ~(PAGE - 1), error);
}

/* Bytes the explicit operand covers: vector forms their register's width,
 * the rest the operand size. */
static unsigned access_bytes(const struct insn *in)
{
    uint8_t op = in->opcode;

    if (in->vex)
        return 16u << (in->vex_l > 2 ? 2 : in->vex_l);
    if (in->map == INSN_MAP_0F &&
        ((op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) ||
         (op >= 0x51 && op <= 0x7f) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6) ||
         op >= 0xd0))
        return 16;
    if (in->map == INSN_MAP_0F38 || in->map == INSN_MAP_0F3A)
        return 16;
    return in->operand_size;
}

/* A data access: the explicit operand and the implicit ones. */
static void consider_operands(struct candidates *c, const struct cpu_regs *regs,
                              const struct insn *in, uint64_t error)
{
    static const unsigned implicit[] = {
        INSN_IMPLICIT_RSI, INSN_IMPLICIT_RDI, INSN_IMPLICIT_PUSH, INSN_IMPLICIT_POP,
    };
    uint64_t va;

    if (insn_memory_address(in, regs, current->fs_base, guest_gs_base(), &va))
        consider_access(c, va, access_bytes(in), error);
    for (unsigned i = 0; i < sizeof(implicit) / sizeof(implicit[0]); i++)
        if ((in->implicit & implicit[i]) &&
            insn_implicit_address(in, regs, current->fs_base, guest_gs_base(), implicit[i], &va))
            consider_access(c, va, implicit[i] & (INSN_IMPLICIT_PUSH | INSN_IMPLICIT_POP)
                                       ? in->stack_bytes : in->operand_size, error);
}

/* The proven address, or NO_ADDRESS. */
static uint64_t prove(const struct cpu_regs *regs, uint64_t error)
{
    struct candidates c = { 0, 0 };
    uint8_t bytes[INSN_MAX_BYTES];
    struct insn in;
    size_t n;

    if (error & PF_UNPROVABLE)
        return NO_ADDRESS;
    if (error & PF_FETCH) {
        /* Instruction fetch: the instruction's own page, or the next one
         * it runs into. Only not-present is checked (NX is not walked). */
        if (error & PF_PRESENT)
            return NO_ADDRESS;
        consider_access(&c, regs->rip, INSN_MAX_BYTES, error);
        return c.count == 1 ? c.address : NO_ADDRESS;
    }
    n = insn_fetch(regs->rip, bytes);
    if (!n || insn_decode(&in, bytes, n))
        return NO_ADDRESS;
    consider_operands(&c, regs, &in, error);
    return c.count == 1 ? c.address : NO_ADDRESS;
}

uint64_t fault_address_cpl3(const struct cpu_regs *regs)
{
    struct vcpu *v = current;
    uint64_t address = NO_ADDRESS;

    if (!(optimizations_off & PERCH_OPT_FAULT_DECODE))
        address = prove(regs, regs->error_code);
    if (address != NO_ADDRESS &&
        !(regs->rip == v->proven_fault_rip && address == v->proven_fault_address &&
          v->kernel_cr3 == v->proven_fault_cr3)) {
        v->proven_fault_rip = regs->rip;
        v->proven_fault_cr3 = v->kernel_cr3;
        v->proven_fault_address = address;
        perch_shared.stats.pf_address_decoded++;
        return address;
    }
    v->proven_fault_address = NO_ADDRESS;
    return env_fault_address(FAULT_ADDRESS_CR2);
}
