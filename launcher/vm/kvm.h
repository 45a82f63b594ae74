/*
 * The KVM backend: one VM, one memslot, one vCPU in 64-bit long mode that
 * starts at CPL3 in the guest kernel, and the ioctls to run it. Nothing here
 * knows about Xen; vcpu_boot says what the first instruction sees.
 */
#ifndef PERCH_KVM_H
#define PERCH_KVM_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"
#include "guest_memory.h"

struct kvm_vm {
    int kvm_fd;
    int vm_fd;
    int vcpu_fd;
    struct kvm_run *run;
    size_t run_bytes;
    bool sync_regs;          /* KVM_CAP_SYNC_REGS: registers come with the exit */
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
};

/* Open /dev/kvm, create the VM and its vCPU, add guest memory as slot 0. */
int kvm_vm_create(struct kvm_vm *vm, const struct guest_memory *gm,
                  struct error *e);
void kvm_vm_destroy(struct kvm_vm *vm);

/* An eventfd signalled by any 4-byte store to `gpa` (no exit to user space). */
int kvm_doorbell(struct kvm_vm *vm, uint64_t gpa, int *fd, struct error *e);

int kvm_vcpu_boot(struct kvm_vm *vm, const struct vcpu_boot *boot,
                  struct error *e);

/* Run until the next exit: 0 on an exit to handle, 1 when a signal
 * interrupted it, -1 with e filled on failure. */
int kvm_vcpu_run(struct kvm_vm *vm, struct error *e);

/* Inject interrupt `vector` into the vCPU (an MSI to APIC 0 through the
 * in-kernel irqchip; safe from any thread). 0, or -1 if KVM refused it. */
int kvm_signal_msi(struct kvm_vm *vm, uint8_t vector);

/* The vCPU's TSC rate in kHz (0 if KVM does not say). */
uint32_t kvm_tsc_khz(struct kvm_vm *vm);

/* The vCPU's x87 and SSE state now, in FXSAVE's terms (from
 * KVM_GET_XSAVE's legacy area: KVM_GET_FPU reads MXCSR 0 on these hosts,
 * docs/kvm.md); 0, or -1. */
int kvm_vcpu_fpu(struct kvm_vm *vm, struct kvm_fpu *fpu);

/* The vCPU's rip at the last exit, for diagnostics. */
uint64_t kvm_vcpu_rip(struct kvm_vm *vm);

#endif
