/* libFuzzer harness of multicall (host/xen/multicall.c): its entries and data in guest memory. */
#include "fuzz.h"
#include "machine.h"
#include "host_env.h"

#include "../../host/xen/multicall.h"

/* At most this many entries a batch: each may be any hypercall. */
#define MAX_ENTRIES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned head = (unsigned)fuzz_uint(&in, 1);
    uint64_t count = (head >> 1) % (MAX_ENTRIES + 1);
    const uint8_t *p;
    size_t n;
    long rc;

    if (!fuzz_machine_boot(head & 1))
        abort();
    multicall_stat_entries = 0;
    p = fuzz_bytes(&in, FUZZ_BUF_PAGES * 4096, &n);
    fuzz_machine_fill(FUZZ_BUF_MFN, p, n);
    p = fuzz_bytes(&in, FUZZ_DATA_PAGES * 4096, &n);
    fuzz_machine_fill(FUZZ_DATA_MFN, p, n);
    /* All entries ran, or an entry unmapped the batch's own pages. */
    if (FUZZ_HYPERCALL(do_multicall(FUZZ_BUF_VA, count, 0, 0, 0), rc))
        FUZZ_ASSERT(rc == 0 ? multicall_stat_entries == count : rc == -XEN_EFAULT);
    FUZZ_ASSERT(multicall_stat_entries <= count);
    return 0;
}
