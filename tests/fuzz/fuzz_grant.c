/*
 * libFuzzer harness of grant_table_op (host/xen/grant_table.c): any command,
 * count and argument pointer, the argument and a frame list in guest
 * memory. Whatever comes, the call answers with one of Xen's errors, and
 * the table stays within the frames the Launcher set aside, so an L1
 * entry can never be made to map a perch frame beyond them.
 */
#include "fuzz.h"
#include "machine.h"
#include "host_env.h"

#include "../../abi/xen/grant_table.h"
#include "../../host/xen/grant_table.h"

/* Where the argument points: into the request buffer, the data pages, or
 * anywhere at all (the hole, unmapped, non-canonical). */
static uint64_t pointer(struct fuzz_in *in)
{
    uint64_t sel = fuzz_uint(in, 1), off = fuzz_uint(in, 2);

    switch (sel & 3) {
    case 0:
        return FUZZ_BUF_VA + off % (FUZZ_BUF_PAGES * 4096);
    case 1:
        return FUZZ_DATA_VA + off % (FUZZ_DATA_PAGES * 4096);
    default:
        return fuzz_uint(in, 8);
    }
}

static bool known_error(long rc)
{
    return rc == 0 || rc == -XEN_EINVAL || rc == -XEN_EFAULT ||
           rc == -XEN_ENOSYS || rc == -XEN_ESRCH;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint64_t head = fuzz_uint(&in, 1);
    /* Mostly the operations perch serves, sometimes any 64-bit command. */
    uint64_t cmd = head & 0x80 ? fuzz_uint(&in, 8) : head & 0xf;
    uint64_t count = head & 0x40 ? fuzz_uint(&in, 8) : 1;
    uint64_t uop = pointer(&in);
    const uint8_t *p;
    size_t n;
    long rc;

    if (!fuzz_machine_boot(head & 0x20))
        abort();
    p = fuzz_bytes(&in, FUZZ_BUF_PAGES * 4096, &n);
    fuzz_machine_fill(FUZZ_BUF_MFN, p, n);
    p = fuzz_bytes(&in, FUZZ_DATA_PAGES * 4096, &n);
    fuzz_machine_fill(FUZZ_DATA_MFN, p, n);
    FUZZ_ASSERT(FUZZ_HYPERCALL(do_grant_table_op(cmd, uop, count, 0, 0), rc));
    FUZZ_ASSERT(known_error(rc));
    FUZZ_ASSERT(grant_table_frame(FUZZ_GRANT_MFN));
    FUZZ_ASSERT(!grant_table_frame(FUZZ_GRANT_MFN - 1));
    FUZZ_ASSERT(!grant_table_frame(FUZZ_GRANT_MFN + FUZZ_GRANT_FRAMES));
    FUZZ_ASSERT(!grant_table_frame(FUZZ_GUEST_BASE));
    return 0;
}
