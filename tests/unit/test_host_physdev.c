/*
 * Unit tests of physdev_op and physdev_op_compat (host/xen/physdev.c): what a
 * domU without devices gets.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../abi/xen/physdev.h"
#include "../../host/xen/physdev.h"
#include "../../host/core/vcpu.h"

#define FRAMES    64
#define VA        0xffffffff80300000ull
#define MFN       8
#define UNMAPPED  0xffffffff80500000ull
#define MFN_BASE  16
#define NR_PAGES  40

static void *guest(uint64_t va)
{
    return (uint8_t *)host_env_frame(MFN) + (va - VA);
}

static void put32(uint64_t va, uint32_t v)
{
    memcpy(guest(va), &v, 4);
}

static void put64(uint64_t va, uint64_t v)
{
    memcpy(guest(va), &v, 8);
}

static void setup(void)
{
    host_env_reset(FRAMES);
    host_env_map(VA, MFN, HOST_ENV_RW);
    perch_shared.boot.guest_mfn_base = MFN_BASE;
    perch_shared.boot.guest_nr_pages = NR_PAGES;
    current->iopl = 0;
    current->iobitmap = 0;
    current->iobitmap_ports = 0;
    physdev_pirq_eoi_mfn = 0;
}

static long pd(uint64_t cmd, uint64_t arg)
{
    return do_physdev_op(cmd, arg, 0, 0, 0);
}

static void set_iopl(void)
{
    setup();
    put32(VA, 1);
    CHECK(pd(PHYSDEVOP_set_iopl, VA) == 0);
    CHECK(current->iopl == 1);
    put32(VA, 3);
    CHECK(pd(PHYSDEVOP_set_iopl, VA) == 0);
    CHECK(current->iopl == 3);
    put32(VA, 4);
    CHECK(pd(PHYSDEVOP_set_iopl, VA) == -XEN_EINVAL);
    CHECK(current->iopl == 3);
    CHECK(pd(PHYSDEVOP_set_iopl, UNMAPPED) == -XEN_EFAULT);
    put32(VA, 0);
    CHECK(pd(PHYSDEVOP_set_iopl, VA) == 0);
    CHECK(current->iopl == 0);
}

static void set_iobitmap(void)
{
    setup();
    put64(VA, 0xffff888000001000ull);
    put32(VA + 8, 1024);
    CHECK(pd(PHYSDEVOP_set_iobitmap, VA) == 0);
    CHECK(current->iobitmap == 0xffff888000001000ull);
    CHECK(current->iobitmap_ports == 1024);
    put32(VA + 8, 65537);
    CHECK(pd(PHYSDEVOP_set_iobitmap, VA) == -XEN_EINVAL);
    /* A bitmap that could not be all there: in the hole, or running into
     * the non-canonical gap. */
    put32(VA + 8, 16);
    put64(VA, XEN_HOLE_START + 0x1000);
    CHECK(pd(PHYSDEVOP_set_iobitmap, VA) == -XEN_EINVAL);
    put64(VA, 0x00007fffffffff00ull);
    CHECK(pd(PHYSDEVOP_set_iobitmap, VA) == -XEN_EINVAL);
    CHECK(current->iobitmap_ports == 1024);
    CHECK(pd(PHYSDEVOP_set_iobitmap, UNMAPPED) == -XEN_EFAULT);
    CHECK(pd(PHYSDEVOP_set_iobitmap, VA + 4096 - 8) == -XEN_EFAULT);
}

static void pirq_eoi_gmfn_takes_one_own_frame(void)
{
    setup();
    put64(VA, MFN_BASE - 1);
    CHECK(pd(PHYSDEVOP_pirq_eoi_gmfn_v2, VA) == -XEN_EINVAL);
    put64(VA, MFN_BASE + NR_PAGES);
    CHECK(pd(PHYSDEVOP_pirq_eoi_gmfn_v2, VA) == -XEN_EINVAL);
    CHECK(pd(PHYSDEVOP_pirq_eoi_gmfn_v2, UNMAPPED) == -XEN_EFAULT);
    put64(VA, MFN_BASE + 3);
    CHECK(pd(PHYSDEVOP_pirq_eoi_gmfn_v2, VA) == 0);
    CHECK(physdev_pirq_eoi_mfn == MFN_BASE + 3);
    CHECK(pd(PHYSDEVOP_pirq_eoi_gmfn_v1, VA) == -XEN_EBUSY);
}

static void device_ops_are_enosys(void)
{
    static const unsigned ops[] = {
        0, 1, 2, 3, PHYSDEVOP_irq_status_query, PHYSDEVOP_apic_read, 9, 10, 11,
        PHYSDEVOP_eoi, PHYSDEVOP_map_pirq, 14, 15, 16, 19, 20, 21, 23, 24,
        PHYSDEVOP_pci_device_add, 26, 27, PHYSDEVOP_dbgp_op, 30, 31, 32, 1000,
    };

    setup();
    memset(guest(VA), 0, 64);
    for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        CHECK(pd(ops[i], VA) == -XEN_ENOSYS);
    CHECK(pd(PHYSDEVOP_IRQ_UNMASK_NOTIFY, 0) == 0);
}

/* Xen's command is an int. */
static void command_is_32_bits(void)
{
    setup();
    put32(VA, 1);
    CHECK(pd((1ull << 32) | PHYSDEVOP_set_iopl, VA) == 0);
    CHECK(current->iopl == 1);
}

static void compat_form(void)
{
    setup();
    memset(guest(VA), 0, 24);
    put32(VA, PHYSDEVOP_set_iopl);
    put32(VA + 8, 1);
    CHECK(do_physdev_op_compat(VA, 0, 0, 0, 0) == 0);
    CHECK(current->iopl == 1);
    put32(VA, PHYSDEVOP_set_iopl);
    put32(VA + 8, 9);
    CHECK(do_physdev_op_compat(VA, 0, 0, 0, 0) == -XEN_EINVAL);
    put32(VA, PHYSDEVOP_apic_read);
    CHECK(do_physdev_op_compat(VA, 0, 0, 0, 0) == -XEN_ENOSYS);
    CHECK(do_physdev_op_compat(UNMAPPED, 0, 0, 0, 0) == -XEN_EFAULT);
    /* The whole 24-byte struct must be readable, whatever the command. */
    put32(VA + 4096 - 16, PHYSDEVOP_IRQ_UNMASK_NOTIFY);
    CHECK(do_physdev_op_compat(VA + 4096 - 16, 0, 0, 0, 0) == -XEN_EFAULT);
    put32(VA + 4096 - 24, PHYSDEVOP_IRQ_UNMASK_NOTIFY);
    CHECK(do_physdev_op_compat(VA + 4096 - 24, 0, 0, 0, 0) == 0);
}

int main(void)
{
    RUN(set_iopl);
    RUN(set_iobitmap);
    RUN(pirq_eoi_gmfn_takes_one_own_frame);
    RUN(device_ops_are_enosys);
    RUN(command_is_32_bits);
    RUN(compat_form);
    return check_exit_status();
}
