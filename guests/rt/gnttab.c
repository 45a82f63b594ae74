/* A front end's v1 grant table (gnttab.h). */
#include "gnttab.h"

#include "rt.h"

#define PTE_KERNEL_RW (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)

static uint8_t table_window[RT_GNTTAB_FRAMES][4096] __attribute__((aligned(4096)));
volatile struct grant_entry_v1 *rt_gnttab;

uint64_t rt_virt_to_mfn(const void *va)
{
    const uint64_t *p2m = (const uint64_t *)rt_start_info->mfn_list;

    return p2m[((uint64_t)va - RT_VIRT_BASE) >> 12];
}

bool rt_gnttab_init(uint32_t nr_frames)
{
    uint64_t frames[RT_GNTTAB_FRAMES];
    struct gnttab_setup_table op = {
        .dom = DOMID_SELF, .nr_frames = nr_frames, .frame_list = (uint64_t)frames,
    };
    long rc;

    if (nr_frames > RT_GNTTAB_FRAMES)
        return false;
    rc = hypercall3(HYPERVISOR_grant_table_op, GNTTABOP_setup_table, (unsigned long)&op, 1);
    if (rc || op.status != GNTST_okay) {
        test_fail("gnttab_setup_table", "rc %ld, status %d", rc, op.status);
        return false;
    }
    for (uint32_t i = 0; i < nr_frames; i++) {
        rc = hypercall3(HYPERVISOR_update_va_mapping, (unsigned long)table_window[i],
                        frames[i] << 12 | PTE_KERNEL_RW, UVMF_INVLPG);
        if (rc) {
            test_fail("gnttab_map", "frame %u (mfn %#lx): update_va_mapping = %ld", i,
                      (unsigned long)frames[i], rc);
            return false;
        }
    }
    rt_gnttab = (volatile struct grant_entry_v1 *)table_window;
    return true;
}

void rt_gnttab_grant(grant_ref_t ref, domid_t dom, uint64_t mfn, bool readonly)
{
    volatile struct grant_entry_v1 *g = &rt_gnttab[ref];

    g->frame = (uint32_t)mfn;
    g->domid = dom;
    __atomic_thread_fence(__ATOMIC_RELEASE);   /* flags last: the entry is live */
    g->flags = GTF_permit_access | (readonly ? GTF_readonly : 0);
}

bool rt_gnttab_end(grant_ref_t ref)
{
    uint16_t flags = rt_gnttab[ref].flags;

    do {
        if (flags & (GTF_reading | GTF_writing))
            return false;
    } while (!__atomic_compare_exchange_n(&rt_gnttab[ref].flags, &flags, 0, false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return true;
}
