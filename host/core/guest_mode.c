/* Which guest mode runs, kernel or user, and the address spaces each needs. */
#include "guest_mode.h"

#include "env.h"

/* The domain's settings (vcpu.h). */
unsigned host_nr_vcpus = 1;
uint32_t optimizations_off;
uint64_t vm_assist_enabled;

void guest_mode_start(uint64_t kernel_cr3, bool isolation_off)
{
    guest_set_kernel_cr3(kernel_cr3);
    current->loaded_cr3 = kernel_cr3;   /* the Launcher loaded it before the vCPU ran */
    current->in_kernel = true;
    current->isolation_off = isolation_off;
}

void guest_set_kernel_cr3(uint64_t cr3)
{
    current->kernel_cr3 = cr3;
    env_set_kernel_cr3_slot(cr3);
}

uint64_t guest_gs_base(void)
{
    return current->in_kernel ? current->gs_base_kernel : current->gs_base_user;
}
