/*
 * What host/env/entry.S and the Host's C code agree on about the per-vCPU
 * area (struct host_cpu, host/core/vcpu.h): the words the entry code keeps
 * there, and the strides of its per-vCPU stubs.
 */
#ifndef PERCH_HOST_VM_ENTRY_H
#define PERCH_HOST_VM_ENTRY_H

#define HOST_CPU_SYSCALL_RSP  0    /* the guest's rsp at its `syscall` */
#define HOST_CPU_NATIVE_RIP   8    /* where resume_native's jmp goes */
#define HOST_CPU_NATIVE_TAIL  16   /* this vCPU's last step of resume_native */
#define HOST_CPU_ENTRY_GS     24   /* the GS base it was last resumed with */
#define HOST_CPU_LANDING_LOCK 32   /* its `syscall` entry's scratch: taken, */
#define HOST_CPU_LANDING_RAX  40   /* and the rax it keeps there */

/* entry_gs in guest user with several vCPUs: a non-canonical value, which
 * no GS base ever equals, so every `syscall` from there takes the gate. */
#define ENTRY_GS_NONE         0x8000000000000000

/* One `syscall` entry per vCPU (its MSR_LSTAR), from the first page on. */
#define SYSCALL_ENTRY_STRIDE  128
/* Where in its entry the `ud2` of an entry unsure of its vCPU sits. */
#define SYSCALL_ENTRY_UNSURE  3
#define NATIVE_TAIL_STRIDE    16
/* The bytes of the direct entry's first two instructions, which keep rax
 * and rcx below the guest's rsp. */
#define DIRECT_ENTRY_STORES   10

#ifndef __ASSEMBLER__
#include <stdint.h>
/* The end of the last vCPU's area: where the direct entry's search for its
 * vCPU stops (set at boot from the vCPU count). */
extern uint64_t host_cpus_end;
#endif

#endif
