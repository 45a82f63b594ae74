/*
 * Unit tests of set_gdt (host/cpu/descriptors.c): the frame list's frames are
 * checked before the Host touches them, so a frame number far past machine
 * memory is refused without a pointer to it ever being formed.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "host_env.h"

#define FRAMES     64
#define GUEST_BASE 16
#define LIST_MFN   20          /* the frame list, mapped at VA */
#define GDT_MFN    21          /* a zeroed guest frame: empty descriptors */
#define GDT_L1     5           /* perch's L1 of the GDT's 16 pages */
#define VA         0xffffffff80200000ull

static uint64_t *frame(uint64_t mfn)
{
    return host_env_frame(mfn);
}

static void setup(void)
{
    host_env_reset(FRAMES);
    perch_shared.boot.guest_mfn_base = GUEST_BASE;
    perch_shared.boot.guest_nr_pages = FRAMES - GUEST_BASE;
    perch_shared.boot.gdt_l1_maddr[0] = GDT_L1 * 4096;
    host_env_map(VA, LIST_MFN, HOST_ENV_RW);
}

static void guest_frame_taken(void)
{
    setup();
    frame(LIST_MFN)[0] = GDT_MFN;
    CHECK(do_set_gdt(VA, 512, 0, 0, 0) == 0);
    CHECK((frame(GDT_L1)[0] & ~0xfffull & ~PTE_NX) == GDT_MFN * 4096);
}

/* Found by tests/fuzz/fuzz_multicall.c under UBSan: the frame's alias
 * address was computed before the frame was checked, and overflowed. */
static void frame_past_memory_refused(void)
{
    static const uint64_t bad[] = { 0x000fffffffffffffull, FRAMES, 3 };

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setup();
        frame(LIST_MFN)[0] = bad[i];
        CHECK(do_set_gdt(VA, 512, 0, 0, 0) == -XEN_EINVAL);
        CHECK(frame(GDT_L1)[0] == 0);
    }
}

int main(void)
{
    RUN(guest_frame_taken);
    RUN(frame_past_memory_refused);
    return check_exit_status();
}
