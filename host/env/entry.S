/*
 * How the Host is entered and left. Everything here runs at CPL3.
 *
 * Hypercalls: a guest-kernel `syscall` jumps to MSR_LSTAR at CPL3 on these
 * machines (docs/kvm.md), so host_syscall_entry is LSTAR: it saves the
 * registers as a struct cpu_regs on the Host stack, calls host_hypercall()
 * and returns to the guest with a plain `jmp`: no ring 0 at all.
 *
 * Events through DPL3 gates (CPL3 events, the default for the kernel
 * view): the CPU itself pushes its frame at the top of the vector's IST page
 * and enters host_cpl3_vector_entries + N * 32 at CPL3, no ring 0 at all;
 * the entry moves to a Host stack and copies the frame into a struct
 * cpu_regs.
 *
 * Events through the Switcher (the user view, int3, and everything with
 * --no-cpl3-events): the stub for vector N iretq's to host_vector_entries +
 * N * 16 on the Host stack (interrupts: the IRQ stack), with the guest's
 * registers untouched and the CPU's frame left at the top of that vector's
 * IST page; the entry copies it the same way.
 *
 * Leaving is host/entry/guest_resume.c's choice of the three ways at the end.
 */
#include "../../abi/layout.h"
#include "../../lib/gprs.h"
#include "../core/entry.h"

    .section .entry, "ax"
/*
 * One `syscall` entry per vCPU, its MSR_LSTAR: each keeps the guest's rsp
 * in its vCPU's area and takes its vCPU's stack; the rest is shared.
 *
 * But this machine's hypervisor does not always land a `syscall` at its
 * own vCPU's LSTAR: under load a vCPU has been seen to land at another's
 * (docs/kvm.md, "Several vCPUs"), which would run two vCPUs on one Host
 * stack. So an entry first proves it serves its own vCPU, touching nothing
 * of that vCPU's until it has: the guest's GS base must be the one its
 * vCPU was last resumed with (entry_gs, set by host/entry/guest_resume.c; a
 * guest kernel's per-CPU base, distinct on every vCPU). rax is the only
 * register it needs; it keeps it in the entry's landing slot, which
 * another vCPU landing at the same entry may want too, hence the lock.
 * An entry that cannot prove it asks the CPU instead: its `ud2`, whose #UD
 * the CPU delivers on the IST page of the vCPU it really is; the Host
 * makes the hypercall from there (host/entry/trap.c), one trap more. (`int n`
 * would say it plainer, but PVM turns it into a #UD too.)
 *
 * The first instruction is a nop: a `syscall` gdb steps traps only after
 * it (host/entry/gdb.c), and it changes nothing.
 */
#define CPU_WORD(word) (host_cpu0 + (word) + cpu * PERCH_CPU_STRIDE)(%rip)
    .balign SYSCALL_ENTRY_STRIDE     /* vCPU i's entry is i strides on */
    .global host_syscall_entry
/* tour syscall.7: the guest kernel's iret is a hypercall: `syscall` at CPL3 jumps here, no trap */
/* tour multicall.1: every hypercall arrives here the same way: registers saved, host_hypercall */
host_syscall_entry:
    .set cpu, 0
    .rept PERCH_MAX_VCPUS
    .balign SYSCALL_ENTRY_STRIDE
    nop                             /* +0 */
    .byte 0xeb, 2                   /* +1: a short jmp over the ud2 */
2:  ud2                             /* +3: SYSCALL_ENTRY_UNSURE */
    lock btsq $0, CPU_WORD(HOST_CPU_LANDING_LOCK)
    jc 3f
    mov %rax, CPU_WORD(HOST_CPU_LANDING_RAX)
    rdgsbase %rax
    cmp CPU_WORD(HOST_CPU_ENTRY_GS), %rax
    mov CPU_WORD(HOST_CPU_LANDING_RAX), %rax    /* mov keeps the flags */
    movq $0, CPU_WORD(HOST_CPU_LANDING_LOCK)
    jne 2b
    mov %rsp, CPU_WORD(HOST_CPU_SYSCALL_RSP)
    lea (host_cpu0_exc_top + cpu * PERCH_CPU_STRIDE)(%rip), %rsp
    jmp syscall_common
3:  pause
    jmp 2b + 2
    .set cpu, cpu + 1
    .endr

