/* The model-specific registers the Launcher sets or saves in a vCPU. */
#ifndef PERCH_X86_MSRS_H
#define PERCH_X86_MSRS_H

#define MSR_IA32_TSC      0x10
#define MSR_APIC_BASE     0x1b
#define MSR_SYSENTER_CS   0x174
#define MSR_SYSENTER_ESP  0x175
#define MSR_SYSENTER_EIP  0x176
#define MSR_PAT           0x277
#define MSR_EFER          0xc0000080
#define MSR_STAR          0xc0000081
#define MSR_LSTAR         0xc0000082
#define MSR_CSTAR         0xc0000083
#define MSR_SYSCALL_MASK  0xc0000084
#define MSR_FS_BASE       0xc0000100
#define MSR_GS_BASE       0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_TSC_AUX       0xc0000103
#define MSR_KVM_STEAL_TIME 0x4b564d03

#define APIC_BASE_BSP     (1u << 8)
#define APIC_BASE_ENABLE  (1u << 11)
#define KVM_MSR_ENABLED   1

/* STAR as perch sets it: the ring-0 selectors for completeness, the flat
 * user ones for sysret. */
#define PERCH_STAR ((uint64_t)(FLAT_RING3_CS32) << 48 | 0xe008ull << 32)

#endif
