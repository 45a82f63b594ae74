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
 * Leaving is host/guest_resume.c's choice of the three ways at the end.
 */
#include "../../abi/layout.h"
#include "../../lib/gprs.h"

    .section .entry, "ax"
    .global host_syscall_entry
/* tour syscall.7: the guest kernel's iret is a hypercall: `syscall` at CPL3 jumps here, no trap */
/* tour multicall.1: every hypercall arrives here the same way: registers saved, host_hypercall */
host_syscall_entry:
    mov %rsp, guest_rsp_at_syscall(%rip)   /* 7 bytes: host/gdb.c steps past it */
    lea host_stack_top(%rip), %rsp
    pushq $2                        /* clear DF, AC and TF for the C code; */
    popfq                           /* IF is not CPL3's to change */
    pushq $PERCH_VECTOR_SYSCALL
    pushq $0                        /* error_code */
    pushq $FLAT_KERNEL_SS64
    pushq guest_rsp_at_syscall(%rip)
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

/* The vCPU's first instruction: the Host sets itself up, then enters the
 * guest (host/boot.c). */
    .global host_boot_entry
host_boot_entry:
    lea host_stack_top(%rip), %rsp
    sub $22*8, %rsp                 /* a struct cpu_regs */
    mov %rsp, %rdi
    call host_boot
    ud2

/*
 * Copy the CPU's frame from the top of an IST page (`top`): ss, rsp, rflags,
 * cs, rip at -8 .. -40, the error code at -48 when the vector has one.
 */
/* tour syscall.3: the CPU's frame comes off the IST page into a struct cpu_regs on the Host stack */
/* tour fault.2: the same copy for the #PF, whichever road it came by */
.macro TRAP_COMMON name, top, has_error, handler=host_trap
\name:
    .if \has_error
    pushq \top-48(%rip)
    .else
    pushq $0
    .endif
    pushq \top-8(%rip)
    pushq \top-16(%rip)
    pushq \top-24(%rip)
    pushq \top-32(%rip)
    pushq \top-40(%rip)
    SAVE_GPRS
    mov %rsp, %rdi
    call \handler          /* does not return: it leaves through guest_resume */
    ud2
.endm

    .text
    TRAP_COMMON trap_exception, switcher_exc_frame, 0
    TRAP_COMMON trap_exception_error, switcher_exc_frame, 1
    TRAP_COMMON trap_breakpoint, switcher_bp_frame, 0
    TRAP_COMMON trap_interrupt, switcher_irq_frame, 0
    TRAP_COMMON user_trap_exception, switcher_exc_frame, 0, host_trap_user
    TRAP_COMMON user_trap_exception_error, switcher_exc_frame, 1, host_trap_user
    TRAP_COMMON user_trap_breakpoint, switcher_user_bp_frame, 0, host_trap_user
    TRAP_COMMON user_trap_interrupt, switcher_irq_frame, 0, host_trap_user
    TRAP_COMMON cpl3_exception, switcher_exc_frame, 0, host_trap_cpl3
    TRAP_COMMON cpl3_exception_error, switcher_exc_frame, 1, host_trap_cpl3

/*
 * An interrupt through a DPL3 interrupt gate: IF is off until the Host
 * leaves, so its frame on the IRQ IST page is safe and no interrupt
 * handler is ever interrupted. It may find the Host at work on a hypercall
 * or an exception (those run with IF on): if the interrupted rsp is on a
 * Host stack, the handler goes on below it (the Host has no red zone);
 * otherwise it takes the IRQ stack, which only interrupt handlers use.
 */
cpl3_interrupt:
    push %rax
    push %rcx
    mov switcher_irq_frame-16(%rip), %rax     /* the interrupted rsp */
    lea host_stack(%rip), %rcx
    cmp %rcx, %rax
    jb 1f
    lea host_irq_stack_top(%rip), %rcx
    cmp %rcx, %rax
    jbe 2f
