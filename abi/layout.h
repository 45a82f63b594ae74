/*
 * perch's own layout: where the Switcher and the Host live in the hypervisor
 * hole, which frames are perch's, and what the Launcher and the Host share.
 *
 * The hole is Xen's (PML4 slots 256-271); slot 256 cannot be used on PVM
 * hosts (docs/kvm.md), so perch starts at slot 257:
 *
 *   slot 257  0xffff808000000000  perch region, one L3 per address-space view
 *     +0 GiB   Switcher, shared by every view: GDT, TSS, handoff frames,
 *              double-fault stack, Switcher code (all supervisor-only)
 *     +1 GiB   per view: IDT, the ring-0 stacks, the service gates
 *     +2 GiB   Host image (kernel views only), its first page holds LSTAR
 *     +3 GiB   M2P table, read-only (kernel views only)
 *   slot 258  0xffff810000000000  writable alias of all guest-physical memory
 *              (kernel views only), 2 MiB pages: how the Host stores to
 *              page tables and guest frames
 *
 * Each vCPU has its own copy of everything per-CPU (the GDT, TSS, IST
 * stacks, handoff frames, IDTs, the Host's stacks and state): vCPU i's copy
 * of a page given below for vCPU 0 at va sits at PERCH_CPU_VA(va, i), in
 * the Switcher's pages, the views and the Host's area alike.
 *
 * Guest-physical ("machine") memory: frames [0, PERCH_PRIVATE_FRAMES) are
 * perch's (page tables of the hole, Switcher, Host, shared_info, M2P); the
 * guest's pseudo-physical frame N is machine frame guest_mfn_base + N.
 */
#ifndef PERCH_ABI_LAYOUT_H
#define PERCH_ABI_LAYOUT_H

/* Constants are shared with assembly and linker scripts, hence U64(). */
#include "xen/xen.h"
#ifdef __ASSEMBLER__
#define U64(x) x
#else
#include <stdint.h>
#define U64(x) x##ull
#endif

#define PERCH_SLOT_FIRST        257
#define PERCH_REGION_VA         U64(0xffff808000000000)
#define PERCH_ALIAS_SLOT        258
#define PERCH_ALIAS_VA          U64(0xffff810000000000)
#define XEN_HOLE_START          U64(0xffff800000000000)
#define XEN_HOLE_END            U64(0xffff880000000000)

/*
 * Per-vCPU blocks, PERCH_CPU_STRIDE apart. The Switcher's code is mapped
 * once in each vCPU's block (the same frames) and reaches its data
 * RIP-relative, so one copy serves every vCPU without a register or a
 * global saying which it is; the Host finds its block from its stack
 * pointer (host/core/vcpu.h), and its entry code reaches the IST pages of the
 * same vCPU at a fixed distance from its stack.
 */
#define PERCH_MAX_VCPUS    64
#define PERCH_CPU_STRIDE   U64(0x40000)
#define PERCH_CPU_VA(va, cpu) ((va) + (cpu) * PERCH_CPU_STRIDE)

/* +0 GiB: the Switcher's pages of vCPU 0 (each vCPU has a block). */
#define SW_GDT_VA          (PERCH_REGION_VA + 0x000000)  /* 16 pages, 64 KiB */
#define SW_GDT_PAGES       16
#define SW_TSS_VA          (PERCH_REGION_VA + 0x010000)
#define SW_HANDOFF_VA      (PERCH_REGION_VA + 0x011000)  /* 512 prebuilt iret frames */
#define SW_HANDOFF_PAGES   5                             /* kernel view, then user view */
#define SW_DF_STACK_VA     (PERCH_REGION_VA + 0x016000)  /* one page, IST3 */
#define SW_HALT_IDT_VA     (PERCH_REGION_VA + 0x017000)  /* IDT while halted */
#define SW_DATA_VA         (PERCH_REGION_VA + 0x018000)  /* the vCPU's IDTR images */
#define SW_KERNEL_IDTR     (SW_DATA_VA + 0x00)   /* limit, base of its kernel IDT */
#define SW_HALT_IDTR       (SW_DATA_VA + 0x10)   /* limit, base of its halt IDT */
#define SW_CODE_VA         (PERCH_REGION_VA + 0x020000)  /* Switcher text */
#define SW_CODE_MAX        0x10000

/* +1 GiB: pages that differ between views (absent, or ring-0 only, in
 * the user view), vCPU 0's; the gate page exists once, in vCPU 0's block. */
#define SW_VIEW_VA         (PERCH_REGION_VA + 0x40000000)
#define SW_IDT_VA          (SW_VIEW_VA + 0x0000)   /* each view its own IDT */
#define SW_EXC_STACK_VA    (SW_VIEW_VA + 0x1000)   /* IST4 and RSP0: exceptions */
#define SW_IRQ_STACK_VA    (SW_VIEW_VA + 0x2000)   /* IST1: interrupts */
#define SW_BP_STACK_VA     (SW_VIEW_VA + 0x3000)   /* IST2: int3, services */
#define SW_GATE_VA         (SW_VIEW_VA + 0x4000)   /* service gates (kernel view) */
#define SW_USER_BP_STACK_VA (SW_VIEW_VA + 0x5000)  /* IST5: int3 from guest user */
#define SW_STACK_TOP(va)   ((va) + 0x1000)

