/* Which vCPU code runs on (cpu_id.h). */
#include "cpu_id.h"

#include "rt.h"

static bool gs_base_set;       /* vCPU 0's GS base points at its record */

unsigned rt_cpu_id(void)
{
    unsigned id;

    if (!__atomic_load_n(&gs_base_set, __ATOMIC_ACQUIRE))
        return 0;
    __asm__ volatile("movl %%gs:0, %0" : "=r"(id));
    return id;
}

long rt_cpu_id_start(const unsigned *record)
{
    long rc;

    if (gs_base_set)
        return 0;
    rc = hypercall2(HYPERVISOR_set_segment_base, SEGBASE_GS_KERNEL, (unsigned long)record);
    if (!rc)
        __atomic_store_n(&gs_base_set, true, __ATOMIC_RELEASE);
    return rc;
}
