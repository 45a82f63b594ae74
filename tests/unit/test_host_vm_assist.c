/*
 * Unit tests of vm_assist (host/xen/vm_assist.c): the types a 64-bit PV guest
 * may enable and disable, and what is refused.
 */
#include <stdint.h>

#include "check.h"
#include "host_env.h"
#include "../../host/core/vcpu.h"

static long va(uint64_t cmd, uint64_t type)
{
    return do_vm_assist(cmd, type, 0, 0, 0);
}

static void setup(void)
{
    host_env_reset(0);
    vm_assist_enabled = 0;
}

static void enable_and_disable_each_type(void)
{
    static const unsigned types[] = {
        VMASST_TYPE_4gb_segments, VMASST_TYPE_4gb_segments_notify,
        VMASST_TYPE_writable_pagetables, VMASST_TYPE_pae_extended_cr3,
        VMASST_TYPE_architectural_iopl, VMASST_TYPE_runstate_update_flag,
        VMASST_TYPE_m2p_strict,
    };

    setup();
    for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        CHECK(va(VMASST_CMD_enable, types[i]) == 0);
        CHECK(vm_assist_enabled == 1ull << types[i]);
        CHECK(va(VMASST_CMD_enable, types[i]) == 0);       /* idempotent */
        CHECK(va(VMASST_CMD_disable, types[i]) == 0);
        CHECK(vm_assist_enabled == 0);
    }
}

static void what_linux_enables(void)
{
    setup();
    CHECK(va(VMASST_CMD_enable, VMASST_TYPE_4gb_segments) == 0);
    CHECK(va(VMASST_CMD_enable, VMASST_TYPE_writable_pagetables) == 0);
    CHECK(va(VMASST_CMD_enable, VMASST_TYPE_pae_extended_cr3) == 0);
    CHECK(va(VMASST_CMD_enable, VMASST_TYPE_runstate_update_flag) == 0);
    CHECK(vm_assist_enabled == 0x2d);
    CHECK(va(VMASST_CMD_disable, VMASST_TYPE_pae_extended_cr3) == 0);
    CHECK(vm_assist_enabled == 0x25);
}

static void unknown_types_are_einval(void)
{
    setup();
    for (unsigned t = 6; t < 80; t++)
        if (t != VMASST_TYPE_m2p_strict)
            CHECK(va(VMASST_CMD_enable, t) == -XEN_EINVAL);
    CHECK(va(VMASST_CMD_enable, ~0ull) == -XEN_EINVAL);
    CHECK(vm_assist_enabled == 0);
}

static void type_is_checked_before_the_command(void)
{
    setup();
    CHECK(va(2, 6) == -XEN_EINVAL);
    CHECK(va(2, VMASST_TYPE_writable_pagetables) == -XEN_ENOSYS);
    CHECK(va(~0ull, VMASST_TYPE_writable_pagetables) == -XEN_ENOSYS);
    CHECK(vm_assist_enabled == 0);
}

/* Xen's arguments are 32-bit unsigned ints. */
static void arguments_are_32_bits(void)
{
    setup();
    CHECK(va(1ull << 32, (1ull << 32) | VMASST_TYPE_writable_pagetables) == 0);
    CHECK(vm_assist_enabled == 1ull << VMASST_TYPE_writable_pagetables);
    CHECK(va((1ull << 32) | VMASST_CMD_disable, VMASST_TYPE_writable_pagetables) == 0);
    CHECK(vm_assist_enabled == 0);
}

int main(void)
{
    RUN(enable_and_disable_each_type);
    RUN(what_linux_enables);
    RUN(unknown_types_are_einval);
    RUN(type_is_checked_before_the_command);
    RUN(arguments_are_32_bits);
    return check_exit_status();
}
