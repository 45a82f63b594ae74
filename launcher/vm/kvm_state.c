/* A vCPU's whole state, read, checked and loaded (kvm_state.h). */
#include "kvm_state.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../../abi/layout.h"
#include "x86_msrs.h"

/* The TSC first (kvm_vcpu_state_tsc): a TSC-deadline or the steal area
 * read after it. */
static const uint32_t kvm_state_msr_list[KVM_STATE_MSRS] = {
    MSR_IA32_TSC, MSR_STAR, MSR_LSTAR, MSR_CSTAR, MSR_SYSCALL_MASK,
    MSR_KERNEL_GS_BASE, MSR_TSC_AUX, MSR_SYSENTER_CS, MSR_SYSENTER_ESP,
    MSR_SYSENTER_EIP, MSR_PAT, MSR_KVM_STEAL_TIME,
};

/* The steal-time area is KVM's to offer: the last MSR may be missing. */
#define KVM_STATE_MSRS_NEEDED (KVM_STATE_MSRS - 1)

struct msrs_buffer {
    struct kvm_msrs head;
    struct kvm_msr_entry entries[KVM_STATE_MSRS];
};

static int get_msrs(struct kvm_vcpu *vcpu, struct kvm_vcpu_state *st, struct error *e)
{
    struct msrs_buffer m = { .head.nmsrs = KVM_STATE_MSRS };
    int got;

    for (unsigned i = 0; i < KVM_STATE_MSRS; i++)
        m.entries[i].index = kvm_state_msr_list[i];
    got = ioctl(vcpu->fd, KVM_GET_MSRS, &m);
    if (got < KVM_STATE_MSRS_NEEDED)
        return fail(e, "KVM_GET_MSRS of vCPU %u: %d of %d", vcpu->id, got, KVM_STATE_MSRS);
    st->nr_msrs = (uint32_t)got;
    memcpy(st->msrs, m.entries, sizeof(st->msrs));
    return 0;
}

/* One ioctl that fills (or takes) part of the state; its name for errors. */
struct state_part {
    unsigned long get, set;
    const char *name;
    size_t offset;
};

#define PART(g, s, field) { g, s, #g, offsetof(struct kvm_vcpu_state, field) }

/* In the order KVM must take them back: long mode before the registers,
 * the TSC (an MSR) before the APIC timer that counts against it, events
 * and the halt last. */
static const struct state_part parts[] = {
    PART(KVM_GET_SREGS, KVM_SET_SREGS, sregs),
    PART(KVM_GET_REGS, KVM_SET_REGS, regs),
    PART(KVM_GET_XCRS, KVM_SET_XCRS, xcrs),
    PART(KVM_GET_XSAVE, KVM_SET_XSAVE, xsave),
    PART(KVM_GET_LAPIC, KVM_SET_LAPIC, lapic),
    PART(KVM_GET_DEBUGREGS, KVM_SET_DEBUGREGS, debugregs),
    PART(KVM_GET_VCPU_EVENTS, KVM_SET_VCPU_EVENTS, events),
    PART(KVM_GET_MP_STATE, KVM_SET_MP_STATE, mp_state),
};

int kvm_vcpu_state_get(struct kvm_vcpu *vcpu, struct kvm_vcpu_state *st, struct error *e)
{
    memset(st, 0, sizeof(*st));
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (ioctl(vcpu->fd, parts[i].get, (uint8_t *)st + parts[i].offset) < 0)
            return fail(e, "%s of vCPU %u: %s", parts[i].name, vcpu->id, strerror(errno));
    return get_msrs(vcpu, st, e);
}

int kvm_vcpu_tsc(struct kvm_vcpu *vcpu, uint64_t *tsc, struct error *e)
{
    struct {
        struct kvm_msrs head;
        struct kvm_msr_entry entry;
    } m = { .head.nmsrs = 1, .entry.index = MSR_IA32_TSC };

    if (ioctl(vcpu->fd, KVM_GET_MSRS, &m) != 1)
        return fail(e, "KVM_GET_MSRS: vCPU %u's TSC: %s", vcpu->id, strerror(errno));
    *tsc = m.entry.data;
    return 0;
}

static int set_msrs(struct kvm_vcpu *vcpu, const struct kvm_vcpu_state *st, struct error *e)
{
    struct msrs_buffer m = { .head.nmsrs = st->nr_msrs };

    memcpy(m.entries, st->msrs, sizeof(m.entries));
    if (ioctl(vcpu->fd, KVM_SET_MSRS, &m) != (int)st->nr_msrs)
        return fail(e, "KVM_SET_MSRS: vCPU %u refused a saved MSR", vcpu->id);
    return 0;
}

int kvm_vcpu_state_set(struct kvm_vcpu *vcpu, const struct kvm_vcpu_state *st,
                       struct error *e)
{
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        /* The MSRs go in after the FPU, before the APIC (see parts). */
        if (parts[i].set == KVM_SET_LAPIC && set_msrs(vcpu, st, e))
            return -1;
        if (ioctl(vcpu->fd, parts[i].set, (const uint8_t *)st + parts[i].offset) < 0)
            return fail(e, "KVM refused vCPU %u's saved state (%s): %s", vcpu->id,
                        parts[i].name, strerror(errno));
    }
    return 0;
}

