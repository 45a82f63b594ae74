/*
 * Unit tests of where the guest kernel registers its handlers
 * (host/xen/callbacks.c): set_trap_table, set_callbacks and callback_op take
 * the guest's addresses, but refuse with Xen's -EINVAL one that is not
 * canonical or lies in the hypervisor hole, where perch's own Host and
 * Switcher code is (a bounce there would look like a fault of perch's).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/callback.h"
#include "../../host/core/vcpu.h"

#define FRAMES      32
#define GUEST_BASE  16
#define VA          0xffffffff80400000ull   /* one page at GUEST_BASE */
#define HANDLER     0xffffffff81000000ull   /* a kernel text address */

/* Addresses no guest handler may have. */
static const uint64_t bad_addresses[] = {
    SW_CODE_VA, SW_CODE_VA + 0x40, HOST_IMAGE_VA + 0x1234, SW_GATE_VA,
    PERCH_REGION_VA, XEN_HOLE_START, XEN_HOLE_END - 1,
    0x0000800000000000ull, 0x8000000000000000ull,   /* not canonical */
};
#define NR_BAD (sizeof(bad_addresses) / sizeof(bad_addresses[0]))

static void setup(void)
{
    memset(current->traps, 0, sizeof(current->traps));
    current->event_callback = current->failsafe_callback = current->syscall_callback = 0;
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = 1;
    host_env_map_range(VA, GUEST_BASE, 1, HOST_ENV_RW);
}

static void put(const void *src, size_t len)
{
    memcpy(host_env_frame(GUEST_BASE), src, len);
}

/* Vector 3 good, vector 6 bad: 3 stays set, as in Xen, 6 never is. */
static long trap_table_with(uint64_t address)
{
    struct trap_info table[3] = {
        { .vector = 3, .cs = 0xe033, .address = HANDLER },
        { .vector = 6, .cs = 0xe033, .address = address },
        { 0 },
    };

    put(table, sizeof(table));
    return do_set_trap_table(VA, 0, 0, 0, 0);
}

static void trap_table_accepts_kernel_handlers(void)
{
    setup();
    CHECK(trap_table_with(HANDLER + 0x10) == 0);
    CHECK(current->traps[3].address == HANDLER);
    CHECK(current->traps[6].address == HANDLER + 0x10);
    CHECK(trap_table_with(0x400000) == 0);   /* low canonical: fine */
}

static void trap_table_refuses_the_hole_and_non_canonical(void)
{
    for (size_t i = 0; i < NR_BAD; i++) {
        setup();
        CHECK(trap_table_with(bad_addresses[i]) == -XEN_EINVAL);
        CHECK(current->traps[3].address == HANDLER);
        CHECK(current->traps[6].address == 0);
    }
}

static void set_callbacks_refuses_the_hole(void)
{
    setup();
    CHECK(do_set_callbacks(HANDLER, HANDLER + 8, HANDLER + 16, 0, 0) == 0);
    CHECK(current->event_callback == HANDLER);
    CHECK(current->syscall_callback == HANDLER + 16);
    for (size_t i = 0; i < NR_BAD; i++) {
        uint64_t bad = bad_addresses[i];

        CHECK(do_set_callbacks(bad, HANDLER, HANDLER, 0, 0) == -XEN_EINVAL);
        CHECK(do_set_callbacks(HANDLER, bad, HANDLER, 0, 0) == -XEN_EINVAL);
        CHECK(do_set_callbacks(HANDLER, HANDLER, bad, 0, 0) == -XEN_EINVAL);
        CHECK(current->event_callback == HANDLER);
        CHECK(current->failsafe_callback == HANDLER + 8);
        CHECK(current->syscall_callback == HANDLER + 16);
    }
}

static long register_callback(uint16_t type, uint64_t address)
{
    struct callback_register cb = { .type = type, .address = address };

    put(&cb, sizeof(cb));
    return do_callback_op(CALLBACKOP_register, VA, 0, 0, 0);
}

static void callback_op_refuses_the_hole(void)
{
    setup();
    CHECK(register_callback(CALLBACKTYPE_event, HANDLER) == 0);
    CHECK(register_callback(CALLBACKTYPE_syscall, HANDLER + 4) == 0);
    for (size_t i = 0; i < NR_BAD; i++) {
        CHECK(register_callback(CALLBACKTYPE_event, bad_addresses[i]) == -XEN_EINVAL);
        CHECK(register_callback(CALLBACKTYPE_syscall, bad_addresses[i]) == -XEN_EINVAL);
    }
    CHECK(current->event_callback == HANDLER);
    CHECK(current->syscall_callback == HANDLER + 4);
}

int main(void)
{
    RUN(trap_table_accepts_kernel_handlers);
    RUN(trap_table_refuses_the_hole_and_non_canonical);
    RUN(set_callbacks_refuses_the_hole);
    RUN(callback_op_refuses_the_hole);
    return check_exit_status();
}