/* rsp: the top of this vCPU's exception stack, its area below. */
syscall_common:
    pushq $2                        /* clear DF, AC and TF for the C code; */
    popfq                           /* IF is not CPL3's to change */
    pushq $PERCH_VECTOR_SYSCALL
    pushq $0                        /* error_code */
    pushq $FLAT_KERNEL_SS64
    /* the guest's rsp, kept by the entry: rsp + 24 is the stack's top */
    pushq (HOST_CPU_SYSCALL_RSP - (HOST_CPU_EXC_TOP - HOST_CPU_VA) + 24)(%rsp)
    pushq %r11                      /* rflags, as `syscall` left it */
    pushq $FLAT_KERNEL_CS64
    pushq %rcx                      /* return rip */
    SAVE_GPRS
    mov %rsp, %rdi
    call host_hypercall
    RESTORE_GPRS
    /* rsp -> rip, cs, rflags, rsp, ss. `syscall` clobbers rcx and r11 by
     * definition: they carry rip and rflags back, as sysret would. */
    mov 0(%rsp), %rcx
    mov 16(%rsp), %r11
    pushq 16(%rsp)
    popfq
    mov 24(%rsp), %rsp
    jmp *%rcx

/*
 * The direct entry: the guest kernel's patched hypercall and iret jump here
 * at CPL3 (host/cpu/direct_calls.h), no trap, with one word pushed: ~0 for
 * a hypercall, its caller's return address above it; otherwise an iret's
 * flags, Xen's iret frame above them, rax, rcx and r11 in their registers.
 * One entry serves every vCPU: it finds its own by the guest's GS base, as
 * the `syscall` entries prove theirs (a guest kernel's per-CPU base, noted
 * for each vCPU by host/entry/guest_resume.c). rax and rcx wait below the
 * guest's rsp meanwhile: Linux keeps no red zone there, and nothing else
 * writes there while the Host runs. No match: the `ud2`, whose #UD comes on
 * the vCPU's own IST page, and the Host serves the call from there.
 * host/entry/hypercall.c takes the rest from the guest's stack.
 */
    .global host_direct_entry, host_direct_entry_unsure
host_direct_entry:
    mov %rax, -8(%rsp)
    mov %rcx, -16(%rsp)
    rdgsbase %rcx
    lea host_cpu0(%rip), %rax
1:  cmp HOST_CPU_ENTRY_GS(%rax), %rcx
    je 2f
    add $PERCH_CPU_STRIDE, %rax
    cmp host_cpus_end(%rip), %rax
    jb 1b
host_direct_entry_unsure:
    ud2
2:  mov %rsp, HOST_CPU_SYSCALL_RSP(%rax)
    lea (HOST_CPU_EXC_TOP - HOST_CPU_VA)(%rax), %rsp
    pushq $PERCH_VECTOR_SYSCALL
    pushq $0                        /* error_code */
    pushq $FLAT_KERNEL_SS64
    pushq HOST_CPU_SYSCALL_RSP(%rax)
    pushfq
    pushq $FLAT_KERNEL_CS64
    pushq $0                        /* rip: from the guest's stack */
    pushq $2                        /* clear DF, AC and TF for the C code */
    popfq
    SAVE_GPRS
    mov %rsp, %rdi
    call host_direct_call           /* leaves through guest_resume */
    ud2

/* Every vCPU's first instruction, on its own exception stack (the
 * Launcher sets rsp): the Host sets itself up, then enters the guest
 * (host/entry/boot.c), or for vCPUs past the first waits to be brought up. */
    .global host_boot_entry
host_boot_entry:
    sub $22*8, %rsp                 /* a struct cpu_regs */
    mov %rsp, %rdi
    call host_boot
    ud2

/*
 * Copy the CPU's frame from the top of this vCPU's IST page `ist_top`
 * (vCPU 0's address): ss, rsp, rflags, cs, rip at -8 .. -40, the error
 * code at -48 when the vector has one. The entry came on this vCPU's Host
 * stack `host_top` (vCPU 0's) with the vector pushed, so the IST page is
 * a fixed distance from rsp: every vCPU's blocks are the same stride apart.
 * IST_WORD(off, pushed): the word at ist_top - off, `pushed` words after
 * the vector.
 */
/* tour syscall.3: the CPU's frame comes off the IST page into a struct cpu_regs on the Host stack */
/* tour fault.2: the same copy for the #PF, whichever road it came by */
#define IST_WORD(off, pushed) \
    ((\ist_top) - (off) - ((\host_top) - 8 - 8 * (pushed)))(%rsp)
.macro TRAP_COMMON name, ist_top, host_top, has_error, handler=host_trap
\name:
    .if \has_error
    pushq IST_WORD(48, 0)
    .else
    pushq $0
    .endif
    pushq IST_WORD(8, 1)
    pushq IST_WORD(16, 2)
    pushq IST_WORD(24, 3)
    pushq IST_WORD(32, 4)
    pushq IST_WORD(40, 5)
    SAVE_GPRS
    mov %rsp, %rdi
    call \handler          /* does not return: it leaves through guest_resume */
    ud2
.endm

