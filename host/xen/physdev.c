/*
 * physdev_op: physical devices and I/O privilege. A perch guest is a domU
 * without devices, so what is left is what such a domU gets from Xen:
 *
 *   set_iopl, set_iobitmap    accepted and recorded; host/cpu/emulate.c uses
 *                             them to allow in/out (Linux sets iopl 1 at
 *                             boot, ioperm() users set the bitmap)
 *   pirq_eoi_gmfn_v1/_v2      accepted for one of the guest's own frames
 *                             (Linux registers one in xen_init_IRQ); with
 *                             no physical IRQs nothing is ever written there
 *   IRQ_UNMASK_NOTIFY         0: there are no physical IRQs to unmask
 *   everything else           -ENOSYS: the IRQ, PCI, MSI and APIC
 *                             operations fail for a domU without devices
 *                             (Xen says -EPERM or -EINVAL), and Linux only
 *                             issues them for devices it has
 *
 * physdev_op_compat is the old form: one struct with the command first.
 */
#include "../../abi/xen/physdev.h"
#include "../core/host.h"
#include "../cpu/noop_patch.h"
#include "physdev.h"
#include "../core/vcpu.h"

#define IOBMP_BYTES   8192u       /* a bitmap for all 65536 ports */
#define IOBMP_PORTS   65536u

uint64_t physdev_pirq_eoi_mfn;    /* 0: none registered */

static long set_iopl(uint64_t arg)
{
    uint32_t iopl;

    if (copy_from_guest(&iopl, arg, sizeof(iopl)))
        return -XEN_EFAULT;
    if (iopl > 3)
        return -XEN_EINVAL;
    current->iopl = iopl;
    noop_patch_recheck();
    return 0;
}

/* Xen keeps the guest's pointer, which must be able to hold a whole
 * bitmap, and reads the bits at each in/out. */
static long set_iobitmap(uint64_t arg)
{
    struct physdev_set_iobitmap b;

    if (copy_from_guest(&b, arg, sizeof(b)))
        return -XEN_EFAULT;
    if (!guest_handle_okay(b.bitmap, IOBMP_BYTES) || b.nr_ports > IOBMP_PORTS)
        return -XEN_EINVAL;
    current->iobitmap = b.bitmap;
    current->iobitmap_ports = b.nr_ports;
    return 0;
}

/* A PV guest names its frame by machine frame number; it must be one of
 * its own, and only one may be registered. */
static long pirq_eoi_gmfn(uint64_t arg)
{
    uint64_t mfn;

    if (copy_from_guest(&mfn, arg, sizeof(mfn)))
        return -XEN_EFAULT;
    if (!guest_owns_frame(mfn))
        return -XEN_EINVAL;
    if (physdev_pirq_eoi_mfn)
        return -XEN_EBUSY;
    physdev_pirq_eoi_mfn = mfn;
    return 0;
}

long do_physdev_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    /* Xen's cmd is an int: only the low 32 bits count. */
    switch ((uint32_t)cmd) {
    case PHYSDEVOP_set_iopl:
        return set_iopl(arg);
    case PHYSDEVOP_set_iobitmap:
        return set_iobitmap(arg);
    case PHYSDEVOP_pirq_eoi_gmfn_v1:
    case PHYSDEVOP_pirq_eoi_gmfn_v2:
        return pirq_eoi_gmfn(arg);
    case PHYSDEVOP_IRQ_UNMASK_NOTIFY:
        return 0;
    default:
        return -XEN_ENOSYS;
    }
}

/* Xen reads the whole struct first, so a short one is -EFAULT whatever
 * the command. */
long do_physdev_op_compat(uint64_t arg, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    uint8_t op[PHYSDEV_OP_BYTES];
    uint32_t cmd;

    (void)a2, (void)a3, (void)a4, (void)a5;
    if (copy_from_guest(op, arg, sizeof(op)))
        return -XEN_EFAULT;
    __builtin_memcpy(&cmd, op, sizeof(cmd));
    return do_physdev_op(cmd, arg + PHYSDEV_OP_ARG_OFFSET, 0, 0, 0);
}
