/*
 * Where the guest kernel wants its traps and events delivered:
 * set_trap_table, set_callbacks, callback_op, stack_switch.
 */
#include "emulate.h"
#include "host.h"
#include "vcpu.h"

struct trap_info {
    uint8_t vector;
    uint8_t flags;      /* bits 0-1: DPL for `int`; bit 2: disable events */
    uint16_t cs;
    uint64_t address;
};
_Static_assert(sizeof(struct trap_info) == 16, "trap_info");

#define TRAP_INFO_DISABLES_EVENTS 4

/*
 * May the guest kernel's code lie at va? Xen refuses a non-canonical
 * handler with -EINVAL; perch also refuses the hypervisor hole, where its
 * own Host and Switcher code lie: a bounce there would fault in perch's
 * code and blame perch for the guest's choice. 0 means "none" and passes.
 */
static bool usable_handler(uint64_t va)
{
    uint64_t top = va >> 47;

    return (top == 0 || top == 0x1ffff) &&
           !(va >= XEN_HOLE_START && va < XEN_HOLE_END);
}

/* The table ends at an entry whose address is 0; a NULL table clears all. */
long do_set_trap_table(uint64_t table, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct trap_info ti;

    (void)a2, (void)a3, (void)a4, (void)a5;
    if (!table) {
        __builtin_memset(vcpu0.traps, 0, sizeof(vcpu0.traps));
        return 0;
    }
    for (;; table += sizeof(ti)) {
        if (copy_from_guest(&ti, table, sizeof(ti)))
            return -XEN_EFAULT;
        if (!ti.address)
            return 0;
        if (!usable_handler(ti.address))
            return -XEN_EINVAL;   /* as Xen: the entries before it stay set */
        vcpu0.traps[ti.vector] = (struct trap_entry){
            .address = ti.address, .cs = ti.cs,
            .disables_events = ti.flags & TRAP_INFO_DISABLES_EVENTS,
        };
    }
}

long do_set_callbacks(uint64_t event, uint64_t failsafe, uint64_t syscall,
                      uint64_t a4, uint64_t a5)
{
    (void)a4, (void)a5;
    if (!usable_handler(event) || !usable_handler(failsafe) ||
        !usable_handler(syscall))
        return -XEN_EINVAL;
    vcpu0.event_callback = event;
    vcpu0.failsafe_callback = failsafe;
    vcpu0.syscall_callback = syscall;
    return 0;
}

#define CALLBACKOP_register   0
#define CALLBACKOP_unregister 1
#define CALLBACKTYPE_event    0
#define CALLBACKTYPE_failsafe 1
#define CALLBACKTYPE_syscall  2
#define CALLBACKTYPE_nmi      4
#define CALLBACKF_mask_events (1u << 0)

struct callback_register {
    uint16_t type;
    uint16_t flags;
    uint32_t pad;
    uint64_t address;
};

static long set_callback(const struct callback_register *cb)
{
    if (!usable_handler(cb->address))
        return -XEN_EINVAL;
    switch (cb->type) {
    case CALLBACKTYPE_event:
        vcpu0.event_callback = cb->address;
        return 0;
    case CALLBACKTYPE_failsafe:
        vcpu0.failsafe_callback = cb->address;
        return 0;
    case CALLBACKTYPE_syscall:
        vcpu0.syscall_callback = cb->address;
        vcpu0.syscall_disables_events = cb->flags & CALLBACKF_mask_events;
        return 0;
    case CALLBACKTYPE_nmi:
        return 0;   /* perch never delivers an NMI to a guest */
    default:
        return -XEN_EINVAL;   /* 32-bit syscall and sysenter: no compat guests */
    }
}

long do_callback_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct callback_register cb;

    (void)a3, (void)a4, (void)a5;
    if (cmd != CALLBACKOP_register && cmd != CALLBACKOP_unregister)
        return -XEN_ENOSYS;
    if (copy_from_guest(&cb, arg, cmd == CALLBACKOP_register ? sizeof(cb) : 2))
        return -XEN_EFAULT;
    if (cmd == CALLBACKOP_unregister)
        cb.address = 0, cb.flags = 0;
    return set_callback(&cb);
}

long do_stack_switch(uint64_t ss, uint64_t sp, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    vcpu0.kernel_ss = ss;
    vcpu0.kernel_sp = sp;
    return 0;
}

/*
 * fpu_taskswitch sets or clears CR0.TS for lazy FPU switching. Linux 6.1
 * switches the FPU eagerly and never relies on #NM, so perch keeps the real
 * TS clear: the guest sees its TS (reading CR0) but gets no #NM from it.
 */
long do_fpu_taskswitch(uint64_t set, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a2, (void)a3, (void)a4, (void)a5;
    guest_cr0_ts = set != 0;
    return 0;
}
