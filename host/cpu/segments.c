/* set_segment_base: the FS and GS bases of the guest, kernel and user. */
#include "../core/env.h"
#include "../core/host.h"
#include "../core/vcpu.h"

long do_set_segment_base(uint64_t which, uint64_t base, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    if (which != SEGBASE_GS_USER_SEL && !va_canonical(base))
        return -XEN_EINVAL;
    switch (which) {
    case SEGBASE_FS:
        current->fs_base = base;
        env_write_fs_base(base);
        return 0;
    case SEGBASE_GS_USER:
        current->gs_base_user = base;
        return 0;
    case SEGBASE_GS_KERNEL:
        current->gs_base_kernel = base;
        if (current->in_kernel)
            env_write_gs_base(base);
        return 0;
    case SEGBASE_GS_USER_SEL:
        /* A flat selector for user %gs: its base becomes 0. */
        current->gs_base_user = 0;
        return 0;
    default:
        return -XEN_EINVAL;
    }
}
