/*
 * perch's slots in the guest's L4s. Xen fills its hypervisor slots into
 * every L4 it validates; perch does the same with the entries the Launcher
 * built (abi/layout.h): a kernel view gets the Switcher, the Host, the M2P
 * and the alias, a user view only the Switcher and the syscall trampoline.
 */
#include "env.h"
#include "host.h"

void hole_fill_l4(uint64_t l4_maddr, bool user_view)
{
    volatile uint64_t *l4 = (volatile uint64_t *)(env_alias_base() + (l4_maddr & PTE_ADDR_MASK));

    l4[PERCH_SLOT_FIRST] = user_view ? perch_shared.boot.user_slot_257
                                     : perch_shared.boot.kernel_slot_257;
    l4[PERCH_ALIAS_SLOT] = user_view ? 0 : perch_shared.boot.kernel_slot_258;
}
