/* cli and sti that trap for nothing, patched into nops (noop_patch.h). */
#include "noop_patch.h"

#include "../core/env.h"
#include "../core/host.h"
#include "../core/vcpu.h"

#define NOP 0x90

static struct {
    uint64_t maddr;
    uint8_t opcode;
} sites[NOOP_PATCH_SITES];
static unsigned nr_sites;
static bool for_gdb;

void noop_patch_init(bool gdb)
{
    for_gdb = gdb;
    nr_sites = 0;
}

unsigned noop_patch_sites(void)
{
    return nr_sites;
}

/* cli and sti are no-ops on every vCPU that has a context to run. */
static bool noop_everywhere(void)
{
    for (unsigned i = 0; i < host_nr_vcpus; i++)
        if (vcpu_of(i)->state != VCPU_OFF && !vcpu_iopl_allows(vcpu_of(i)))
            return false;
    return true;
}

static bool patching_on(void)
{
    return !for_gdb && !(optimizations_off & PERCH_OPT_INSN_PATCHING);
}

/* No other vCPU has a context yet: nothing else can be fetching the byte
 * as it changes (the early boot, where the cli storm is, runs on vCPU 0
 * alone). With others up, a byte is left as it is: the storm is over, and
 * a change would cost every other vCPU's serializing (insn_patch.c's
 * text_poke_bp protocol) for one trap saved. */
static bool alone(void)
{
    for (unsigned i = 0; i < host_nr_vcpus; i++)
        if (i != current->id && vcpu_of(i)->state != VCPU_OFF)
            return false;
    return true;
}

void noop_patch_emulated(uint64_t rip, uint8_t opcode)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;
    uint64_t maddr;
    uint8_t expected = opcode;

    /* Alone, and this vCPU's privilege just made it a no-op: a no-op on
     * every vCPU that can run. */
    if (!patching_on() || nr_sites == NOOP_PATCH_SITES || !alone() ||
        rip < b->kernel_text_start || rip >= b->kernel_text_end)
        return;
    maddr = guest_frame_maddr(rip, false);
    if (!maddr)
        return;
    /* Only if the byte still holds what was emulated. */
    if (__atomic_compare_exchange_n(env_alias_base() + maddr, &expected, NOP, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        sites[nr_sites++] = (typeof(sites[0])){ maddr, opcode };
}

void noop_patch_recheck(void)
{
    if (!nr_sites || noop_everywhere())
        return;
    for (unsigned i = 0; i < nr_sites; i++) {
        uint8_t nop = NOP;

        /* Put back only a nop that is still the Host's. */
        __atomic_compare_exchange_n(env_alias_base() + sites[i].maddr, &nop, sites[i].opcode,
                                    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    nr_sites = 0;
}
