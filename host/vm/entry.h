/*
 * What host/vm/entry.S and the Host's C code agree on about the per-vCPU
 * area (struct host_cpu, host/vcpu.h): the words the entry code keeps
 * there, and the strides of its per-vCPU stubs.
 */
#ifndef PERCH_HOST_VM_ENTRY_H
#define PERCH_HOST_VM_ENTRY_H

#define HOST_CPU_SYSCALL_RSP  0    /* the guest's rsp at its `syscall` */
#define HOST_CPU_NATIVE_RIP   8    /* where resume_native's jmp goes */
#define HOST_CPU_NATIVE_TAIL  16   /* this vCPU's last step of resume_native */

/* One `syscall` entry per vCPU (its MSR_LSTAR), all in the first page. */
#define SYSCALL_ENTRY_STRIDE  32
#define NATIVE_TAIL_STRIDE    16

#endif
