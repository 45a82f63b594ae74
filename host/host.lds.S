/* The Host image, linked where the Launcher maps it (HOST_IMAGE_VA). The
 * header comes first and the syscall entry right after it, in the page that
 * MSR_LSTAR points into. The Switcher's fixed addresses and vCPU 0's
 * area are defined here so entry.S can reach them RIP-relative. */
#include "../abi/layout.h"

ENTRY(host_syscall_entry)
SECTIONS
{
    . = HOST_IMAGE_VA;
    .text : { KEEP(*(.header)) *(.entry) *(.text .text.*) }
    .rodata : { *(.rodata .rodata.*) *(.data.rel.ro .data.rel.ro.*) }
    . = ALIGN(4096);
    .data : { *(.data .data.*) *(.got .got.plt) }
    host_file_end = .;
    .bss : { *(.bss .bss.*) *(COMMON) }
    . = ALIGN(4096);
    host_memory_end = .;
    /DISCARD/ : { *(.comment) *(.note*) *(.eh_frame*) *(.interp) *(.dynamic) *(.dynsym) *(.dynstr) *(.hash) *(.gnu.hash) }
}

host_cpu0 = HOST_CPU_VA;
host_cpu0_exc_top = HOST_CPU_EXC_TOP;
switcher_gate_resume = SW_GATE_RESUME;
switcher_gate_cr3_resume = SW_GATE_CR3_RESUME;
switcher_gate_exit = SW_GATE_EXIT;
switcher_gate_halt = SW_GATE_HALT;
switcher_gate_read_cr2 = SW_GATE_READ_CR2;
switcher_gate_probe_iretq = SW_GATE_PROBE_IRETQ;
switcher_gate_probe_sysretq = SW_GATE_PROBE_SYSRETQ;
switcher_gate_probe_swapgs = SW_GATE_PROBE_SWAPGS;
switcher_gate_probe_cr3 = SW_GATE_PROBE_CR3;
switcher_gate_probe_iretq_end = SW_GATE_PROBE_IRETQ_END;
ASSERT(host_memory_end - HOST_IMAGE_VA <= HOST_IMAGE_MAX, "Host image too large")