/*
 * Words at the bottom of the exception-stack page, far below any frame: the
 * kernel CR3 that the user-view stubs load (the Host keeps it current), the
 * guest's rax, which those stubs need as scratch, and CR2 of a user #PF.
 * The page is supervisor-only in the user view: guest user code cannot
 * touch them.
 */
#define SW_KERNEL_CR3_SLOT (SW_EXC_STACK_VA + 0x0)
#define SW_USER_RAX_SLOT   (SW_EXC_STACK_VA + 0x8)
#define SW_CR2_SLOT        (SW_EXC_STACK_VA + 0x10)   /* user-view #PF */
/* Non-zero: an interrupt came since the Host last cleared it. The HALT
 * gate does not halt then: the wake-up it would wait for has come. */
#define SW_WAKE_SLOT       (SW_EXC_STACK_VA + 0x18)
/* Where the Host stages [rax][iret frame] for CR3_RESUME: the stack it
 * leaves from may not exist in the address space it goes to. */
#define SW_RESUME_FRAME    (SW_EXC_STACK_VA + 0x800)

/*
 * Service gates: the Host jumps (or calls) here; each gate is an `int3` the
 * Switcher recognises by its return address. 16 bytes apart.
 *   RESUME      rsp -> iret frame; the Switcher iretq's to it.
 *   CR3_RESUME  rax = new CR3, rsp -> [saved rax][iret frame], at
 *               SW_RESUME_FRAME (mapped in every view) for the way out, on
 *               the Host's stack for env_flush_tlb: load CR3 (which also
 *               flushes the TLB), restore rax, iretq.
 *   EXIT        `call` it: the Switcher leaves the VM for the Launcher with
 *               an `out` to PERCH_EXIT_PORT, then returns to the caller.
 *   HALT        `call` it: `sti; hlt` in ring 0 (on the halt IDT, whose
 *               gates are all ring 0) until an interrupt, which the Host
 *               takes as the wake-up (it resumes the caller); at once if
 *               the vCPU's SW_WAKE_SLOT says an interrupt already came.
 *   READ_CR2    `call` it: rax = CR2, for a #PF delivered at CPL3 whose
 *               address the Host cannot prove from the instruction.
 */
#define SW_GATE_RESUME      (SW_GATE_VA + 0x00)
#define SW_GATE_CR3_RESUME  (SW_GATE_VA + 0x10)
#define SW_GATE_EXIT        (SW_GATE_VA + 0x20)
#define SW_GATE_HALT        (SW_GATE_VA + 0x30)   /* `call`: sti; hlt until an interrupt */
#define SW_GATE_READ_CR2    (SW_GATE_VA + 0x40)   /* `call`: rax = CR2 */
/* Where HALT's interrupt finds ring 0: in the Switcher's code, so vCPU i
 * finds it at PERCH_CPU_VA(SW_HALT_WAKE_RIP, i). */
#define SW_HALT_WAKE_RIP    (SW_CODE_VA + 0x20)
/*
 * Probe gates, for the costs guest only (perch_op probe): each is a
 * RESUME with one ring-0 road changed, tested after every real gate so
 * that they cost the real ones nothing. In bp_entry's order:
 *   IRETQ     the RESUME road again, at this place in the compare chain
 *   SYSRETQ   `sysretq` to rcx with flags r11 instead of iretq (rsp as the
 *             int3 found it)
 *   SWAPGS    two swapgs, then as IRETQ
 *   CR3       CR3 read and written back (a full flush), then as IRETQ
 *   IRETQ_END as IRETQ, last: the compare chain's cost per gate
 */
#define SW_GATE_PROBE_IRETQ     (SW_GATE_VA + 0x80)
#define SW_GATE_PROBE_SYSRETQ   (SW_GATE_VA + 0x90)
#define SW_GATE_PROBE_SWAPGS    (SW_GATE_VA + 0xa0)
#define SW_GATE_PROBE_CR3       (SW_GATE_VA + 0xb0)
#define SW_GATE_PROBE_IRETQ_END (SW_GATE_VA + 0xc0)

/* +2 GiB: the Host image (text, data, stacks, the shared page). */
#define HOST_IMAGE_VA      (PERCH_REGION_VA + U64(0x80000000))
#define HOST_IMAGE_MAX     U64(0x200000)
#define HOST_DOORBELL_VA   (HOST_IMAGE_VA + U64(0x3ff00000))  /* ioeventfd MMIO page */
#define PERCH_CONSOLE_DOORBELL 0x0   /* its offsets: the console thread's, */
#define PERCH_DEVICE_DOORBELL  0x8   /* the device thread's */
#define HOST_APIC_VA       (HOST_IMAGE_VA + U64(0x3fe00000))  /* the local APIC, xAPIC MMIO */

/* The in-kernel local APIC, moved (MSR_IA32_APICBASE, set by the Launcher)
 * from its default 0xfee00000 to machine frame 0, which the memslot leaves
 * out (a null maddr is never a guest frame): memory runs on unbroken past
 * 4 GiB. MSIs still address 0xfee00000, as the architecture has them. */
#define PERCH_APIC_GPA     U64(0)
#define PERCH_MSI_ADDRESS  U64(0xfee00000)
#define PERCH_TIMER_VECTOR 0xef

/*
 * The Launcher's back ends (the ring console) tell the Host that they
 * have put something into a ring for the guest with an MSI of this vector
 * (KVM_SIGNAL_MSI to APIC 0). The Host acknowledges it and raises their
 * event-channel ports. Below the timer's vector.
 */
