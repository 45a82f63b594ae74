/*
 * A small booted PV machine for the Host's fuzz harnesses
 * (tests/fuzz/machine.c), on host_env's stand-in memory: the state
 * host/entry/boot.c leaves behind (page tables checked by mm_boot, event
 * channels, the console's port, time, the grant table), with a request buffer and data
 * pages mapped for the guest kernel, which the fuzz input fills.
 */
#ifndef PERCH_TESTS_FUZZ_MACHINE_H
#define PERCH_TESTS_FUZZ_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FUZZ_FRAMES      64
#define FUZZ_GUEST_BASE  16          /* frames 0-15: perch-private */
#define FUZZ_SHARED_INFO 3
#define FUZZ_M2P         4           /* 512 entries: the whole M2P */
#define FUZZ_GRANT_MFN   8           /* the grant table's frames */
#define FUZZ_GRANT_FRAMES 4
#define FUZZ_BUF_MFN     16          /* FUZZ_BUF_PAGES frames at FUZZ_BUF_VA */
#define FUZZ_BUF_PAGES   2
#define FUZZ_DATA_MFN    20          /* FUZZ_DATA_PAGES frames at FUZZ_DATA_VA */
#define FUZZ_DATA_PAGES  4
#define FUZZ_BUF_VA      0xffffc90000000000ull
#define FUZZ_DATA_VA     (FUZZ_BUF_VA + FUZZ_BUF_PAGES * 4096)   /* one L1 for both */

/* Boot the machine afresh, in strict mode or not; false if mm_boot
 * refused it (a bug of this file). */
bool fuzz_machine_boot(bool strict);

/* Copy up to n bytes into the guest's frames from mfn on (within machine
 * memory); returns how many. */
size_t fuzz_machine_fill(uint64_t mfn, const uint8_t *bytes, size_t n);

/* Run a hypercall handler; false if it stopped the guest (a request the
 * Launcher never resumes from, or a resume). */
#define FUZZ_HYPERCALL(call, rc) (!HOST_ENV_EXPECT_STOP((rc) = (call)))

#endif