#define EXC_IST  SW_STACK_TOP(SW_EXC_STACK_VA)
#define IRQ_IST  SW_STACK_TOP(SW_IRQ_STACK_VA)
#define BP_IST   SW_STACK_TOP(SW_BP_STACK_VA)
#define UBP_IST  SW_STACK_TOP(SW_USER_BP_STACK_VA)

    .text
    TRAP_COMMON trap_exception, EXC_IST, HOST_CPU_EXC_TOP, 0
    TRAP_COMMON trap_exception_error, EXC_IST, HOST_CPU_EXC_TOP, 1
    TRAP_COMMON trap_breakpoint, BP_IST, HOST_CPU_EXC_TOP, 0
    TRAP_COMMON trap_interrupt, IRQ_IST, HOST_CPU_IRQ_TOP, 0
    TRAP_COMMON user_trap_exception, EXC_IST, HOST_CPU_EXC_TOP, 0, host_trap_user
    TRAP_COMMON user_trap_exception_error, EXC_IST, HOST_CPU_EXC_TOP, 1, host_trap_user
    TRAP_COMMON user_trap_breakpoint, UBP_IST, HOST_CPU_EXC_TOP, 0, host_trap_user
    TRAP_COMMON user_trap_interrupt, IRQ_IST, HOST_CPU_IRQ_TOP, 0, host_trap_user
    TRAP_COMMON cpl3_exception, EXC_IST, HOST_CPU_EXC_TOP, 0, host_trap_cpl3
    TRAP_COMMON cpl3_exception_error, EXC_IST, HOST_CPU_EXC_TOP, 1, host_trap_cpl3

/*
 * An interrupt through a DPL3 interrupt gate: IF is off until the Host
 * leaves, so its frame on the IRQ IST page is safe and no interrupt
 * handler is ever interrupted. It may find the Host at work on a hypercall
 * or an exception (those run with IF on): if the interrupted rsp is on
 * this vCPU's Host stacks, the handler goes on below it (the Host has no
 * red zone); otherwise it takes the IRQ stack, which only interrupt
 * handlers use. rcx holds this vCPU's IST top throughout, and the test
 * is on the interrupted rsp's distance from it: the same for every vCPU.
 */
#define STACKS_FROM_IST(va) ((va) - IRQ_IST)
cpl3_interrupt:
    push %rax
    push %rcx
    lea 64(%rsp), %rcx                        /* IST top: frame, vector, rax, rcx */
    mov -16(%rcx), %rax                       /* the interrupted rsp */
    sub %rcx, %rax
    cmp $STACKS_FROM_IST(HOST_CPU_STACK_VA), %rax
    jl 1f
    cmp $STACKS_FROM_IST(HOST_CPU_IRQ_TOP), %rax
    jle 2f
1:  mov $STACKS_FROM_IST(HOST_CPU_IRQ_TOP), %rax
2:  add %rcx, %rax
    mov %rax, %rsp
    pushq -48(%rcx)                           /* vector */
    pushq $0                                  /* error code */
    pushq -8(%rcx)
    pushq -16(%rcx)
    pushq -24(%rcx)
    pushq -32(%rcx)
    pushq -40(%rcx)
    mov -56(%rcx), %rax
    mov -64(%rcx), %rcx
    SAVE_GPRS
    mov %rsp, %rdi
    call host_interrupt_cpl3
    ud2

/* Vectors 8, 10-14, 17, 21, 29 and 30 push an error code. */
#define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || \
                      (v) == 21 || (v) == 29 || (v) == 30)

/* One entry per vector, 16 bytes apart; `prefix` names the common code. */
.macro VECTOR_ENTRIES prefix
    .set vec, 0
    .rept 256
    .balign 16
    pushq $vec
    .if vec == 3
    jmp \prefix\()breakpoint
    .elseif vec >= 32
    jmp \prefix\()interrupt
    .elseif HAS_ERROR(vec)
    jmp \prefix\()exception_error
    .else
    jmp \prefix\()exception
    .endif
    .set vec, vec + 1
    .endr
.endm

    .balign 16
    .global host_vector_entries
host_vector_entries:
    VECTOR_ENTRIES trap_
    .balign 16
    .global host_user_vector_entries
host_user_vector_entries:
    VECTOR_ENTRIES user_trap_

/*
 * The DPL3 gates' entries, 32 bytes apart. Exceptions come only from guest
 * code (the Host never faults on purpose), so the Host stack is free;
 * interrupts choose their stack in cpl3_interrupt.
 */
    .balign 32
    .global host_cpl3_vector_entries