#define PERCH_BACKEND_VECTOR 0xee

/* One vCPU's Host asks another's to look (host/events/evtchn.c: an event raised
 * for it; host/mm/tlb.c: a flush it owes): a fixed IPI of this vector. */
#define PERCH_IPI_VECTOR 0xed

/* The event-channel port of the ring console (hvc0 in Linux), announced in
 * start_info.console.domU.evtchn and bound by the Host at start as a back
 * end's port (perch_shared.boot.console_port). */
#define PERCH_CONSOLE_PORT 1

/* xenstore's port (start_info.store_evtchn), bound at start like the
 * console's. */
#define PERCH_XENSTORE_PORT 2

/*
 * Back-end lines: each of the Launcher's back ends talks to the guest over
 * one event-channel port, its line. The console and xenstore have fixed
 * ports, bound at start; a device's port is one the guest allocated for
 * domain 0 (EVTCHNOP_alloc_unbound) and named in xenstore, which the
 * Launcher asks the Host to connect (perch_shared.lines.connect). A send
 * on a line's port sets its bit in lines.notified and rings the device
 * doorbell (the console keeps its own); the Launcher raises lines by
 * setting bits in lines.raised and sending PERCH_BACKEND_VECTOR.
 */
#define PERCH_LINE_CONSOLE      0
#define PERCH_LINE_XENSTORE     1
#define PERCH_LINE_FIRST_DEVICE 2
#define PERCH_LINES             16

/*
 * The guest's grant table (v1): frames the Launcher takes from perch's
 * private ones, zeroed, and names in perch_shared.boot; the Host hands
 * them to the guest (GNTTABOP_setup_table) and the Launcher's back ends
 * read the entries (launcher/xenbus/grant.c). 32 frames, 16384 entries, is what
 * Xen's toolstack gives a domU by default (libxl's max_grant_frames): room
 * for several multi-queue block and network front ends, for 128 KiB.
 */
#define PERCH_GRANT_FRAMES 32

/* The Host's table of what each machine frame is (page types, pins). */
#define HOST_FRAME_TABLE_VA (HOST_IMAGE_VA + U64(0x10000000))
#define HOST_FRAME_TABLE_MAX U64(0x10000000)   /* 256 MiB: 128 GiB of frames */

/*
 * The Host's per-vCPU area: vCPU i's block at PERCH_CPU_VA(HOST_CPU_VA, i),
 * mapped by the Launcher for the vCPUs there are: its state (struct
 * host_cpu, host/core/vcpu.h), then its exception and interrupt stacks, one
 * range. The handoff frames land on these stacks.
 */
#define HOST_CPU_VA          (HOST_IMAGE_VA + U64(0x20000000))
#define HOST_CPU_STATE_BYTES 0x8000
#define HOST_CPU_STACK_VA    (HOST_CPU_VA + HOST_CPU_STATE_BYTES)
#define HOST_CPU_EXC_TOP     (HOST_CPU_VA + 0x10000)   /* 32 KiB: traps, hypercalls */
#define HOST_CPU_IRQ_TOP     (HOST_CPU_VA + 0x14000)   /* 16 KiB: interrupts */
#define HOST_CPU_BYTES       0x14000

/* +3 GiB: machine-to-phys table, 8 bytes per machine frame. */
#define PERCH_M2P_VA       (PERCH_REGION_VA + U64(0xc0000000))
#define PERCH_M2P_MAX_BYTES U64(0x40000000)

/* The vCPU's control registers, set once by the Launcher (launcher/vm/kvm.c)
 * and shown to the guest by the Host's emulation (host/cpu/emulate.c):
 * CR0 = PG|AM|WP|NE|ET|MP|PE, CR4 = PAE|OSFXSR|OSXMMEXCPT|FSGSBASE,
 * EFER = LME|LMA|NXE|SCE. */
#define PERCH_VCPU_CR0     U64(0x80050033)
#define PERCH_VCPU_CR4     U64(0x10620)
#define PERCH_VCPU_EFER    U64(0xd01)
/* What the guest kernel reads: the architectural default, enabled, BSP. */
#define PERCH_APIC_BASE_MSR (U64(0xfee00000) | (1 << 11) | (1 << 8))

/* Port the Switcher's `out` uses to reach the Launcher. */
#define PERCH_EXIT_PORT    0xe0   /* `out imm8`: ports below 256 */
#define PERCH_FATAL_PORT   0xe1   /* NMI, #DF or #MC in ring 0 */

/* GDT entries perch owns, in Xen's reserved pages (FIRST_RESERVED_GDT_PAGE). */
#define SW_CS0_SEL         0xe008   /* ring-0 64-bit code */
#define SW_DS0_SEL         0xe010   /* ring-0 data */
#define SW_TSS_SEL         0xe040   /* 16-byte 64-bit TSS descriptor */

/*
 * IST slots of the TSS. Every vector has its own fixed stack, even when it
 * interrupts ring 0, so the Host always finds the CPU's frame at the top of
 * a known page: exceptions, interrupts, int3, and the fatal ones (NMI, #DF,
 * #MC) which never reach the Host. The user view's int3 (every guest-user
 * system call) has a stack of its own: the Host's service int3s use IST2,
 * and an interrupt taken before the Host has copied a guest frame off IST2
 * would have it overwritten by the RESUME that returns from the interrupt.
 */
