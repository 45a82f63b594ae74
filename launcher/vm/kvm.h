/*
 * The KVM backend: one VM, one memslot, its vCPUs in 64-bit long mode, each
 * starting at CPL3 in the Host, and the ioctls to run them. Nothing here
 * knows about Xen; vcpu_boot says what a vCPU's first instruction sees.
 */
#ifndef PERCH_KVM_H
#define PERCH_KVM_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../abi/layout.h"
#include "../base/error.h"
#include "guest_memory.h"
#include "kvm_stats.h"

struct kvm_vcpu {
    int fd;
    unsigned id;             /* KVM's vCPU id, its APIC ID, Xen's vcpu_id */
    struct kvm_run *run;
    size_t run_bytes;
    bool sync_regs;          /* KVM_CAP_SYNC_REGS: registers come with the exit */
    struct kvm_stats stats;  /* KVM's own counts of this vCPU */
};

struct kvm_vm {
    int kvm_fd;
    int vm_fd;
    unsigned nr_vcpus;
    struct kvm_vcpu vcpus[PERCH_MAX_VCPUS];
};

/* Clear from a KVM CPUID table the XSAVE state and features perch never
 * lets the guest kernel save (PKRU, AMX: abi/layout.h PERCH_XCR0_OFFERED). */
void kvm_cpuid_hide_unsaved_state(struct kvm_cpuid2 *cpuid);

/* The vCPU's state at its first instruction. */
struct vcpu_boot {
    uint64_t rip, rsp, rsi, rflags;
    uint64_t cr3;
    uint64_t gdt_base, idt_base, tss_base;
    uint16_t cs, ss, tss_selector;
    uint64_t lstar;          /* where `syscall` goes: the Host */
    uint64_t steal_gpa;      /* KVM's steal-time area for it (64-byte aligned) */
};

/* Open /dev/kvm, create the VM and nr_vcpus vCPUs (1 to PERCH_MAX_VCPUS,
 * all runnable: none waits for a SIPI), add guest memory as slot 0. */
int kvm_vm_create(struct kvm_vm *vm, const struct guest_memory *gm,
                  unsigned nr_vcpus, struct error *e);
/* Before kvm_vm_create: nothing open, so kvm_vm_destroy does nothing. */
void kvm_vm_init(struct kvm_vm *vm);
void kvm_vm_destroy(struct kvm_vm *vm);

/* KVM's counts summed over every vCPU (sum[], KVM_COUNTS of them): false
 * when this KVM keeps none (then all 0). Any thread may ask, any time. */
bool kvm_vm_counts(const struct kvm_vm *vm, uint64_t sum[KVM_COUNTS]);

/* An eventfd signalled by any 4-byte store to `gpa` (no exit to user space). */
int kvm_doorbell(struct kvm_vm *vm, uint64_t gpa, int *fd, struct error *e);

/* Also sets MSR_TSC_AUX to the vCPU's id, as Linux does for its CPU
 * number (RDPID and RDTSCP read it in guest processes). */
int kvm_vcpu_boot(struct kvm_vcpu *vcpu, const struct vcpu_boot *boot,
                  struct error *e);

/* Run until the next exit: 0 on an exit to handle, 1 when a signal
 * interrupted it, -1 with e filled on failure. */
int kvm_vcpu_run(struct kvm_vcpu *vcpu, struct error *e);

/* Inject interrupt `vector` into vCPU `cpu` (an MSI to its APIC, whose id
 * is its number, through the in-kernel irqchip; safe from any thread). 0,
 * or -1 if KVM refused it. */
int kvm_signal_msi(struct kvm_vm *vm, unsigned cpu, uint8_t vector);

/* Make the vCPU's TSC tick at khz (KVM scales it where the CPU can). 0,
 * or -1. */
int kvm_vcpu_set_tsc_khz(struct kvm_vcpu *vcpu, uint32_t khz);

/* The vCPUs' TSC rate in kHz (0 if KVM does not say). */
uint32_t kvm_tsc_khz(struct kvm_vm *vm);

/* The vCPU's x87 and SSE state now, in FXSAVE's terms (from
 * KVM_GET_XSAVE's legacy area: KVM_GET_FPU reads MXCSR 0 on these hosts,
 * docs/kvm.md); 0, or -1. */
int kvm_vcpu_fpu(struct kvm_vcpu *vcpu, struct kvm_fpu *fpu);

/* Did an INIT (through the local APIC: the guest kernel may write it)
 * leave the vCPU waiting for a SIPI? KVM holds such a vCPU inside
 * KVM_RUN, which only a signal ends. */
bool kvm_vcpu_awaits_sipi(struct kvm_vcpu *vcpu);

/* The vCPU's rip at the last exit, for diagnostics. */
uint64_t kvm_vcpu_rip(struct kvm_vcpu *vcpu);

#endif
