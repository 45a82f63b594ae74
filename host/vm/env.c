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