#define SW_IST_IRQ  1
#define SW_IST_BP   2
#define SW_IST_DF   3
#define SW_IST_EXC  4
#define SW_IST_USER_BP 5

/* Bytes of one prebuilt iret frame in the handoff pages (rip, cs, rflags,
 * rsp, ss). */
#define SW_HANDOFF_FRAME_BYTES 40

/*
 * perch's own hypercall, in Xen's arch-specific slot arch_7: hooks that run
 * the real slow paths once, so tests and benchmarks can count and time them.
 */
#define HYPERVISOR_perch_op          55
#define PERCH_OP_switcher_roundtrip  0   /* one ring-0 visit (RESUME gate) */
#define PERCH_OP_launcher_roundtrip  1   /* one exit to the Launcher */
#define PERCH_OP_switcher_probe      2   /* one visit by probe road a2 (below) */
#define PERCH_PROBE_IRETQ     0
#define PERCH_PROBE_SYSRETQ   1
#define PERCH_PROBE_SWAPGS    2
#define PERCH_PROBE_CR3       3
#define PERCH_PROBE_IRETQ_END 4
#define PERCH_PROBES          5

/*
 * Optimizations that can be switched off (perch run --no-native-return,
 * --eager-flush) so that their effect is measured side by side.
 */
#define PERCH_OPT_NATIVE_RETURN (1u << 0)   /* guest-kernel returns by jmp */
#define PERCH_OPT_LAZY_FLUSH    (1u << 1)   /* one flush per batch (lguest's lazy flush) */
#define PERCH_OPT_CPL3_EVENTS   (1u << 2)   /* DPL3 gates: events to the Host without ring 0 */
#define PERCH_OPT_FLUSH_ELISION (1u << 3)   /* no flush for changes KVM shows anyway */
#define PERCH_OPT_FAULT_DECODE  (1u << 4)   /* a CPL3 #PF's address from its instruction */
#define PERCH_OPT_INSN_PATCHING (1u << 5)   /* trapping PTE stores patched into Host calls */
#define PERCH_OPT_DIRECT_CALLS  (1u << 6)   /* hypercalls and iret as calls, not `syscall` */
#define PERCH_OPT_IPI_DEST      (1u << 7)   /* an IPI stores the ICR's destination only when it changes */
#define PERCH_OPT_IDLE_SPIN     (1u << 8)   /* a vCPU spins a while before it sleeps */

/* Pseudo-vector with which the Host marks a hypercall entry (`syscall`). */
#define PERCH_VECTOR_SYSCALL 256

/* Magic numbers at the start of the images the Launcher loads. */
#define HOST_IMAGE_MAGIC     U64(0x74736f6868637270)  /* "prchhost" */
#define SWITCHER_IMAGE_MAGIC U64(0x7477736868637270)  /* "prchhswt" */

#ifndef __ASSEMBLER__
/*
 * The headers the Launcher reads at the start of the images it loads into
 * the VM; offsets are from the image's first byte.
 */

struct host_image_header {
    uint64_t magic;
    uint64_t image_bytes;      /* file bytes to copy, from offset 0 */
    uint64_t memory_bytes;     /* bytes to map, bss included */
    uint64_t syscall_entry;    /* VA: vCPU 0's MSR_LSTAR, */
    uint64_t syscall_entry_stride;  /* vCPU i's i strides on, same page */
    uint64_t vector_entries;   /* VA of 256 entry stubs, 16 bytes apart */
    uint64_t vector_entry_stride;
    uint64_t user_vector_entries;  /* the same, for events from guest user */
    uint64_t shared_page;      /* VA of struct perch_shared */
    uint64_t boot_entry;       /* VA: where the vCPU starts */
    uint64_t cpl3_vector_entries;  /* VA of 256 entries for DPL3 gates */
    uint64_t cpl3_vector_entry_stride;
};

struct switcher_image_header {
    uint64_t magic;
    uint64_t image_bytes;
    uint64_t vector_stubs;     /* VA of 256 ring-0 stubs, stride below */
    uint64_t vector_stub_stride;
    uint64_t user_vector_stubs;    /* the user view's IDT: they load CR3 first */
    uint64_t user_vector_stub_stride;
    uint64_t gates_offset;     /* file offset of the gate page */
    uint64_t code_offset;      /* file offset of the pages mapped at SW_CODE_VA */
    uint64_t halt_wake_stubs;  /* VA of the halt IDT's 256 stubs, same stride */
};

/*
 * Why the Host asked the Launcher to act (shared->request.reason), through
 * the EXIT gate.
 */
enum perch_request {
    PERCH_REQ_NONE = 0,
    PERCH_REQ_SHUTDOWN,       /* arg0: Xen SHUTDOWN_* reason */
    PERCH_REQ_CONSOLE_FLUSH,  /* console ring full: drain it */
    PERCH_REQ_FATAL,          /* the guest broke a rule: message below */
    PERCH_REQ_PING,           /* nothing to do: PERCH_OP_launcher_roundtrip */
    PERCH_REQ_RELEASE_FRAMES, /* the guest's balloon gave frames back: the
                               * ranges in shared->release go back to the
                               * host (their memory reads as zero again) */
    PERCH_REQ_COUNT
};

