/* The Switcher image: a header page, the gate page, then the code pages.
 * Load addresses (AT) make the flat binary contiguous; the Launcher maps
 * the gate page at SW_GATE_VA and the code at SW_CODE_VA in every vCPU's
 * block. */
#include "../abi/layout.h"

ENTRY(vector_stubs)
SECTIONS
{
    .header 0 : AT(0) { KEEP(*(.header)) }
    .gates SW_GATE_VA : AT(0x1000) { *(.gates) }
    .text SW_CODE_VA : AT(0x2000) { *(.text .text.*) *(.rodata .rodata.*) }
    /DISCARD/ : { *(.data) *(.bss) *(.note*) *(.comment) *(.eh_frame) }
}

/* vCPU 0's data, reached RIP-relative (each vCPU's code finds its own). */
sw_handoff = SW_HANDOFF_VA;
sw_user_rax_slot = SW_USER_RAX_SLOT;
sw_cr2_slot = SW_CR2_SLOT;
sw_kernel_cr3_slot = SW_KERNEL_CR3_SLOT;
sw_wake_slot = SW_WAKE_SLOT;
sw_kernel_idtr = SW_KERNEL_IDTR;
sw_halt_idtr = SW_HALT_IDTR;

ASSERT(gate_halt == SW_GATE_HALT, "gate_halt is not at SW_GATE_HALT")
ASSERT(halt_wake == SW_HALT_WAKE_RIP, "halt_wake is not at SW_HALT_WAKE_RIP")
ASSERT(gate_read_cr2 == SW_GATE_READ_CR2, "gate_read_cr2 is not at SW_GATE_READ_CR2")
