/*
 * The Switcher: all of perch that runs in ring 0.
 *
 * On these machines every ring-0 instruction is emulated (~0.6 us each), so
 * the Switcher does as little as it can and hands everything else to the
 * Host, which runs at CPL3 at native speed:
 *
 *   - each vector's stub loads rsp with a prebuilt iret frame (built by the
 *     Launcher in the handoff pages) and iretq's into the Host's entry for
 *     that vector: two instructions. The CPU's own frame stays on the IST
 *     stack where the Host reads it.
 *   - every data reference is RIP-relative: the code is mapped once in each
 *     vCPU's block, so it reaches that vCPU's frames, slots and IDTs
 *     without knowing which vCPU it serves.
 *   - the user view has its own IDT: its stubs first load the kernel CR3
 *     (the Host lives only in kernel views), keeping the guest's rax in a
 *     slot: five instructions.
 *   - with CPL3 events on (the default), the kernel view's IDT sends most
 *     vectors straight to the Host through DPL3 gates: none of this runs.
 *   - int3 from the Host's service gates asks for a privileged step: resume
 *     a frame (rsp and rflags.IF restored), load CR3 then resume, read CR2,
 *     sleep until an interrupt, or leave the VM for the Launcher.
 *   - NMI, #DF and #MC are fatal: they tell the Launcher and stop.
 */
#include "../abi/layout.h"

    .code64

#define STUB_STRIDE 32
#define USER_STUB_STRIDE 64
/* vCPU 0's handoff frame n; RIP-relative, each vCPU reaches its own
 * (abi/layout.h: the code is mapped in every vCPU's block). */
#define HANDOFF(n) (sw_handoff + (n) * SW_HANDOFF_FRAME_BYTES)(%rip)
#define LOW32(x) ((x) & 0xffffffff)

/* ---- Image header, read by the Launcher; not mapped into the VM ---- */
    .section .header, "a"
    .quad SWITCHER_IMAGE_MAGIC
    .quad 0                         /* image_bytes: the Launcher knows */
    .quad vector_stubs
    .quad STUB_STRIDE
    .quad user_vector_stubs
    .quad USER_STUB_STRIDE
    .quad 0x1000                    /* gates_offset */
    .quad 0x2000                    /* code_offset */
    .quad halt_wake_stubs

/*
 * ---- Service gates, kernel view only (SW_GATE_VA) ----
 * The int3 pushes gate+1 as the return address: that is how bp_entry tells
 * a service request from a guest breakpoint.
 */
    .section .gates, "ax"
gate_resume:
    int3
    ud2                             /* never returns here */
    .balign 16
gate_cr3_resume:
    int3
    ud2
    .balign 16
gate_exit:
    int3
    ret                             /* back to the Host's `call` */
    .balign 16
    .global gate_halt, gate_read_cr2
gate_halt:
    int3
    ret
    .balign 16
gate_read_cr2:
    int3
    ret                             /* rax = CR2 */
    .balign 16
/* The probe gates (abi/layout.h): the costs guest's, never the Host's. */
    .org SW_GATE_PROBE_IRETQ - SW_GATE_VA, 0xcc
    int3
    .org SW_GATE_PROBE_SYSRETQ - SW_GATE_VA, 0xcc
    int3
    .org SW_GATE_PROBE_SWAPGS - SW_GATE_VA, 0xcc
    int3
    .org SW_GATE_PROBE_CR3 - SW_GATE_VA, 0xcc
    int3
    .org SW_GATE_PROBE_IRETQ_END - SW_GATE_VA, 0xcc
    int3

    .text

/*
 * Reached from bp_entry in ring 0: sleep until an interrupt. The kernel
 * view's IDT may hold DPL3 gates, which must never fire in ring 0 (the
 * interrupted ring-0 code would resume demoted to CPL3), so the halt runs
 * on an IDT of ring-0 gates whose stubs put the kernel IDT back. sti takes
 * effect after hlt starts, so no wake-up is lost. The interrupt's frame
 * shows the vCPU's SW_HALT_WAKE_RIP; the Host then resumes gate_halt's
 * caller. First in the code, so that its address is fixed. The
 * interrupt that ends a sleep may come before it starts, while the Host
 * decides to sleep: it set the wake slot, and the gate returns at once.
 */
    .global halt_wake
halt_code:
    cmpq $0, sw_wake_slot(%rip)     /* an interrupt came since the Host */
    jne 1f                          /* looked: no sleep */
    lidt sw_halt_idtr(%rip)
    .org SW_HALT_WAKE_RIP - SW_CODE_VA - 2, 0x90
    sti
    hlt
halt_wake:
    ud2                             /* the wake-up never returns here */
1:  iretq

/* ---- One stub per vector, STUB_STRIDE bytes apart ---- */
    .balign STUB_STRIDE
    .global vector_stubs