/* tour fault.8: a guest-kernel #PF comes through its DPL3 gate straight here: no ring 0 */
host_cpl3_vector_entries:
    .set vec, 0
    .rept 256
    .balign 32
    .if vec >= 32
    pushq $vec
    jmp cpl3_interrupt
    .else
    /* this vCPU's exception stack, from where the CPU left rsp */
    .if HAS_ERROR(vec)
    lea (HOST_CPU_EXC_TOP - (EXC_IST - 48))(%rsp), %rsp
    .else
    lea (HOST_CPU_EXC_TOP - (EXC_IST - 40))(%rsp), %rsp
    .endif
    pushq $vec
    .if HAS_ERROR(vec)
    jmp cpl3_exception_error
    .else
    jmp cpl3_exception
    .endif
    .endif
    .set vec, vec + 1
    .endr

/*
 * Leaving the Host for the guest, three ways (host/entry/guest_resume.c chooses):
 *
 * switcher_resume(regs): through the RESUME gate, one ring-0 visit; needed
 *   when the interrupt flag must come back on (the Host ran an interrupt
 *   with it off) or the frame is the Host's own.
 * switcher_resume_cr3(regs, cr3): through the CR3_RESUME gate: load cr3
 *   (which flushes the TLB) and resume, one visit: entering guest user, or
 *   a pending flush. rax and the frame go to the vCPU's SW_RESUME_FRAME first, since
 *   the Host's stack is not mapped in a user view.
 * resume_native(regs): no ring 0 at all: every register restored, then
 *   popf, the guest's rsp and a jmp. For guest frames in the current
 *   address space, with the interrupt flag already on. The vCPU's
 *   native_rip slot is safe: only an interrupt can come between its store
 *   and the jmp, and an interrupt that finds the Host leaves through
 *   switcher_resume.
 */
    .global switcher_resume
switcher_resume:
    mov %rdi, %rsp
    RESTORE_GPRS
    jmp switcher_gate_resume

    .global switcher_resume_cr3
switcher_resume_cr3:
    mov %rdi, %rax                  /* regs are on this vCPU's Host stack: */
    and $-PERCH_CPU_STRIDE, %rax    /* its area, and a fixed step from it */
    add $(SW_RESUME_FRAME - HOST_CPU_VA), %rax   /* its resume frame */
    mov %rsi, -8(%rax)              /* the CR3, below the frame */
    .irp word, 0, 1, 2, 3, 4, 5     /* rax, rip, cs, rflags, rsp, ss */
    mov (14 + \word) * 8(%rdi), %rcx
    mov %rcx, \word * 8(%rax)
    .endr
    mov %rax, 20 * 8(%rdi)          /* the frame's address, as error_code */
    mov %rdi, %rsp
    RESTORE_GPRS
    mov 5 * 8(%rsp), %rsp           /* rsp -> [rax][frame] */
    mov -8(%rsp), %rax
    jmp switcher_gate_cr3_resume

/* The last jmp goes through this vCPU's area, reached from a tail of its
 * own: once rsp is the guest's, no register is left to find the area. */
    .global resume_native
resume_native:
    mov %rdi, %rax
    and $-PERCH_CPU_STRIDE, %rax
    mov 15 * 8(%rdi), %rcx
    mov %rcx, HOST_CPU_NATIVE_RIP(%rax)
    mov HOST_CPU_NATIVE_TAIL(%rax), %rcx
    mov %rcx, 20 * 8(%rdi)          /* the tail, as error_code */
    mov %rdi, %rsp
    RESTORE_GPRS
    pushq 16(%rsp)                  /* rflags; the IF bit is ignored at CPL3 */
    popfq
    jmp *5 * 8(%rsp)

    .balign NATIVE_TAIL_STRIDE       /* vCPU i's tail is i strides on */
    .global host_native_tails
host_native_tails:
    .set cpu, 0
    .rept PERCH_MAX_VCPUS
    .balign NATIVE_TAIL_STRIDE
    mov 24(%rsp), %rsp
    jmp *(host_cpu0 + HOST_CPU_NATIVE_RIP + cpu * PERCH_CPU_STRIDE)(%rip)
    .set cpu, cpu + 1
    .endr

/* void env_switcher_roundtrip(void): an iret frame back to ourselves. */
    .global env_switcher_roundtrip
env_switcher_roundtrip:
    lea switcher_gate_resume(%rip), %rdi
    /* fall through */

/* void env_switcher_probe(uint64_t gate): the same through a probe gate
 * (abi/layout.h). SYSRETQ's road takes rcx and r11 instead of the frame,
 * and leaves rsp as the int3 found it: the frame is not popped there. */
    .global env_switcher_probe
env_switcher_probe:
    lea 1f(%rip), %rcx
    pushfq
    pop %r11
    lea switcher_gate_probe_sysretq(%rip), %rax
    cmp %rax, %rdi
    je 2f
    mov %rsp, %rax
    pushq $FLAT_KERNEL_SS64
    push %rax
    pushfq
    pushq $FLAT_KERNEL_CS64
    lea 1f(%rip), %rax
    push %rax
2:  jmp *%rdi
1:  ret