1:  lea host_irq_stack_top(%rip), %rax
2:  mov %rax, %rsp
    pushq switcher_irq_frame-48(%rip)         /* vector */
    pushq $0                                  /* error code */
    pushq switcher_irq_frame-8(%rip)
    pushq switcher_irq_frame-16(%rip)
    pushq switcher_irq_frame-24(%rip)
    pushq switcher_irq_frame-32(%rip)
    pushq switcher_irq_frame-40(%rip)
    mov switcher_irq_frame-64(%rip), %rcx
    mov switcher_irq_frame-56(%rip), %rax
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
    lea host_stack_top(%rip), %rsp
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
 * Leaving the Host for the guest, three ways (host/guest_resume.c chooses):
 *
 * switcher_resume(regs): through the RESUME gate, one ring-0 visit; needed
 *   when the interrupt flag must come back on (the Host ran an interrupt
 *   with it off) or the frame is the Host's own.
 * switcher_resume_cr3(regs, cr3): through the CR3_RESUME gate: load cr3
 *   (which flushes the TLB) and resume, one visit: entering guest user, or
 *   a pending flush. rax and the frame go to SW_RESUME_FRAME first, since
 *   the Host's stack is not mapped in a user view.
 * resume_native(regs): no ring 0 at all: every register restored, then
 *   popf, the guest's rsp and a jmp. For guest frames in the current
 *   address space, with the interrupt flag already on. native_rip is safe
 *   to share: only an interrupt can come between its store and the jmp,
 *   and an interrupt that finds the Host leaves through switcher_resume.
 */
    .global switcher_resume
switcher_resume:
    mov %rdi, %rsp
    RESTORE_GPRS
    jmp switcher_gate_resume

    .global switcher_resume_cr3
switcher_resume_cr3:
    mov %rsi, resume_cr3(%rip)
    lea switcher_resume_frame(%rip), %rax
    .irp word, 0, 1, 2, 3, 4, 5     /* rax, rip, cs, rflags, rsp, ss */
    mov (14 + \word) * 8(%rdi), %rcx
    mov %rcx, \word * 8(%rax)
    .endr
    mov %rdi, %rsp
    RESTORE_GPRS
    lea switcher_resume_frame(%rip), %rsp
    mov resume_cr3(%rip), %rax
    jmp switcher_gate_cr3_resume

    .global resume_native
resume_native:
    mov %rdi, %rsp
    mov 15*8(%rsp), %rax
    mov %rax, native_rip(%rip)
    RESTORE_GPRS
    pushq 16(%rsp)                  /* rflags; the IF bit is ignored at CPL3 */
    popfq
    mov 24(%rsp), %rsp
    jmp *native_rip(%rip)

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

/*
 * void env_flush_tlb(uint64_t cr3): stage a frame back to ourselves where
 * CR3_RESUME looks for it, and go through the gate. rax, rcx and rdx are
 * the caller's to lose.
 */
    .global env_flush_tlb
env_flush_tlb:
    lea switcher_resume_frame(%rip), %rcx
    lea 1f(%rip), %rdx
    mov %rdx, 8(%rcx)               /* rip */
    movq $FLAT_KERNEL_CS64, 16(%rcx)
    pushfq
    popq 24(%rcx)                   /* rflags */
    mov %rsp, 32(%rcx)              /* rsp: at our return address */
    movq $FLAT_KERNEL_SS64, 40(%rcx)
    mov %rcx, %rsp                  /* rsp -> [rax slot][frame] */
    mov %rdi, %rax
    jmp switcher_gate_cr3_resume
1:  ret

    .bss
    .balign 16
guest_rsp_at_syscall:
    .skip 8
resume_cr3:
    .skip 8
native_rip:
    .skip 8
    .balign 16
host_stack:
    .skip 16384
    .global host_stack_top
host_stack_top:                     /* the IRQ stack follows: one range */
host_irq_stack:
    .skip 8192
    .global host_irq_stack_top
host_irq_stack_top:
