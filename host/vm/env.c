/* The Host's environment inside the VM (see host/env.h). */
#include "../env.h"
#include "../host.h"

uint8_t *env_alias_base(void)
{
    return (uint8_t *)PERCH_ALIAS_VA;
}

void env_call_launcher(void)
{
    __asm__ volatile("call switcher_gate_exit" ::: "memory");
}

void env_ring_doorbell(void)
{
    *(volatile uint32_t *)HOST_DOORBELL_VA = 1;
}

uint64_t env_syscall_entry(void)
{
    extern char host_syscall_entry[];

    return (uint64_t)host_syscall_entry;
}

uint64_t env_user_rax(void)
{
    return *(volatile uint64_t *)SW_USER_RAX_SLOT;
}

void env_set_kernel_cr3_slot(uint64_t cr3)
{
    *(volatile uint64_t *)SW_KERNEL_CR3_SLOT = cr3;
}

/* The kernel-view #PF stub pushes CR2 below the CPU's frame; the user-view
 * one stores it in a slot. */
uint64_t env_fault_address(bool from_user)
{
    if (from_user)
        return *(volatile uint64_t *)SW_CR2_SLOT;
    return *(volatile uint64_t *)(SW_STACK_TOP(SW_EXC_STACK_VA) - 56);
}

void env_write_fs_base(uint64_t base)
{
    __asm__ volatile("wrfsbase %0" :: "r"(base));
}

void env_write_gs_base(uint64_t base)
{
    __asm__ volatile("wrgsbase %0" :: "r"(base));
}
