/* Which guest mode runs, kernel or user, and the address spaces each needs. */
#include "guest_mode.h"

#include "env.h"

struct vcpu vcpu0 = { .in_kernel = true };
uint32_t optimizations_off;

void guest_mode_start(uint64_t kernel_cr3, bool isolation_off)
{
    guest_set_kernel_cr3(kernel_cr3);
    vcpu0.loaded_cr3 = kernel_cr3;   /* the Launcher loaded it before the vCPU ran */
    vcpu0.in_kernel = true;
    vcpu0.isolation_off = isolation_off;
}

bool guest_isolation_off(void)
{
    return vcpu0.isolation_off;
}

void guest_set_kernel_cr3(uint64_t cr3)
{
    vcpu0.kernel_cr3 = cr3;
    env_set_kernel_cr3_slot(cr3);
}

void guest_enter_kernel(void)
{
    if (vcpu0.in_kernel)
        return;
    vcpu0.in_kernel = true;
    env_write_gs_base(vcpu0.gs_base_kernel);
}

void guest_enter_user(void)
{
    if (!vcpu0.in_kernel)
        return;
    vcpu0.in_kernel = false;
    env_write_gs_base(vcpu0.gs_base_user);
}

void guest_arrived_from_user(void)
{
    vcpu0.loaded_cr3 = vcpu0.kernel_cr3;
}