/* Why the Host was entered, for counting Switcher visits. */
enum perch_visit {
    PERCH_VISIT_EXCEPTION = 0,   /* vectors 0-31 from the guest */
    PERCH_VISIT_USER_SYSCALL,    /* guest-user `syscall` (int3 at LSTAR) */
    PERCH_VISIT_INTERRUPT,       /* vectors 32-255 */
    PERCH_VISIT_SERVICE_RESUME,  /* iret to a frame (mode switch, fault return) */
    PERCH_VISIT_SERVICE_CR3,     /* CR3 load + iret */
    PERCH_VISIT_SERVICE_EXIT,    /* the Launcher was needed */
    PERCH_VISIT_SERVICE_HALT,    /* idle: hlt until an interrupt */
    PERCH_VISIT_SERVICE_CR2,     /* CR2 read for a #PF taken at CPL3 */
    PERCH_VISIT_COUNT
};

/* Why a CR3 load (PERCH_VISIT_SERVICE_CR3) was needed. */
enum perch_cr3_cause {
    PERCH_CR3_TO_USER = 0,       /* isolated guest user runs in its own view */
    PERCH_CR3_KERNEL_TABLES,     /* the guest kernel switched page tables */
    PERCH_CR3_FLUSH,             /* a TLB flush on the way back to the kernel */
    PERCH_CR3_FLUSH_EAGER,       /* --eager-flush: a flush there and then */
    PERCH_CR3_CAUSES
};

/* What the guest kernel asked of the CPU, for --stats: each MSR it read or
 * wrote and each CPUID leaf it asked, with perch's last answer (the first
 * PERCH_MSRS_SEEN and PERCH_CPUIDS_SEEN distinct ones). */
#define PERCH_MSRS_SEEN   48u
#define PERCH_CPUIDS_SEEN 96u
/* The hypervisor leaves past Xen's, counted as one entry of that subleaf. */
#define PERCH_CPUID_SCAN_FIRST   0x40000100u
#define PERCH_CPUID_SCAN_END     0x40010000u
#define PERCH_CPUID_SCAN_SUBLEAF 0xffffffffu
struct perch_msr_seen {
    uint32_t msr;
    uint32_t reads, writes, refused;   /* refused: answered #GP */
    uint64_t value;                    /* the last value read or written */
};
struct perch_cpuid_seen {
    uint32_t leaf, subleaf, count;
    uint32_t reg[4];                   /* perch's answer */
};

/*
 * The kernel-text instructions whose page-table stores trapped, and what
 * host/cpu/insn_patch.c made of each (the first PERCH_PATCH_SITES; later ones
 * are only counted). A patched site's first bytes call the Host instead:
 * `push %rcx; push %r11; syscall` (5 bytes), or `push %rcx; syscall` (3)
 * where r11 is provably dead after the instruction; the rest are int3.
 */
#define PERCH_SYMBOLS_PENDING 0u   /* still being read: decide later */
#define PERCH_SYMBOLS_READ    1u   /* r11_readers and jump_table filled */
#define PERCH_SYMBOLS_NONE    2u   /* the kernel has none: any call may read r11 */

#define PERCH_PATCH_SITES 64u

/*
 * Hypercalls the guest kernel still made by `syscall` (a trap each, where
 * direct calls make none), by the address the `syscall` returns to: the
 * first PERCH_TRAPPED_CALLERS callers; later ones are only counted.
 */
#define PERCH_TRAPPED_CALLERS 16u
struct perch_trapped_caller {
    uint64_t rip;
    uint64_t count;
};
#define PERCH_PATCH_MAX_REWRITES 16u
enum perch_patch_state {
    PERCH_PATCH_WAITING = 0,   /* its text is still writable: not yet */
    PERCH_PATCH_ACTIVE,        /* patched: it calls the Host */
    PERCH_PATCH_OFF,           /* --no-insn-patching */
    PERCH_PATCH_NOT_TEXT,      /* outside the kernel's own text */
    PERCH_PATCH_TOO_SHORT,     /* under 3 bytes, or 3-4 with r11 live after it */
    PERCH_PATCH_CROSSES_PAGE,  /* the instruction spans two pages */
    PERCH_PATCH_UNDONE_WRITE,  /* restored for good: its text page was mapped
                                * writable PERCH_PATCH_MAX_REWRITES times */
    PERCH_PATCH_UNDONE_TARGET, /* restored: it stored to something else */
    PERCH_PATCH_STATES
};
/* Whether the kernel's hypercall and iret became direct calls
 * (host/cpu/direct_calls.c), or why not. */
enum perch_direct_state {
    PERCH_DIRECT_NONE = 0,      /* the kernel named no such functions */
    PERCH_DIRECT_ACTIVE,        /* patched: both enter the Host by a jmp */
    PERCH_DIRECT_OFF,           /* --trap-hypercalls */
    PERCH_DIRECT_GDB,           /* --gdb: the kernel's own bytes, for stepping */
    PERCH_DIRECT_PAGE,          /* no such functions, but the hypercall page's
                                 * slots jump to the Host */
    PERCH_DIRECT_UNKNOWN_CODE,  /* their bytes are not the ones perch knows,
                                 * or not where it can patch them */
    PERCH_DIRECT_STATES
};

struct perch_patch_site {
    uint64_t rip;
    uint64_t traps;            /* its stores that trapped and were emulated */
    uint64_t calls;            /* its stores that came through the patch */
    uint8_t len;               /* the instruction's length */
    uint8_t state;             /* enum perch_patch_state */
    uint8_t patch_len;         /* 5, 3, or 0 */
    uint8_t rewrites;          /* times restored for a writable mapping of
                                * its page, then patched again (WAITING) */
    uint8_t by_call;           /* 1: `call xen_hypercall_pv` (a direct call),
                                * 0: the `syscall` forms */
    uint8_t pad[3];
    uint8_t original[16];      /* the instruction as the guest wrote it */
};

