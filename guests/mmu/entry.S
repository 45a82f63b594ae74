/*
 * The mmu guest's assembly: the #GP/#PF entries of its trap table, and the
 * memory accesses whose faults it expects (each one instruction, with a
 * fixup address the trap handler resumes at).
 *
 * Trap entry. Xen's bounce frame for a fault in guest-kernel mode is
 *   [rcx][r11][error][rip][cs][rflags][rsp][ss]
 * on the current stack. The entry saves the other registers below it as a
 * struct mmu_tframe (mmu.c), calls mmu_trap(frame, vector), which may change
 * the saved rip, then restores every register and turns the frame into the
 * iret_context HYPERVISOR_iret takes:
 *   [rax][r11][rcx][flags][rip][cs][rflags][rsp][ss]
 * (rax was pushed right below rcx; rcx and r11 swap places; the error code's
 * slot becomes flags = 0, a full return).
 */
#include "../../abi/xen/xen.h"

.macro TRAP_WITH_ERROR vector
    .global mmu_trap_\vector
mmu_trap_\vector:
    push %rax
    push %rbx
    push %rdx
    push %rsi
    push %rdi
    push %rbp
    push %r8
    push %r9
    push %r10
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rsp, %rdi
    mov $\vector, %esi
    mov %rsp, %rbx              /* callee-saved: the frame */
    and $-16, %rsp
    call mmu_trap
    mov %rbx, %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %r10
    pop %r9
    pop %r8
    pop %rbp
    pop %rdi
    pop %rsi
    pop %rdx
    pop %rbx
    mov 8(%rsp), %rcx           /* the guest's rcx */
    mov 16(%rsp), %r11          /* the guest's r11 */
    mov %r11, 8(%rsp)
    mov %rcx, 16(%rsp)
    movq $0, 24(%rsp)           /* flags: not VGCF_in_syscall */
    mov $HYPERVISOR_iret, %eax
    syscall
    ud2
.endm

    .text
    TRAP_WITH_ERROR 13
    TRAP_WITH_ERROR 14

/*
 * Probes: functions whose one memory access may fault. ARM stores the
 * address the trap handler resumes at (label 9 of the function, which
 * returns -1); the access itself is the instruction right after ARM, in the
 * form a Linux helper compiles to. On success they return 0 (or CF).
 */
.macro ARM
    lea 9f(%rip), %rax
    mov %rax, mmu_fixup_rip(%rip)
.endm
.macro DISARM_RET
    movq $0, mmu_fixup_rip(%rip)
    ret
9:  movq $0, mmu_fixup_rip(%rip)
    mov $-1, %rax
    ret
.endm

/* long mmu_probe_read(const volatile uint64_t *p, uint64_t *out) */
    .global mmu_probe_read
mmu_probe_read:
    ARM
    mov (%rdi), %rcx
    mov %rcx, (%rsi)
    xor %eax, %eax
    DISARM_RET

/* long mmu_pte_store(volatile uint64_t *p, uint64_t v): native_set_pte,
 * `mov %r64, (m)` (REX.W 89 /r). Also the write probe. */
    .global mmu_pte_store
mmu_pte_store:
    ARM
    mov %rsi, (%rdi)
    xor %eax, %eax
    DISARM_RET

/* long mmu_pte_xchg(volatile uint64_t *p, uint64_t v, uint64_t *old):
 * ptep_get_and_clear, `xchg %r64, (m)` (REX.W 87 /r). */
    .global mmu_pte_xchg
mmu_pte_xchg:
    ARM
    xchg %rsi, (%rdi)
    mov %rsi, (%rdx)
    xor %eax, %eax
    DISARM_RET

/* long mmu_pte_btr5(volatile uint64_t *p): ptep_test_and_clear_young,
 * test_and_clear_bit(_PAGE_BIT_ACCESSED), `lock btrq $5, (m)`; returns CF. */
    .global mmu_pte_btr5
mmu_pte_btr5:
    ARM
    xor %eax, %eax
    lock btrq $5, (%rdi)
    setc %al
    DISARM_RET

/* long mmu_pte_btr1(volatile uint64_t *p): `lock btrq $1, (m)`, clearing
 * _PAGE_BIT_RW with a bit-test; returns CF. */
    .global mmu_pte_btr1
mmu_pte_btr1:
    ARM
    xor %eax, %eax
    lock btrq $1, (%rdi)
    setc %al
    DISARM_RET

/* long mmu_pte_andb_rw(volatile uint64_t *p): ptep_set_wrprotect,
 * clear_bit(_PAGE_BIT_RW) with a constant bit: `lock andb $~2, (m)`. */
    .global mmu_pte_andb_rw
mmu_pte_andb_rw:
    ARM
    lock andb $0xfd, (%rdi)
    xor %eax, %eax
    DISARM_RET

    .section .note.GNU-stack, "", @progbits

/*
 * The patch page: text of its own, which test_patched_stores maps
 * read-only so that perch may patch the store in it (host/cpu/insn_patch.c).
 * long mmu_patch_btr1(volatile uint64_t *p): `lock btrq $1, (m)` with rcx
 * and r11 holding known values across it; returns CF, plus 2 if either
 * register changed. long mmu_patch_enter_syscall(volatile uint64_t *p):
 * enters the patch the way its own bytes would, without running them: a
 * `syscall` patch at its `syscall` (offset 3) with the two words it would
 * have pushed, rcx's and r11's values, on the stack; a `call` patch (where
 * perch made xen_hypercall_pv a direct call) by jumping to
 * xen_hypercall_pv with the return address the call would have pushed.
 */
#define PATCH_RCX 0x11112222
#define PATCH_R11 0x33334444
    .section .text.patch, "ax"
    .balign 4096
    .global mmu_patch_page, mmu_patch_btr1, mmu_patch_store, mmu_patch_enter_syscall
mmu_patch_page:
mmu_patch_btr1:
    mov $PATCH_RCX, %rcx
    mov $PATCH_R11, %r11
    xor %eax, %eax
mmu_patch_store:
    lock btrq $1, (%rdi)
    setc %al
    cmp $PATCH_RCX, %rcx
    jne 1f
    cmp $PATCH_R11, %r11
    jne 1f
    ret
1:  or $2, %eax
    ret

mmu_patch_enter_syscall:
    xor %eax, %eax
    cmpb $0xe8, mmu_patch_store(%rip)
    je 2f
    push $PATCH_RCX
    push $PATCH_R11
    jmp mmu_patch_store + 3
2:  mov $PATCH_RCX, %rcx
    mov $PATCH_R11, %r11
    lea mmu_patch_store + 5(%rip), %rdx
    push %rdx
    jmp xen_hypercall_pv
    .balign 4096, 0xcc
