/* The KVM VM and its vCPU: /dev/kvm, the memslot, the in-kernel LAPIC, registers, doorbells. */
#include "kvm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../abi/layout.h"
#include "x86_msrs.h"

static int open_kvm(struct kvm_vm *vm, struct error *e)
{
    vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (vm->kvm_fd < 0) {
        int err = errno;

        if (err == ENOENT)
            return fail(e, "/dev/kvm does not exist: this machine offers no KVM");
        if (err == EACCES || err == EPERM)
            return fail(e, "cannot open /dev/kvm: permission denied "
                        "(run as root or join the kvm group)");
        return fail(e, "cannot open /dev/kvm: %s", strerror(err));
    }
    if (ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
        return fail(e, "/dev/kvm speaks an unsupported KVM API version");
    return 0;
}

static int add_memory(struct kvm_vm *vm, const struct guest_memory *gm,
                      struct error *e)
{
    /* Frame 0 is the local APIC's (abi/layout.h, PERCH_APIC_GPA). */
    struct kvm_userspace_memory_region region = {
        .slot = 0,
        .guest_phys_addr = PAGE_SIZE,
        .memory_size = gm->bytes - PAGE_SIZE,
        .userspace_addr = (uintptr_t)gm->base + PAGE_SIZE,
    };

    if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
        return fail(e, "KVM_SET_USER_MEMORY_REGION (%lu MiB): %s",
                    gm->bytes >> 20, strerror(errno));
    return 0;
}

/* With the in-kernel irqchip every vCPU but the boot one would wait for
 * an INIT and a SIPI: perch's start them all at once, in the Host. */
static int create_vcpu(struct kvm_vm *vm, struct kvm_vcpu *v, unsigned id,
                       struct error *e)
{
    struct kvm_mp_state runnable = { .mp_state = KVM_MP_STATE_RUNNABLE };
    long bytes;

    v->id = id;
    v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, id);
    if (v->fd < 0)
        return fail(e, "KVM_CREATE_VCPU %u: %s", id, strerror(errno));
    bytes = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
    if (bytes < (long)sizeof(struct kvm_run))
        return fail(e, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
    v->run = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
    if (v->run == MAP_FAILED) {
        v->run = NULL;
        return fail(e, "mmap of vCPU %u's run area: %s", id, strerror(errno));
    }
    v->run_bytes = bytes;
    v->sync_regs = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SYNC_REGS) > 0;
    if (v->sync_regs)
        v->run->kvm_valid_regs = KVM_SYNC_X86_REGS;
    if (id && ioctl(v->fd, KVM_SET_MP_STATE, &runnable) < 0)
        return fail(e, "KVM_SET_MP_STATE for vCPU %u: %s", id, strerror(errno));
    kvm_stats_open(&v->stats, v->fd);
    return 0;
}

#define BIT(n) (1u << (n))

/* Feature bits of state perch never lets the guest kernel save: PKU and
 * OSPKE (7.0 ecx), AMX's tiles (7.0 edx BF16, TILE, INT8; 7.1 eax FP16),
 * and XFD (0xd.1 eax), which only serves them. */
static void hide_bits(struct kvm_cpuid_entry2 *c)
{
    if (c->function == 7 && c->index == 0) {
        c->ecx &= ~(BIT(3) | BIT(4));
        c->edx &= ~(BIT(22) | BIT(24) | BIT(25));
    } else if (c->function == 7 && c->index == 1) {
        c->eax &= ~BIT(21);
    } else if (c->function == 0xd && c->index == 1) {
        c->eax &= ~BIT(4);
    }
}

void kvm_cpuid_hide_unsaved_state(struct kvm_cpuid2 *cpuid)
{
    for (uint32_t i = 0; i < cpuid->nent; i++) {
        struct kvm_cpuid_entry2 *c = &cpuid->entries[i];

        hide_bits(c);
        if (c->function == 0xd && c->index == 0) {
            c->eax &= (uint32_t)PERCH_XCR0_OFFERED;
            c->edx &= (uint32_t)(PERCH_XCR0_OFFERED >> 32);
        } else if ((c->function == 0xd && c->index >= 2 && c->index < 64 &&
                    !(PERCH_XCR0_OFFERED >> c->index & 1)) ||
                   c->function == 0x1d || c->function == 0x1e) {
            c->eax = c->ebx = c->ecx = c->edx = 0;    /* AMX's palettes and tiles */
        }
    }
}

/*
 * The vCPU's CPUID: what KVM supports, less the state the guest kernel
 * cannot save. On AMD PVM hosts guest code reads the real CPU whatever
 * this says; on Intel ones this is what guest processes read (docs/kvm.md),
 * so there well-behaved programs leave PKRU and AMX alone. It does not
 * stop an instruction.
 */
static int set_cpuid(struct kvm_vm *vm, struct kvm_vcpu *v, struct error *e)
{
    int n = 256;
    struct kvm_cpuid2 *cpuid = calloc(1, sizeof(*cpuid) +
                                      n * sizeof(struct kvm_cpuid_entry2));
    int rc = 0;

    if (!cpuid)
        return fail(e, "out of memory");
    cpuid->nent = n;
    if (ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid) < 0)
        rc = fail(e, "KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
    else
        kvm_cpuid_hide_unsaved_state(cpuid);
    if (!rc && ioctl(v->fd, KVM_SET_CPUID2, cpuid) < 0)
        rc = fail(e, "setting the vCPU's CPUID: %s", strerror(errno));
    free(cpuid);
    return rc;
}

void kvm_vm_init(struct kvm_vm *vm)
{
    memset(vm, 0, sizeof(*vm));
    vm->kvm_fd = vm->vm_fd = -1;
}

int kvm_vm_create(struct kvm_vm *vm, const struct guest_memory *gm,
                  unsigned nr_vcpus, struct error *e)
{
    kvm_vm_init(vm);
    if (nr_vcpus < 1 || nr_vcpus > PERCH_MAX_VCPUS)
        return fail(e, "internal: %u vCPUs", nr_vcpus);
    if (open_kvm(vm, e))
        return -1;
    vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
    if (vm->vm_fd < 0)
        return fail(e, "KVM_CREATE_VM: %s", strerror(errno));
    /* The in-kernel local APIC: the Host drives its timer through MMIO,
     * and `hlt` with an interrupt pending is handled without an exit. */
    if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
        return fail(e, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
    if (add_memory(vm, gm, e))
        return -1;
    for (unsigned i = 0; i < nr_vcpus; i++) {
        vm->vcpus[i].fd = vm->vcpus[i].stats.fd = -1;
        vm->nr_vcpus = i + 1;
        if (create_vcpu(vm, &vm->vcpus[i], i, e) || set_cpuid(vm, &vm->vcpus[i], e))
            return -1;
    }
    return 0;
}

void kvm_vm_destroy(struct kvm_vm *vm)
{
    for (unsigned i = 0; i < vm->nr_vcpus; i++) {
        struct kvm_vcpu *v = &vm->vcpus[i];

        if (v->run)
            munmap(v->run, v->run_bytes);
        kvm_stats_close(&v->stats);
        if (v->fd >= 0)
            close(v->fd);
    }
    if (vm->vm_fd >= 0)
        close(vm->vm_fd);
    if (vm->kvm_fd >= 0)
        close(vm->kvm_fd);
    kvm_vm_init(vm);
}

bool kvm_vm_counts(const struct kvm_vm *vm, uint64_t sum[KVM_COUNTS])
{
    bool known = vm->nr_vcpus > 0;

    memset(sum, 0, KVM_COUNTS * sizeof(sum[0]));
    for (unsigned i = 0; i < vm->nr_vcpus; i++)
        known &= kvm_stats_add(&vm->vcpus[i].stats, sum);
    return known;
}

int kvm_doorbell(struct kvm_vm *vm, uint64_t gpa, int *fd, struct error *e)
{
    struct kvm_ioeventfd ioe = { .addr = gpa, .len = 4 };

    *fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (*fd < 0)
        return fail(e, "eventfd: %s", strerror(errno));
    ioe.fd = *fd;
    if (ioctl(vm->vm_fd, KVM_IOEVENTFD, &ioe) < 0)
        return fail(e, "KVM_IOEVENTFD: %s", strerror(errno));
    return 0;
}

static struct kvm_segment flat_segment(uint16_t selector, bool code)
{
    struct kvm_segment s = {
        .base = 0, .limit = 0xffffffff, .selector = selector,
        .type = code ? 0xb : 0x3, .present = 1, .dpl = selector & 3,
        .db = !code, .s = 1, .l = code, .g = 1,
    };
    return s;
}

static int set_sregs(struct kvm_vcpu *vm, const struct vcpu_boot *b,
                     struct error *e)
{
    struct kvm_sregs s;
    struct kvm_segment null_seg = { .unusable = 1 };

    if (ioctl(vm->fd, KVM_GET_SREGS, &s) < 0)
        return fail(e, "KVM_GET_SREGS: %s", strerror(errno));
    s.cs = flat_segment(b->cs, true);
    s.ss = flat_segment(b->ss, false);
    s.ds = s.es = s.fs = s.gs = null_seg;
    s.tr = (struct kvm_segment){
        .base = b->tss_base, .limit = 0x67, .selector = b->tss_selector,
        .type = 0xb, .present = 1,
    };
    s.ldt = null_seg;
    s.gdt.base = b->gdt_base;
    s.gdt.limit = 0xffff;
    s.idt.base = b->idt_base;
    s.idt.limit = 0xfff;
    s.cr0 = PERCH_VCPU_CR0;
    s.cr3 = b->cr3;
    s.cr4 = PERCH_VCPU_CR4;
    s.efer = PERCH_VCPU_EFER;
    if (ioctl(vm->fd, KVM_SET_SREGS, &s) < 0)
        return fail(e, "KVM_SET_SREGS: %s", strerror(errno));
    return 0;
}

/*
 * KVM's steal time: KVM writes how long this vCPU's thread waited for a
 * host CPU into the area at gpa, on every entry into the vCPU (the Host
 * turns it into Xen's runnable time). A KVM without it leaves the area
 * zero: no steal, nothing else lost.
 */

static void set_steal_time(struct kvm_vcpu *vm, uint64_t gpa)
{
    struct {
        struct kvm_msrs head;
        struct kvm_msr_entry entry;
    } m = { .head.nmsrs = 1, .entry = { .index = MSR_KVM_STEAL_TIME, .data = gpa | KVM_MSR_ENABLED } };

    if (gpa)
        (void)ioctl(vm->fd, KVM_SET_MSRS, &m);
}

/*
 * `syscall` at CPL3 lands at LSTAR, still at CPL3 (docs/kvm.md); SFMASK 0
 * keeps the interrupt flag as it was. STAR names the ring-0 selectors for
 * completeness and the flat user selectors for sysret.
 */
static int set_msrs(struct kvm_vcpu *vm, const struct vcpu_boot *b,
                    struct error *e)
{
    struct {
        struct kvm_msrs head;
        struct kvm_msr_entry entries[9];
    } m = { .head.nmsrs = 9 };
    const struct kvm_msr_entry values[9] = {
        { .index = MSR_STAR, .data = PERCH_STAR },
        { .index = MSR_LSTAR, .data = b->lstar },
        { .index = MSR_CSTAR, .data = 0 },
        { .index = MSR_SYSCALL_MASK, .data = 0 },
        { .index = MSR_FS_BASE, .data = 0 },
        { .index = MSR_GS_BASE, .data = 0 },
        { .index = MSR_KERNEL_GS_BASE, .data = 0 },
        { .index = MSR_TSC_AUX, .data = vm->id },
        { .index = MSR_APIC_BASE,
          .data = PERCH_APIC_GPA | APIC_BASE_ENABLE | (vm->id ? 0 : APIC_BASE_BSP) },
    };

    memcpy(m.entries, values, sizeof(values));
    if (ioctl(vm->fd, KVM_SET_MSRS, &m) != 9)
        return fail(e, "KVM_SET_MSRS: the vCPU refused a syscall MSR");
    set_steal_time(vm, b->steal_gpa);
    return 0;
}

int kvm_vcpu_boot(struct kvm_vcpu *vm, const struct vcpu_boot *boot,
                  struct error *e)
{
    struct kvm_regs regs = {
        .rip = boot->rip, .rsp = boot->rsp, .rsi = boot->rsi,
        .rflags = boot->rflags,
    };

    if (set_sregs(vm, boot, e) || set_msrs(vm, boot, e))
        return -1;
    if (ioctl(vm->fd, KVM_SET_REGS, &regs) < 0)
        return fail(e, "KVM_SET_REGS: %s", strerror(errno));
    return 0;
}

int kvm_vcpu_run(struct kvm_vcpu *vcpu, struct error *e)
{
    if (ioctl(vcpu->fd, KVM_RUN, 0) == 0)
        return 0;
    if (errno == EINTR || errno == EAGAIN)
        return 1;
    return fail(e, "KVM_RUN: %s", strerror(errno));
}

/* The legacy area's layout (SDM vol. 1, "FXSAVE"), which KVM fills with
 * the init values of a component the guest left in its init state. */
int kvm_vcpu_fpu(struct kvm_vcpu *vm, struct kvm_fpu *fpu)
{
    static struct kvm_xsave x;   /* 4 KiB; the vCPU thread's alone */
    const uint8_t *a = (const uint8_t *)x.region;

    if (ioctl(vm->fd, KVM_GET_XSAVE, &x) < 0)
        return -1;
    memset(fpu, 0, sizeof(*fpu));
    memcpy(&fpu->fcw, a + 0, 2);
    memcpy(&fpu->fsw, a + 2, 2);
    fpu->ftwx = a[4];
    memcpy(&fpu->last_opcode, a + 6, 2);
    memcpy(&fpu->last_ip, a + 8, 8);
    memcpy(&fpu->last_dp, a + 16, 8);
    memcpy(&fpu->mxcsr, a + 24, 4);
    memcpy(fpu->fpr, a + 32, sizeof(fpu->fpr));
    memcpy(fpu->xmm, a + 160, sizeof(fpu->xmm));
    return 0;
}

bool kvm_vcpu_awaits_sipi(struct kvm_vcpu *vcpu)
{
    struct kvm_mp_state mp;

    return ioctl(vcpu->fd, KVM_GET_MP_STATE, &mp) == 0 &&
           (mp.mp_state == KVM_MP_STATE_INIT_RECEIVED ||
            mp.mp_state == KVM_MP_STATE_SIPI_RECEIVED);
}

uint64_t kvm_vcpu_rip(struct kvm_vcpu *vm)
{
    struct kvm_regs regs;

    if (vm->sync_regs)
        return vm->run->s.regs.regs.rip;
    if (ioctl(vm->fd, KVM_GET_REGS, &regs) < 0)
        return 0;
    return regs.rip;
}

/* Fixed delivery, physical destination: APIC ID in bits 12-19 of the
 * address, the vector in the data. */
int kvm_signal_msi(struct kvm_vm *vm, unsigned cpu, uint8_t vector)
{
    struct kvm_msi msi = {
        .address_lo = (uint32_t)PERCH_MSI_ADDRESS | (cpu << 12),
        .data = vector,
    };

    return ioctl(vm->vm_fd, KVM_SIGNAL_MSI, &msi) < 0 ? -1 : 0;
}

int kvm_vcpu_set_tsc_khz(struct kvm_vcpu *vcpu, uint32_t khz)
{
    return ioctl(vcpu->fd, KVM_SET_TSC_KHZ, (unsigned long)khz) < 0 ? -1 : 0;
}

uint32_t kvm_tsc_khz(struct kvm_vm *vm)
{
    int khz = ioctl(vm->vcpus[0].fd, KVM_GET_TSC_KHZ, 0);

    return khz > 0 ? (uint32_t)khz : 0;
}