#define PERCH_CONSOLE_RING_BYTES 4096u
#define PERCH_FATAL_MSG_BYTES    160u
#define PERCH_RELEASE_RANGES     256u   /* release.range[] */
#define PERCH_WHERE_STACK_WORDS  64u   /* request.where.stack[] */

/*
 * The CPU as the Launcher describes it to the Host (docs/kvm.md, "One view
 * of the CPU"): the CPUID leaves the Host may build the guest's view from,
 * the XCR0 guest code runs with, and the MSR values Xen would read from
 * the hardware. Written once before the vCPU first runs, from the real
 * CPU or from a recorded profile merged with it (launcher/cpu/cpu_profile.c);
 * the Host reads it instead of executing `cpuid`, whose answer at CPL3
 * differs between hosts (KVM's table on Intel PVM hosts, the real CPU on
 * AMD ones).
 */
#define PERCH_CPUID_ENTRIES 160u
/* The XSAVE components a guest kernel may be offered (host/cpu/cpuid.c): x87,
 * SSE, AVX and AVX-512's three. Not PKRU, not AMX's tiles: the Launcher
 * hides those from the CPUID guest processes read where KVM answers it. */
#define PERCH_XCR0_OFFERED 0xe7ull
struct perch_cpuid_entry {
    uint32_t leaf, subleaf;
    uint32_t reg[4];                 /* eax, ebx, ecx, edx */
};
struct perch_cpu {
    uint32_t nr_entries;             /* entries[0 .. nr_entries) are valid */
    uint32_t pad;
    uint64_t xcr0;                   /* XCR0 while guest code runs */
    uint64_t ucode_rev;              /* MSR 0x8b (Intel) / PATCHLEVEL (AMD) */
    uint64_t misc_enable;            /* Intel's MSR 0x1a0 as firmware set it */
    struct perch_cpuid_entry entries[PERCH_CPUID_ENTRIES];
};

/*
 * --gdb: a vCPU's registers at a stop for gdb, as the Host saved them when
 * the guest last entered it, and the page tables the Launcher walks for
 * gdb's memory reads (the mode's L4s, machine addresses).
 */
#define PERCH_GDB_BREAKPOINTS 64
#define PERCH_GDB_STOP_TRAP   5    /* SIGTRAP: a step, --gdb-wait */
#define PERCH_GDB_STOP_INT    2    /* SIGINT: the Launcher asked (Ctrl-C) */
#define PERCH_GDB_STOP_BREAKPOINT 0x105  /* SIGTRAP at an int3 of the table */
#define PERCH_GDB_STOP_OFFLINE 0x200 /* a vCPU not up (never started, or
                                      * down): no registers to show */
#define PERCH_GDB_CONTINUE    0
#define PERCH_GDB_STEP        1
struct perch_gdb_regs {
    uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
    uint64_t rip, rflags, cs, ss;
    uint64_t fs_base, gs_base;
    uint64_t kernel_cr3, user_cr3;   /* user_cr3 0: none */
    uint64_t in_kernel;
};

/*
 * One page (two, with the ring) that the Launcher and the Host share. The
 * Launcher writes `boot` before the vCPU first runs and treats everything
 * else as untrusted: the guest kernel can reach Host memory by design.
 */