/* rflags a CPL3 guest can hold: bit 1 set; no virtual-8086 mode, no I/O
 * privilege (the guest's IOPL is virtual), no reserved bit. */
#define RFLAGS_FIXED1   (1ull << 1)
#define RFLAGS_ALLOWED  0x3d4fd5ull    /* CF PF AF ZF SF TF IF DF OF NT RF AC VIF VIP ID */

static int check_sregs(const struct kvm_sregs *s, const struct kvm_state_expected *x,
                       struct error *e)
{
    uint64_t apic = PERCH_APIC_GPA | APIC_BASE_ENABLE | (x->cpu ? 0 : APIC_BASE_BSP);
    uint64_t idt = PERCH_CPU_VA(SW_IDT_VA, x->cpu), halt_idt = PERCH_CPU_VA(SW_HALT_IDT_VA, x->cpu);

    if (s->cr0 != PERCH_VCPU_CR0 || s->cr4 != PERCH_VCPU_CR4 || s->efer != PERCH_VCPU_EFER)
        return fail(e, "control registers cr0 %#llx cr4 %#llx efer %#llx are not perch's",
                    s->cr0, s->cr4, s->efer);
    if (s->cr3 & 0xfff || s->cr3 >= x->memory_bytes)
        return fail(e, "cr3 %#llx is no page of the guest's memory", s->cr3);
    if (s->gdt.base != PERCH_CPU_VA(SW_GDT_VA, x->cpu) ||
        s->tr.base != PERCH_CPU_VA(SW_TSS_VA, x->cpu) || s->tr.selector != SW_TSS_SEL ||
        (s->idt.base != idt && s->idt.base != halt_idt))
        return fail(e, "descriptor tables (gdt %#llx, idt %#llx, tss %#llx) are not its own",
                    s->gdt.base, s->idt.base, s->tr.base);
    if (s->apic_base != apic)
        return fail(e, "APIC base %#llx is not %#" PRIx64, s->apic_base, apic);
    if (!s->cs.l || (s->cs.dpl != 3 && s->cs.dpl != 0))
        return fail(e, "code segment (dpl %u, long %u) is not a 64-bit one", s->cs.dpl, s->cs.l);
    return 0;
}

/* Ring 0 runs the Switcher's text alone: this vCPU's copy of it. */
static int check_ring_0(const struct kvm_vcpu_state *st, unsigned cpu, struct error *e)
{
    uint64_t text = PERCH_CPU_VA(SW_CODE_VA, cpu);

    if (st->sregs.cs.dpl == 0 && (st->regs.rip < text || st->regs.rip - text >= SW_CODE_MAX))
        return fail(e, "ring 0 at rip %#llx, outside the Switcher", st->regs.rip);
    return 0;
}

static int check_msrs(const struct kvm_vcpu_state *st, const struct kvm_state_expected *x,
                      struct error *e)
{
    if (st->nr_msrs < KVM_STATE_MSRS_NEEDED || st->nr_msrs > KVM_STATE_MSRS)
        return fail(e, "%u MSRs saved, not %u or %u", st->nr_msrs, KVM_STATE_MSRS_NEEDED,
                    KVM_STATE_MSRS);
    for (uint32_t i = 0; i < st->nr_msrs; i++) {
        const struct kvm_msr_entry *m = &st->msrs[i];
        uint64_t want;

        if (m->index != kvm_state_msr_list[i])
            return fail(e, "MSR %u is %#x, not %#x", i, m->index, kvm_state_msr_list[i]);
        switch (m->index) {
        case MSR_STAR:           want = PERCH_STAR; break;
        case MSR_LSTAR:          want = x->lstar; break;
        case MSR_CSTAR:
        case MSR_SYSCALL_MASK:   want = 0; break;
        case MSR_TSC_AUX:        want = x->cpu; break;
        case MSR_KVM_STEAL_TIME: want = x->steal_gpa | KVM_MSR_ENABLED; break;
        default:                 continue;
        }
        if (m->data != want)
            return fail(e, "MSR %#x is %#llx, not perch's %#" PRIx64, m->index, m->data, want);
    }
    return 0;
}

int kvm_vcpu_state_check(const struct kvm_vcpu_state *st, const struct kvm_state_expected *x,
                         struct error *e)
{
    struct error inner;
    uint32_t apic_id;

    memcpy(&apic_id, st->lapic.regs + 0x20, sizeof(apic_id));
    if (check_sregs(&st->sregs, x, &inner) || check_ring_0(st, x->cpu, &inner) ||
        check_msrs(st, x, &inner))
        return fail(e, "vCPU %u: %s", x->cpu, inner.msg);
    if (st->regs.rflags & ~(RFLAGS_ALLOWED | RFLAGS_FIXED1) || !(st->regs.rflags & RFLAGS_FIXED1))
        return fail(e, "vCPU %u: rflags %#llx no guest can hold", x->cpu, st->regs.rflags);
    if (st->mp_state.mp_state != KVM_MP_STATE_RUNNABLE &&
        st->mp_state.mp_state != KVM_MP_STATE_HALTED)
        return fail(e, "vCPU %u: run state %u is neither running nor halted", x->cpu,
                    st->mp_state.mp_state);
    if (apic_id >> 24 != x->cpu)
        return fail(e, "vCPU %u: its APIC says it is %u", x->cpu, apic_id >> 24);
    return 0;
}
