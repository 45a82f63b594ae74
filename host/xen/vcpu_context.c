/*
 * A vCPU the guest brings up. The Launcher starts every vCPU in host_boot;
 * those past the first wait there, asleep, until VCPUOP_initialise has
 * given them a context and VCPUOP_up lets them go. The context is checked
 * as Xen's arch_set_info_guest checks a 64-bit PV one, and more: its code
 * segments must be the guest kernel's own, its stacks outside the hole,
 * its GDT frames the guest's (descriptors.c), its L4 a valid one (mm.c).
 */
#include "vcpu_context.h"

#include "callbacks.h"
#include "../cpu/descriptors.h"
#include "../cpu/noop_patch.h"
#include "../core/host_lock.h"
#include "../mm/mm.h"

/* 5 KiB: not on the Host's stack. Only used under the Host lock. */
static struct vcpu_guest_context ctxt;

static bool addresses_ok(const struct vcpu_guest_context *c)
{
    return guest_va_ok(c->user_regs.rip) && guest_va_ok(c->user_regs.rsp) &&
           guest_va_ok(c->kernel_sp) && va_canonical(c->fs_base) &&
           va_canonical(c->gs_base_kernel) && va_canonical(c->gs_base_user) &&
           callbacks_handler_ok(c->event_callback_eip) &&
           callbacks_handler_ok(c->failsafe_callback_eip) &&
           callbacks_handler_ok(c->syscall_callback_eip);
}

/* A selector of the guest's own: in its part of the GDT (Xen fixes the
 * RPL up to 3), or the flat one Xen gives a 64-bit PV kernel; never
 * null, never one of perch's (its ring-0 code among them). */
static bool guest_selector(uint16_t sel, uint16_t flat)
{
    return sel == flat || ((sel & ~7u) && (sel >> 3) < FIRST_RESERVED_GDT_ENTRY);
}

/* Kernel mode, the guest's own selectors (the vCPU runs on the flat ones
 * in any case), no LDT (perch has none to offer), no user L4 of its own
 * yet. */
static bool shape_ok(const struct vcpu_guest_context *c)
{
    return (c->flags & VGCF_IN_KERNEL) &&
           guest_selector(c->user_regs.cs, FLAT_KERNEL_CS64) &&
           guest_selector(c->user_regs.ss, FLAT_KERNEL_SS64) &&
           guest_selector((uint16_t)c->kernel_ss, FLAT_KERNEL_SS64) &&
           c->kernel_ss <= 0xffff && c->ldt_ents == 0 && c->ctrlreg[1] == 0;
}

static void take_registers(struct cpu_regs *to, const struct cpu_user_regs *r)
{
    __builtin_memset(to, 0, sizeof(*to));
    to->r15 = r->r15, to->r14 = r->r14, to->r13 = r->r13, to->r12 = r->r12;
    to->rbp = r->rbp, to->rbx = r->rbx, to->r11 = r->r11, to->r10 = r->r10;
    to->r9 = r->r9, to->r8 = r->r8, to->rax = r->rax, to->rcx = r->rcx;
    to->rdx = r->rdx, to->rsi = r->rsi, to->rdi = r->rdi;
    to->rip = r->rip;
    to->cs = FLAT_KERNEL_CS64;
    to->rflags = r->rflags;
    to->rsp = r->rsp;
    to->ss = FLAT_KERNEL_SS64;
    to->vector = PERCH_VECTOR_SYSCALL;
}

long vcpu_context_load(struct vcpu *v, uint64_t arg)
{
    const struct vcpu_guest_context *c = &ctxt;
    long rc;

    if (copy_from_guest(&ctxt, arg, sizeof(ctxt)))
        return -XEN_EFAULT;
    if (!shape_ok(c) || !addresses_ok(c))
        return -XEN_EINVAL;
    rc = callbacks_load_traps(v, c->trap_ctxt);
    if (!rc)
        rc = descriptors_load_gdt(v, c->gdt_frames, c->gdt_ents);
    if (!rc)
        rc = mm_start_baseptr(v, c->ctrlreg[3] >> XEN_PAGE_SHIFT);
    if (rc)
        return rc;
    v->event_callback = c->event_callback_eip;
    v->failsafe_callback = c->failsafe_callback_eip;
    v->syscall_callback = c->syscall_callback_eip;
    v->syscall_disables_events = c->flags & VGCF_syscall_disables_events;
    v->kernel_ss = c->kernel_ss;
    v->kernel_sp = c->kernel_sp;
    v->fs_base = c->fs_base;
    v->gs_base_kernel = c->gs_base_kernel;
    v->gs_base_user = c->gs_base_user;
    v->iopl = (uint32_t)(c->user_regs.rflags >> 12) & 3;   /* Xen's virtual IOPL */
    take_registers(&v->start, &c->user_regs);
    v->state = VCPU_DOWN;
    noop_patch_recheck();
    return 0;
}

static bool up_or_wanted_by_gdb(void *arg)
{
    (void)arg;
    return current->state == VCPU_UP || gdb_stop_asked();
}

/* A vCPU not up stops for gdb too, with no registers to show, so that
 * gdb's all-stop finds every vCPU stopped. */
void vcpu_context_wait_up(void)
{
    for (;;) {
        host_sleep_until(up_or_wanted_by_gdb, NULL);
        if (current->state == VCPU_UP)
            return;
        launcher_gdb_stop(PERCH_GDB_STOP_OFFLINE);
    }
}
