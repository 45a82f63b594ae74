/*
 * perch's slots (257, 258) in the guest's L4s. Xen fills its hypervisor
 * slots into every L4 it validates; perch does the same with the entries
 * the Launcher built (abi/layout.h, launcher/vm/hole.c): a kernel view gets
 * the Switcher, the Host, the M2P and the alias, a user view only the
 * Switcher and the syscall trampoline.
 */
#include "../core/env.h"
#include "../core/host.h"

/* An L4 that has served as a root is shadowed by KVM and write-protected:
 * every store to it is an emulated write, a trap through the machine's
 * hypervisor (docs/kvm.md). An address-space switch mostly finds the slot
 * as it was, so it is only read. */
static void set_slot(volatile uint64_t *l4, unsigned slot, uint64_t value)
{
    if (l4[slot] != value)
        l4[slot] = value;
}

/* Both slots are set, 258 to 0 in a user view: a frame can go from one
 * view to the other. host/mm/mm.c calls it when an L4 is pinned (user view
 * unless it is the current kernel L4) and on every NEW_BASEPTR (kernel
 * view) and NEW_USER_BASEPTR (user view). */
void hole_fill_l4(uint64_t l4_maddr, bool user_view)
{
    volatile uint64_t *l4 = (volatile uint64_t *)(env_alias_base() + (l4_maddr & PTE_ADDR_MASK));

    set_slot(l4, PERCH_SLOT_FIRST, user_view ? perch_shared.boot.user_slot_257
                                             : perch_shared.boot.kernel_slot_257);
    set_slot(l4, PERCH_ALIAS_SLOT, user_view ? 0 : perch_shared.boot.kernel_slot_258);
}
