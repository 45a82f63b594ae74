/*
 * Where the guest kernel wants its traps and events delivered:
 * set_trap_table, set_callbacks, callback_op, stack_switch.
 */
#include "../../abi/xen/callback.h"
#include "../cpu/emulate.h"
#include "callbacks.h"
#include "../core/host.h"
#include "../core/vcpu.h"

/*
 * May the guest kernel's code lie at va? Xen refuses a non-canonical
 * handler with -EINVAL; perch also refuses the hypervisor hole, where its
 * own Host and Switcher code lie: a bounce there would fault in perch's
 * code and blame perch for the guest's choice. 0 means "none" and passes.
 */
bool callbacks_handler_ok(uint64_t va)
{
    uint64_t top = va >> 47;

    return (top == 0 || top == 0x1ffff) &&
           !(va >= XEN_HOLE_START && va < XEN_HOLE_END);
}

static void set_trap(struct vcpu *v, unsigned vector, const struct trap_info *ti)
{
    v->traps[vector] = (struct trap_entry){
        .address = ti->address, .cs = ti->cs,
        .disables_events = ti->flags & TI_DISABLES_EVENTS,
    };
}

long callbacks_load_traps(struct vcpu *v, const struct trap_info table[256])
{
    for (unsigned i = 0; i < 256; i++)
        if (!callbacks_handler_ok(table[i].address))
            return -XEN_EINVAL;
    for (unsigned i = 0; i < 256; i++)
        set_trap(v, i, &table[i]);
    return 0;
}

/* The table ends at an entry whose address is 0; a NULL table clears all. */
long do_set_trap_table(uint64_t table, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct trap_info ti;

    (void)a2, (void)a3, (void)a4, (void)a5;
    if (!table) {
        __builtin_memset(current->traps, 0, sizeof(current->traps));
        return 0;
    }
    for (;; table += sizeof(ti)) {
        if (copy_from_guest(&ti, table, sizeof(ti)))
            return -XEN_EFAULT;
        if (!ti.address)
            return 0;
        if (!callbacks_handler_ok(ti.address))
            return -XEN_EINVAL;   /* as Xen: the entries before it stay set */
        set_trap(current, ti.vector, &ti);
    }
}

long do_set_callbacks(uint64_t event, uint64_t failsafe, uint64_t syscall,
                      uint64_t a4, uint64_t a5)
{
    (void)a4, (void)a5;
    if (!callbacks_handler_ok(event) || !callbacks_handler_ok(failsafe) ||
        !callbacks_handler_ok(syscall))
        return -XEN_EINVAL;
    current->event_callback = event;
    current->failsafe_callback = failsafe;
    current->syscall_callback = syscall;
    return 0;
}

static long set_callback(const struct callback_register *cb)
{
    if (!callbacks_handler_ok(cb->address))
        return -XEN_EINVAL;
    switch (cb->type) {
    case CALLBACKTYPE_event:
        current->event_callback = cb->address;
        return 0;
    case CALLBACKTYPE_failsafe:
        current->failsafe_callback = cb->address;
        return 0;
    case CALLBACKTYPE_syscall:
        current->syscall_callback = cb->address;
        current->syscall_disables_events = cb->flags & CALLBACKF_mask_events;
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
    if (copy_from_guest(&cb, arg, cmd == CALLBACKOP_register ? sizeof(cb) : sizeof(cb.type)))
        return -XEN_EFAULT;
    if (cmd == CALLBACKOP_unregister)
        cb.address = 0, cb.flags = 0;
    return set_callback(&cb);
}

long do_stack_switch(uint64_t ss, uint64_t sp, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    current->kernel_ss = ss;
    current->kernel_sp = sp;
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
    current->cr0_ts = set != 0;
    return 0;
}
