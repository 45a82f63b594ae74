/* The events guest: what entry.S and events.c share. */
#ifndef EVENTS_GUEST_H
#define EVENTS_GUEST_H

#include "../../abi/xen/callback.h"
#include "../../abi/xen/event_channel.h"
#include "../../abi/xen/sched.h"
#include "../../abi/xen/vcpu.h"
#include "rt.h"

/* ---- entry.S ---- */

/* The registers event_callback and the trap entries save, lowest first. */
struct upcall_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t rip, cs, rflags, rsp, ss;
};

struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t error, rip, cs, rflags, rsp, ss;
};

extern char event_callback[];
extern char spin_loop_start[], spin_loop_end[];
extern char trap_0[], trap_1[], trap_2[], trap_3[], trap_4[], trap_5[],
    trap_6[], trap_7[], trap_8[], trap_10[], trap_11[], trap_12[], trap_13[],
    trap_14[], trap_16[], trap_17[], trap_18[], trap_19[];

uint64_t spin_with_patterns(volatile uint32_t *flag, uint64_t max_loops);
void event_upcall(struct upcall_frame *f);
_Noreturn void unexpected_trap(struct trap_frame *f, unsigned vector);

#endif
