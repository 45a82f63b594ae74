/* Is a held vCPU's state whole (save_point.h)? */
#include "save_point.h"

#include "../vm/hole_map.h"

#define APIC_ISR      0x100    /* eight 32-bit words, 16 bytes apart */
#define RFLAGS_TF     (1ull << 8)

/* The byte of code at va through the vCPU's tables, or -1. */
static int code_byte(struct guest_memory *gm, uint64_t cr3, uint64_t va)
{
    uint64_t page = hole_lookup(gm, cr3 >> PAGE_SHIFT, va & ~(PAGE_SIZE - 1));
    const uint8_t *b = page ? gm_range(gm, page + (va & (PAGE_SIZE - 1)), 1) : NULL;

    return b ? *b : -1;
}

/* Right after int3, int1, int n, syscall or sysenter: the trap into ring 0
 * may still be on its way. */
static bool after_trapping_insn(struct guest_memory *gm, const struct kvm_vcpu_state *st)
{
    uint64_t rip = st->regs.rip, cr3 = st->sregs.cr3;
    int one = code_byte(gm, cr3, rip - 1), two = code_byte(gm, cr3, rip - 2);

    return one == 0xcc || one == 0xf1 || two == 0xcd ||
           (two == 0x0f && (one == 0x05 || one == 0x34));
}

static bool interrupt_in_service(const struct kvm_vcpu_state *st)
{
    for (unsigned i = 0; i < 8; i++) {
        uint32_t word;

        __builtin_memcpy(&word, st->lapic.regs + APIC_ISR + 16 * i, sizeof(word));
        if (word)
            return true;
    }
    return false;
}

bool save_point_whole(struct guest_memory *gm, const struct kvm_vcpu_state *st)
{
    if (interrupt_in_service(st))
        return false;
    return st->sregs.cs.dpl != 3 ||
           (!(st->regs.rflags & RFLAGS_TF) && !after_trapping_insn(gm, st));
}