struct perch_shared {
    struct {
        uint64_t guest_mfn_base;     /* machine frame of pseudo-physical 0 */
        uint64_t guest_nr_pages;
        uint64_t machine_frames;     /* frames in the memslot (alias size) */
        uint64_t kernel_cr3;
        uint64_t shared_info_mfn;
        uint64_t m2p_maddr;          /* machine address of M2P entry 0 */
        uint64_t frame_table_va;     /* the Host's per-frame table (mm) */
        uint64_t strict;             /* --strict: Xen's page-type rules */
        uint64_t optimizations_off;  /* PERCH_OPT_* switched off, for --vs */
        uint64_t nr_vcpus;           /* 1 to PERCH_MAX_VCPUS */
        uint64_t secondary_cr3;      /* the CR3 vCPUs past the first start
                                      * on: perch's own L4, the hole only */
        uint64_t gdt_l1_maddr[PERCH_MAX_VCPUS];  /* each vCPU's L1 entries
                                      * mapping its GDT's 16 pages */
        uint64_t gdt_zero_maddr;     /* the frame behind unused GDT pages */
        uint64_t tsc_khz;
        uint64_t wallclock_ns;       /* Unix time at guest TSC 0 */
        /* What perch writes into every guest L4 it accepts: its slots'
         * entries for a kernel view (257, 258) and for a user view (257). */
        uint64_t kernel_slot_257, kernel_slot_258, user_slot_257;
        /* The guest's start-of-day registers: the Host starts first
         * (host_boot_entry) and then enters the guest kernel. */
        uint64_t guest_rip, guest_rsp, guest_rsi;
        /* The ring console's port (PERCH_CONSOLE_PORT); 0: none. */
        uint64_t console_port;
        /* xenstore's port (PERCH_XENSTORE_PORT); 0: none. */
        uint64_t xenstore_port;
        /* --no-guest-isolation: guest user runs on the kernel's L4. */
        uint64_t no_guest_isolation;
        /* The grant table: grant_nr_frames consecutive perch-private
         * frames from grant_first_mfn (0 frames: no grant table). */
        uint64_t grant_first_mfn;
        uint64_t grant_nr_frames;
        /* The CPU the guest's CPUID and MSR answers start from. */
        struct perch_cpu cpu;
        /* The kernel's own text (its ELF's read-execute segment), the only
         * place host/cpu/insn_patch.c patches; 0, 0: none. */
        uint64_t kernel_text_start, kernel_text_end;
        /* What the kernel's symbols say, for host/cpu/insn_patch.c. The
         * Launcher reads them while the guest boots and then sets
         * kernel_symbols (release order): PERCH_SYMBOLS_*. r11_readers:
         * the kernel functions that take r11 as an input (the retpoline
         * thunks through r11): a call to one reads it; 0: unused slot.
         * jump_table: Linux's jump-label table in the kernel's memory
         * (entries of s32 code, s32 target, s64 key, each relative to its
         * own field): a nop or jmp listed there is a branch both ways;
         * 0, 0: unknown. */
        uint64_t kernel_symbols;
        uint64_t r11_readers[4];
        uint64_t jump_table_start, jump_table_end;
        /* Where Linux makes its hypercalls and its iret (the kernel's
         * xen_hypercall_pv and xen_iret), for host/cpu/direct_calls.c;
         * 0: unknown. Given before the first vCPU runs, or not at all. */
        uint64_t hypercall_func, iret_func;
        /* The kernel's hypercall page (its HYPERCALL_PAGE note: how older
         * kernels call), filled with `syscall` stubs by the Launcher; 0:
         * none. Set before the first vCPU runs. */
        uint64_t hypercall_page;
        /* TSC ticks the guest must not see: `perch restore` of a guest
         * whose TSC is the machine's own (PVM runs CPL3 rdtsc natively),
         * which went on while the guest lay in its file. The Host's clock
         * is the TSC less this; set before any vCPU runs. */
        uint64_t tsc_skip;
        /* Where each vCPU's vcpu_info lies once the guest registered it
         * (VCPUOP_register_vcpu_info; 0: in shared_info), written by the
         * Host, for `perch restore` to move its pvclock record on. */
        uint64_t vcpu_info_maddr[PERCH_MAX_VCPUS];
    } boot;

    struct {
        uint32_t reason;             /* enum perch_request */
        uint32_t pad;
        uint64_t arg[4];
        char message[PERCH_FATAL_MSG_BYTES];
        /* Where the guest was when it crashed (SHUTDOWN_crash) or broke a
         * rule (PERCH_REQ_FATAL): the rip its last entry into the Host
         * would return to (a hypercall's caller, a fault's instruction),
         * its rsp, and the words on its stack from rsp up, as far as they
         * could be read. known 0: no guest entry yet (the Host's boot).
         * Numbers only, which a guest kernel may forge: the Launcher
         * prints and looks them up, never follows them. */
        struct {
            uint32_t known;
            uint32_t kernel;         /* 1: guest-kernel mode, 0: user */
            uint64_t rip, rsp;
            uint32_t nr_stack;       /* words in stack[] */
            uint32_t pad;
            uint64_t stack[PERCH_WHERE_STACK_WORDS];
        } where;
    } request;


    struct {
        uint64_t hypercalls[XEN_NR_HYPERCALLS];
        uint64_t hypercalls_unknown;   /* numbers outside the table */
        uint64_t pt_updates;           /* PTEs written by mmu_update & co */
        uint64_t ptwr_emulations;      /* trapped PTE writes emulated */
        uint64_t visits[PERCH_VISIT_COUNT];
        uint64_t cr3_loads[PERCH_CR3_CAUSES]; /* the CR3 visits, by cause */
        uint64_t vectors[256];         /* ring-0 visits by vector */
        uint64_t cpl3_vectors[256];    /* events that reached the Host at CPL3 */
        uint64_t cpl3_user_syscalls;   /* guest-user `syscall`s at CPL3 */
        uint64_t pf_address_decoded;   /* CPL3 #PFs whose address was proven */
        uint64_t tlb_flushes_elided;   /* flush requests that needed none */
        uint64_t tlb_shootdowns;       /* flushes other vCPUs owed (host/mm/tlb.c) */
        uint64_t ipis_spared;          /* events to a vCPU that spun before sleeping */
        uint64_t syscalls_redirected;  /* `syscall`s made by #UD: the entry was unsure */
        uint64_t patched_stores;       /* PTE stores that came through a patch */
        uint64_t patch_sites_unlisted; /* traps at sites past the table's end */
        uint64_t direct_calls;         /* hypercalls and irets made without a trap */
        uint64_t frames_given_back;    /* by the balloon (decrease_reservation) */
        uint64_t frames_taken;         /* again (populate_physmap, increase_reservation) */
        uint32_t direct_state;         /* enum perch_direct_state */
        uint32_t pad_direct;
        uint32_t nr_patch_sites, pad_patch;
        struct perch_patch_site patch_sites[PERCH_PATCH_SITES];
        uint32_t nr_trapped_callers, pad_trapped;
        uint64_t trapped_callers_unlisted;
        struct perch_trapped_caller trapped_callers[PERCH_TRAPPED_CALLERS];
        uint32_t nr_msrs_seen, nr_cpuids_seen;
        struct perch_msr_seen msrs_seen[PERCH_MSRS_SEEN];
        struct perch_cpuid_seen cpuids_seen[PERCH_CPUIDS_SEEN];
    } stats;

