/* libFuzzer harness of mmu_update, mmuext_op and update_va_mapping (host/mm/mmu_hypercalls.c). */
#include "fuzz.h"
#include "machine.h"
#include "host_env.h"

#include "../../abi/xen/xen.h"
#include "../../host/mm/mm.h"

#define MAX_CALLS 4
#define CALL_BYTES 30      /* what one call takes from the input */

/* One hypercall described by CALL_BYTES of input; false if it stopped
 * the guest. */
static bool call(struct fuzz_in *in)
{
    unsigned kind = (unsigned)fuzz_uint(in, 1);
    uint64_t count = fuzz_uint(in, 1) % 16;
    uint64_t at = FUZZ_BUF_VA + fuzz_uint(in, 2) % (FUZZ_BUF_PAGES * 4096);
    uint64_t done = kind & 0x80 ? FUZZ_BUF_VA + FUZZ_BUF_PAGES * 4096 - 8 : 0;
    uint64_t dom = fuzz_uint(in, 2);
    uint64_t va = fuzz_uint(in, 8), val = fuzz_uint(in, 8);
    uint64_t flags = fuzz_uint(in, 8);
    long rc;

    if (!(kind & 0x40))
        dom = DOMID_SELF;
    switch (kind % 3) {
    case 0:
        return FUZZ_HYPERCALL(do_mmu_update(at, count, done, dom, 0), rc);
    case 1:
        return FUZZ_HYPERCALL(do_mmuext_op(at, count, done, dom, 0), rc);
    default:
        return FUZZ_HYPERCALL(do_update_va_mapping(va, val, flags, 0, 0), rc);
    }
}

/* perch's slots in the guest kernel's L4, whatever the guest asked, in
 * strict mode. (In the default mode the guest may clear or write its own
 * tables, MMUEXT_CLEAR_PAGE included: that mode is no wall, host/mm/mm.h.) */
static void check_kernel_view(void)
{
    uint64_t l4 = current->kernel_cr3 >> 12;
    const uint64_t *e;

    FUZZ_ASSERT(l4 >= FUZZ_GUEST_BASE && l4 < FUZZ_FRAMES);
    e = host_env_frame(l4);
    FUZZ_ASSERT(e[257] == perch_shared.boot.kernel_slot_257);
    FUZZ_ASSERT(e[258] == perch_shared.boot.kernel_slot_258);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned head = (unsigned)fuzz_uint(&in, 1);
    unsigned calls = 1 + (head >> 1) % MAX_CALLS;
    struct fuzz_in args;
    const uint8_t *p;
    size_t n;

    if (!fuzz_machine_boot(head & 1))
        abort();
    /* The calls' descriptions first, then the request buffer, then data. */
    args.p = fuzz_bytes(&in, calls * CALL_BYTES, &args.n);
    p = fuzz_bytes(&in, FUZZ_BUF_PAGES * 4096 - 8, &n);
    fuzz_machine_fill(FUZZ_BUF_MFN, p, n);
    p = fuzz_bytes(&in, FUZZ_DATA_PAGES * 4096, &n);
    fuzz_machine_fill(FUZZ_DATA_MFN, p, n);
    for (unsigned i = 0; i < calls && call(&args); i++)
        if (head & 1)
            check_kernel_view();
    return 0;
}