vector_stubs:
    .set vec, 0
    .rept 256
    .balign STUB_STRIDE
    .if vec == 3
    jmp bp_entry
    .elseif vec == 2 || vec == 8 || vec == 18
    jmp fatal_entry
    .elseif vec == 14
    push %rax                       /* CR2 goes just below the CPU's frame */
    mov %cr2, %rax
    xchg %rax, (%rsp)
    lea HANDOFF(vec), %rsp
    iretq
    .else
    lea HANDOFF(vec), %rsp
    iretq
    .endif
    .set vec, vec + 1
    .endr

/*
 * ---- The user view's stubs, USER_STUB_STRIDE bytes apart ----
 * The handoff frames 256..511 send the CPU to the Host's user entries,
 * which take the guest's rax back from SW_USER_RAX_SLOT.
 */
    .balign USER_STUB_STRIDE
    .global user_vector_stubs
user_vector_stubs:
    .set vec, 0
    .rept 256
    .balign USER_STUB_STRIDE
    .if vec == 2 || vec == 8 || vec == 18
    jmp fatal_entry
    .else
    /* tour syscall.2: the user view's stub keeps rax, loads the kernel CR3 and hands over: visit one */
    mov %rax, sw_user_rax_slot(%rip)
    /* tour fault.1: a guest-user #PF: the user view's stub keeps CR2 in a slot, then the same */
    .if vec == 14
    mov %cr2, %rax
    mov %rax, sw_cr2_slot(%rip)
    .endif
    mov sw_kernel_cr3_slot(%rip), %rax
    mov %rax, %cr3
    lea HANDOFF(256 + vec), %rsp
    iretq
    .endif
    .set vec, vec + 1
    .endr

/*
 * int3: a service request from a gate, or a guest breakpoint for the Host.
 * CR3_RESUME first: it ends every entry to guest user and every flush.
 */
bp_entry:
    cmpl $LOW32(SW_GATE_CR3_RESUME + 1), (%rsp)
    je svc_cr3_resume
    cmpl $LOW32(SW_GATE_RESUME + 1), (%rsp)
    je svc_resume
    cmpl $LOW32(SW_GATE_READ_CR2 + 1), (%rsp)
    je svc_read_cr2
    cmpl $LOW32(SW_GATE_EXIT + 1), (%rsp)
    je svc_exit
    cmpl $LOW32(SW_GATE_HALT + 1), (%rsp)
    je halt_code
    cmpl $LOW32(SW_GATE_PROBE_IRETQ + 1), (%rsp)
    je svc_resume
    cmpl $LOW32(SW_GATE_PROBE_SYSRETQ + 1), (%rsp)
    je probe_sysretq
    cmpl $LOW32(SW_GATE_PROBE_SWAPGS + 1), (%rsp)
    je probe_swapgs
    cmpl $LOW32(SW_GATE_PROBE_CR3 + 1), (%rsp)
    je probe_cr3
    cmpl $LOW32(SW_GATE_PROBE_IRETQ_END + 1), (%rsp)
    je svc_resume
    lea HANDOFF(3), %rsp
    iretq

/* The probes' roads back (RESUME's, one step changed). */
probe_sysretq:
    mov 24(%rsp), %rsp
    sysretq
probe_swapgs:
    swapgs
    swapgs
    mov 24(%rsp), %rsp
    iretq
probe_cr3:
    mov %cr3, %rax
    mov %rax, %cr3
    mov 24(%rsp), %rsp
    iretq

/* A #PF delivered at CPL3 cannot read CR2: the Host asks here when it
 * cannot prove the address from the instruction. */
svc_read_cr2:
    mov %cr2, %rax
    iretq

/* The Host's rsp at the int3 points at the frame to resume. */
svc_resume:
    mov 24(%rsp), %rsp
    iretq

/* rax holds the new CR3; the guest's rax sits just below the frame. */
/* tour syscall.10: load the user's CR3 and iretq to it */
svc_cr3_resume:
    mov 24(%rsp), %rsp
    mov %rax, %cr3
    pop %rax
    iretq

/* The Launcher reads its request from the shared page. */
svc_exit:
    out %al, $PERCH_EXIT_PORT
    iretq

/*
 * ---- The halt IDT's interrupt stubs, STUB_STRIDE bytes apart ----
 * An interrupt that ends a halt: the kernel IDT goes back, then the usual
 * handoff to the Host's ring-0-path entry for the vector.
 */
    .balign STUB_STRIDE
    .global halt_wake_stubs
halt_wake_stubs:
    .set vec, 0
    .rept 256
    .balign STUB_STRIDE
    lidt sw_kernel_idtr(%rip)
    lea HANDOFF(vec), %rsp
    iretq
    .set vec, vec + 1
    .endr

fatal_entry:
    out %al, $PERCH_FATAL_PORT
    hlt
    jmp fatal_entry