    /* The same counts by vCPU, and what only one vCPU's view shows: each
     * vCPU writes its own, without the Host lock (--stats prints them
     * when there are several). */
    struct perch_vcpu_stats {
        uint64_t hypercalls;           /* made on this vCPU */
        uint64_t visits;               /* ring-0 visits */
        uint64_t cpl3_events;          /* events that reached the Host at CPL3 */
        uint64_t user_syscalls;        /* guest-user system calls */
        uint64_t syscalls_redirected;  /* of its `syscall`s, those made by #UD */
        uint64_t direct_calls;         /* hypercalls and irets without a trap */
        uint64_t lock_waits;           /* entries that found the Host lock held */
        uint64_t lock_wait_cycles;     /* TSC cycles spent waiting for it */
        uint64_t lock_held_cycles;     /* TSC cycles it held it */
        uint64_t asleep_cycles;        /* TSC cycles asleep in block or poll */
        uint64_t idle_spins;           /* spins before such a sleep */
        uint64_t idle_spins_woken;     /* of them, ended by another vCPU's event */
        uint64_t apic_stores;          /* its stores to the local APIC (KVM emulates each) */
    } vcpu_stats[PERCH_MAX_VCPUS];

    /* Each vCPU's steal-time area, KVM's struct kvm_steal_time: the
     * Launcher registers it (MSR_KVM_STEAL_TIME) and KVM itself writes
     * there how long the vCPU's thread waited for a host CPU (steal, ns;
     * version odd while it writes). The Host turns it into Xen's runnable
     * time (host/events/time.c); --stats prints it by vCPU. */
    struct perch_steal_time {
        uint64_t steal;
        uint32_t version;
        uint32_t flags;
        uint8_t preempted;
        uint8_t pad8[3];
        uint32_t pad[11];
    } __attribute__((aligned(64))) steal[PERCH_MAX_VCPUS];

    /* Back-end lines (PERCH_LINE_*): bit N is line N. Each word changes
     * by atomic or / exchange only; the Launcher trusts none of it. */
    struct {
        uint64_t notified;       /* the guest sent: Host sets, Launcher takes */
        uint64_t raised;         /* to raise: Launcher sets, Host takes */
        uint64_t connect;        /* to connect: Launcher sets, Host takes */
        uint32_t port[PERCH_LINES];       /* Launcher: the port to connect */
        uint32_t connected[PERCH_LINES];  /* Host: the port taken, 0: refused */
        /* The device thread sets it before its last look at notified
         * ahead of a sleep; the Host rings the device doorbell (an exit)
         * only when it finds it set, clearing it. */
        uint32_t devices_asleep;
    } lines;

    /* Console output: the Host produces, the Launcher consumes. The
     * console thread sets console_asleep before its last look at both
     * consoles ahead of a sleep; the Host rings the console doorbell only
     * when it finds it set, clearing it (a doorbell is an exit). A guest
     * that clears it only delays its own output. */
    uint32_t console_prod;
    uint32_t console_cons;
    uint32_t console_asleep;
    uint8_t console_ring[PERCH_CONSOLE_RING_BYTES];

    /* --gdb (host/entry/gdb.c, launcher/gdb/). Guest-writable like the rest:
     * the Host copies what it takes, the Launcher shows gdb numbers and
     * walks only guest frames. */
    struct {
        /* Written before the vCPU first runs, like boot, and read by the
         * Host once at boot: 0, and it never looks at the rest. */
        uint64_t enabled;
        /* Guest addresses holding an int3 the Launcher wrote (0: free):
         * the Host stops for gdb at these instead of bouncing the #BP. */
        uint64_t breakpoints[PERCH_GDB_BREAKPOINTS];
        /* Each vCPU's stop. Not a request: a vCPU stopped for gdb waits
         * in the Launcher with the Host lock let go, so that the others
         * can reach their own stops, and request belongs to the lock's
         * holder. The Launcher looks at `stopped` at every exit first. */
        struct perch_gdb_vcpu {
            uint64_t stop;        /* Launcher sets, Host takes: stop for gdb */
            uint64_t stopped;     /* Host, at its exit: PERCH_GDB_STOP_*;
                                   * Launcher takes (0: no stop) */
            uint64_t resume;      /* Launcher, at a stop: PERCH_GDB_CONTINUE/STEP */
            uint64_t regs_changed;    /* Launcher, at a stop: load regs back */
            struct perch_gdb_regs regs;   /* Host, at a stop: the guest's */
        } cpu[PERCH_MAX_VCPUS];
    } gdb;

    /* PERCH_REQ_RELEASE_FRAMES: nr ranges of machine frames, each the
     * guest's, that its balloon driver gave back (host/mm/reservation.c).
     * Numbers only, which a guest kernel may forge: the Launcher checks
     * each range against the guest's frames before it drops one. Last:
     * between request and stats, its 4 KiB once made the hang of two
     * vCPUs with --no-cpl3-events (since fixed: docs/design.md, "Several
     * vCPUs") come one run in five instead of one in 40, by timing. */
    struct {
        uint32_t nr;
        uint32_t pad;
        struct { uint64_t first_mfn, frames; } range[PERCH_RELEASE_RANGES];
    } release;
};

#endif /* !__ASSEMBLER__ */

#endif
