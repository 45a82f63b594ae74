/*
 * vm_assist: the guest switches on (or off) hypervisor help it relies on.
 * The Host only records the choice, in the domain's vm_assist_enabled
 * (host/core/vcpu.h); the code that gives the help reads it there
 * (writable_pagetables for the page-table write emulation in host/mm/ptwr.c,
 * architectural_iopl for I/O permission in host/cpu/emulate.c).
 */
#include "../core/host.h"
#include "../core/vcpu.h"
#include "../cpu/noop_patch.h"

/*
 * The types Xen accepts from a 64-bit PV guest: the 32-bit ones too (they
 * must not start failing), plus m2p_strict. 4gb_segments (0) and its
 * notify (1) and pae_extended_cr3 (3) mean nothing on x86-64 but succeed.
 */
#define VMASST_VALID ((1ull << VMASST_TYPE_4gb_segments) |                \
                      (1ull << VMASST_TYPE_4gb_segments_notify) |         \
                      (1ull << VMASST_TYPE_writable_pagetables) |         \
                      (1ull << VMASST_TYPE_pae_extended_cr3) |            \
                      (1ull << VMASST_TYPE_architectural_iopl) |          \
                      (1ull << VMASST_TYPE_runstate_update_flag) |        \
                      (1ull << VMASST_TYPE_m2p_strict))

long do_vm_assist(uint64_t cmd, uint64_t type, uint64_t a3, uint64_t a4, uint64_t a5)
{
    /* Both are 32-bit unsigned ints in Xen's prototype. */
    uint32_t c = (uint32_t)cmd, t = (uint32_t)type;

    (void)a3, (void)a4, (void)a5;
    /* Xen checks the type before the command. */
    if (t >= 64 || !(VMASST_VALID & (1ull << t)))
        return -XEN_EINVAL;
    switch (c) {
    case VMASST_CMD_enable:
        vm_assist_enabled |= 1ull << t;
        return 0;
    case VMASST_CMD_disable:
        vm_assist_enabled &= ~(1ull << t);
        noop_patch_recheck();
        return 0;
    default:
        return -XEN_ENOSYS;
    }
}
