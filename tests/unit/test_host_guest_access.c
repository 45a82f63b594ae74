/*
 * Unit tests of copy_from_guest/copy_to_guest (host/core/guest_access.c): the
 * software walk of the guest-kernel page tables and the copy through the
 * alias of machine memory. Machine memory is a heap buffer of FRAMES frames
 * (host_env.c), so with AddressSanitizer any access outside it is caught.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "host_env.h"
#include "../../host/core/vcpu.h"

#define FRAMES   128
#define VA       0xffffffff80200000ull   /* a Linux-like kernel address */
#define LOW_VA   0x0000000000400000ull   /* lower half */
#define MFN      16                      /* data frames: 16 .. 16+N */
#define EFAULT   (-XEN_EFAULT)

static uint8_t pattern(uint64_t i)
{
    return (uint8_t)(i * 13 + 7 + (i >> 8));
}

static void fill_frames(uint64_t mfn, uint64_t pages)
{
    uint8_t *p = host_env_frame(mfn);

    for (uint64_t i = 0; i < pages * 4096; i++)
        p[i] = pattern(i);
}

/* Machine memory with `pages` pages at VA -> MFN.. filled with pattern(). */
static void setup(uint64_t pages, uint64_t flags)
{
    host_env_reset(FRAMES);
    fill_frames(MFN, pages);
    host_env_map_range(VA, MFN, pages, flags);
}

static int matches_pattern(const uint8_t *p, uint64_t from, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != pattern(from + i))
            return 0;
    return 1;
}

/* ---- Successful copies ---------------------------------------------------- */

static void read_one_byte(void)
{
    uint8_t b = 0;

    setup(1, HOST_ENV_RO);
    CHECK(copy_from_guest(&b, VA + 0x345, 1) == 0);
    CHECK(b == pattern(0x345));
    CHECK(copy_from_guest(&b, VA + 0xfff, 1) == 0);
    CHECK(b == pattern(0xfff));
}

static void read_crossing_a_page(void)
{
    uint8_t buf[64];

    setup(2, HOST_ENV_RO);
    CHECK(copy_from_guest(buf, VA + 4096 - 10, sizeof(buf)) == 0);
    CHECK(matches_pattern(buf, 4096 - 10, sizeof(buf)));
}

/* Frames that are not contiguous: each page's own translation is used. */
static void read_crossing_into_a_scattered_frame(void)
{
    uint8_t buf[32];

    host_env_reset(FRAMES);
    memset(host_env_frame(MFN), 'a', 4096);
    memset(host_env_frame(MFN + 1), 'x', 4096);
    memset(host_env_frame(MFN + 40), 'b', 4096);
    host_env_map(VA, MFN, HOST_ENV_RO);
    host_env_map(VA + 4096, MFN + 40, HOST_ENV_RO);
    CHECK(copy_from_guest(buf, VA + 4096 - 16, sizeof(buf)) == 0);
    CHECK(memcmp(buf, "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb", 32) == 0);
}

static void read_many_pages(void)
{
    size_t len = 5 * 4096 + 100;
    uint8_t *buf = malloc(len);

    setup(7, HOST_ENV_RO);
    CHECK(buf);
    if (copy_from_guest(buf, VA + 1000, len) != 0 ||
        !matches_pattern(buf, 1000, len)) {
        free(buf);
        CHECK(!"7-page copy");
    }
    free(buf);
}

static void write_many_pages_exactly(void)
{
    size_t len = 3 * 4096 + 1;
    uint8_t *src = malloc(len);
    uint8_t *mem;
    int ok = 1;

    host_env_reset(FRAMES);
    host_env_map_range(VA, MFN, 5, HOST_ENV_RW);
    CHECK(src);
    for (size_t i = 0; i < len; i++)
        src[i] = pattern(i);
    if (copy_to_guest(VA + 4095, src, len) != 0)
        ok = 0;
    mem = host_env_frame(MFN);
    for (size_t i = 0; ok && i < 5 * 4096; i++) {
        uint8_t want = (i >= 4095 && i < 4095 + len) ? pattern(i - 4095) : 0;

        if (mem[i] != want)
            ok = 0;
    }
    free(src);
    CHECK(ok);
}

static void zero_length_touches_nothing(void)
{
    uint8_t b = 0x77;

    host_env_reset(FRAMES);
    CHECK(copy_from_guest(&b, 0, 0) == 0);
    CHECK(copy_to_guest(0xdead000000000000ull, &b, 0) == 0);
    CHECK(b == 0x77);
}

static void lower_half_and_top_of_upper_half(void)
{
    uint8_t b;

    host_env_reset(FRAMES);
    fill_frames(MFN, 2);
    host_env_map(LOW_VA, MFN, HOST_ENV_RO);
    host_env_map(0xfffffffffffff000ull, MFN + 1, HOST_ENV_RO);
    host_env_map(0x00007ffffffff000ull, MFN, HOST_ENV_RO);
    host_env_map(XEN_HOLE_END, MFN, HOST_ENV_RO);   /* first address past the hole */
    CHECK(copy_from_guest(&b, LOW_VA + 5, 1) == 0 && b == pattern(5));
    CHECK(copy_from_guest(&b, 0xffffffffffffffffull, 1) == 0 && b == pattern(8191));
    CHECK(copy_from_guest(&b, 0x00007fffffffffffull, 1) == 0 && b == pattern(4095));
    CHECK(copy_from_guest(&b, XEN_HOLE_END, 1) == 0 && b == pattern(0));
}

/* Bits the walk must ignore: NX, A/D, the available bits, CR3's low bits. */
static void ignored_bits(void)
{
    uint8_t b;

    host_env_reset(FRAMES);
    fill_frames(MFN, 1);
    host_env_map(VA, MFN, PTE_P | PTE_US | PTE_NX | (0x7ffull << 52) | (7ull << 9) |
                              PTE_G | PTE_PWT | PTE_PCD);
    current->kernel_cr3 |= 0x18;   /* PWT | PCD */
    CHECK(copy_from_guest(&b, VA + 77, 1) == 0);
    CHECK(b == pattern(77));
}

/* The last frame of machine memory is inside it: host_env_map() puts the
 * root table there, so map it as data and read an entry back. */
static void last_machine_frame_is_usable(void)
{
    uint64_t e = 0;

    host_env_reset(FRAMES);
    host_env_map(VA, FRAMES - 1, HOST_ENV_RO);
    CHECK(current->kernel_cr3 == (uint64_t)(FRAMES - 1) << 12);
    CHECK(copy_from_guest(&e, VA + 511 * 8, 8) == 0);   /* VA's L4 slot */
    CHECK(e == *host_env_pte(VA, 3));
    CHECK(e & PTE_P);
}

/* ---- Refused addresses ---------------------------------------------------- */

static void non_canonical_refused(void)
{
    static const uint64_t vas[] = {
        0x0000800000000000ull, 0x0000800000001000ull, 0x1234567800000000ull,
        0x8000000000000000ull, 0xffff7fffffffffffull, 0xfffe800000000000ull,
    };
    uint8_t b = 0;

    host_env_reset(FRAMES);
    /* Map the same page-table indices as each address: only canonicity
     * can refuse them. */
    for (size_t i = 0; i < sizeof(vas) / sizeof(vas[0]); i++)
        host_env_map(vas[i] & ~0xfffull, MFN, HOST_ENV_RW);
    for (size_t i = 0; i < sizeof(vas) / sizeof(vas[0]); i++) {
        CHECK(copy_from_guest(&b, vas[i], 1) == EFAULT);
        CHECK(copy_to_guest(vas[i], &b, 1) == EFAULT);
    }
}

/* A copy running off the end of the lower half into non-canonical space. */
static void copy_into_non_canonical_refused(void)
{
    uint8_t buf[16];

    host_env_reset(FRAMES);
    host_env_map(0x00007ffffffff000ull, MFN, HOST_ENV_RW);
    host_env_map(0x0000800000000000ull, MFN + 1, HOST_ENV_RW);  /* L4 index 256 */
    CHECK(copy_from_guest(buf, 0x00007ffffffffff8ull, sizeof(buf)) == EFAULT);
    CHECK(copy_from_guest(buf, 0x00007ffffffffff8ull, 8) == 0);
}

static void hypervisor_hole_refused(void)
{
    static const uint64_t vas[] = {
        XEN_HOLE_START, XEN_HOLE_START + 0x1000, PERCH_REGION_VA, HOST_IMAGE_VA,
        PERCH_ALIAS_VA, PERCH_ALIAS_VA + 0x10000, XEN_HOLE_END - 1,
        0xffff87fffffff000ull,
    };
    uint8_t b = 0;

    host_env_reset(FRAMES);
    for (size_t i = 0; i < sizeof(vas) / sizeof(vas[0]); i++)
        host_env_map(vas[i] & ~0xfffull, MFN, HOST_ENV_RW);
    for (size_t i = 0; i < sizeof(vas) / sizeof(vas[0]); i++) {
        CHECK(copy_from_guest(&b, vas[i], 1) == EFAULT);
        CHECK(copy_to_guest(vas[i], &b, 1) == EFAULT);
    }
}

static void null_refused(void)
{
    uint8_t b = 0;

    setup(1, HOST_ENV_RW);
    CHECK(copy_from_guest(&b, 0, 1) == EFAULT);
    CHECK(copy_to_guest(0, &b, 1) == EFAULT);
    CHECK(copy_from_guest(&b, 8, 1) == EFAULT);
}

static void no_page_tables_refused(void)
{
    uint8_t b = 0;

    host_env_reset(FRAMES);   /* kernel_cr3 = 0: frame 0, all zero */
    CHECK(copy_from_guest(&b, VA, 1) == EFAULT);
    CHECK(copy_to_guest(VA, &b, 1) == EFAULT);
}

/* Clear `bits` in the entry for VA at `level`; the copy must fail. */
static int refused_with(int level, uint64_t clear, uint64_t set, int write)
{
    uint8_t b = 0;
    uint64_t *e;

    setup(1, HOST_ENV_RW);
    e = host_env_pte(VA, level);
    if (!e)
        return 0;
    *e = (*e & ~clear) | set;
    return write ? copy_to_guest(VA, &b, 1) == EFAULT
                 : copy_from_guest(&b, VA, 1) == EFAULT;
}

static void not_present_at_each_level_refused(void)
{
    for (int level = 3; level >= 0; level--) {
        CHECK(refused_with(level, PTE_P, 0, 0));
        CHECK(refused_with(level, PTE_P, 0, 1));
        CHECK(refused_with(level, ~0ull, 0, 0));
    }
}

static void supervisor_only_at_each_level_refused(void)
{
    for (int level = 3; level >= 0; level--) {
        CHECK(refused_with(level, PTE_US, 0, 0));
        CHECK(refused_with(level, PTE_US, 0, 1));
    }
}

static void read_only_at_each_level(void)
{
    uint8_t b = 0x99;

    for (int level = 3; level >= 0; level--) {
        CHECK(refused_with(level, PTE_RW, 0, 1));
        CHECK(!refused_with(level, PTE_RW, 0, 0));   /* reading is fine */
    }
    /* And the refused write changed nothing. */
    setup(1, HOST_ENV_RO);
    CHECK(copy_to_guest(VA + 3, &b, 1) == EFAULT);
    CHECK(((uint8_t *)host_env_frame(MFN))[3] == pattern(3));
}

/* perch takes no large pages (and PS is reserved in an L4 entry). */
static void large_page_entries_refused(void)
{
    uint8_t b = 0;

    for (int level = 3; level >= 1; level--) {
        CHECK(refused_with(level, 0, PTE_PS, 0));
        CHECK(refused_with(level, 0, PTE_PS, 1));
    }
    /* A well-formed 2 MiB mapping of frames that exist, too. */
    host_env_reset(FRAMES);
    host_env_map(VA, MFN, HOST_ENV_RW);
    *host_env_pte(VA, 1) = PTE_P | PTE_RW | PTE_US | PTE_PS;   /* frame 0.. */
    CHECK(copy_from_guest(&b, VA, 1) == EFAULT);
    CHECK(copy_from_guest(&b, VA + 0x1000, 1) == EFAULT);
}

/*
 * In an L1 entry bit 7 is PAT, not PS: a 4 KiB page with a PAT memory type
 * (Linux uses it for write-combining mappings) is still an ordinary page the
 * CPU, and Xen's copy_from_guest, read without complaint.
 */
static void l1_pat_bit_is_not_a_large_page(void)
{
    uint8_t b = 0;

    setup(1, HOST_ENV_RW | PTE_PS /* = PTE_PAT in an L1 entry */);
    CHECK(copy_from_guest(&b, VA + 9, 1) == 0);
    CHECK(b == pattern(9));
}

static void entries_outside_machine_memory_refused(void)
{
    uint8_t b = 0;

    /* An L4, L3 or L2 entry naming a table beyond the memslot, and an L1
     * entry naming a data frame beyond it: frames, frames + 1, far away. */
    for (int level = 3; level >= 0; level--) {
        CHECK(refused_with(level, PTE_ADDR_MASK, (uint64_t)FRAMES << 12, 0));
        CHECK(refused_with(level, PTE_ADDR_MASK, (uint64_t)FRAMES << 12, 1));
        CHECK(refused_with(level, PTE_ADDR_MASK, (uint64_t)(FRAMES + 1) << 12, 0));
        CHECK(refused_with(level, PTE_ADDR_MASK, PTE_ADDR_MASK, 0));
    }
    /* kernel_cr3 itself outside. */
    setup(1, HOST_ENV_RW);
    current->kernel_cr3 = (uint64_t)FRAMES << 12;
    CHECK(copy_from_guest(&b, VA, 1) == EFAULT);
    current->kernel_cr3 = ~0ull;
    CHECK(copy_from_guest(&b, VA, 1) == EFAULT);
}

/* machine_frames is what bounds the walk, not the buffer behind it. */
static void machine_frames_bounds_the_walk(void)
{
    uint8_t b = 0;

    host_env_reset(FRAMES);
    host_env_map(VA, 60, HOST_ENV_RO);
    perch_shared.boot.machine_frames = 60;   /* tables are above: refused too */
    CHECK(copy_from_guest(&b, VA, 1) == EFAULT);
    perch_shared.boot.machine_frames = FRAMES;
    CHECK(copy_from_guest(&b, VA, 1) == 0);
}

static void failure_in_the_middle_of_a_copy(void)
{
    size_t len = 4 * 4096;
    uint8_t *buf = calloc(1, len);
    long rc_read, rc_write;

    setup(4, HOST_ENV_RW);
    CHECK(buf);
    *host_env_pte(VA + 2 * 4096, 0) &= ~PTE_P;        /* third page gone */
    rc_read = copy_from_guest(buf, VA + 100, len - 200);
    *host_env_pte(VA + 2 * 4096, 0) |= PTE_P;
    *host_env_pte(VA + 3 * 4096, 0) &= ~PTE_RW;       /* last page read-only */
    rc_write = copy_to_guest(VA + 100, buf, len - 200);
    free(buf);
    CHECK(rc_read == EFAULT);
    CHECK(rc_write == EFAULT);
    /* The read-only page was not written. */
    CHECK(matches_pattern((uint8_t *)host_env_frame(MFN + 3), 3 * 4096, 4096));
}

/* The end of the copy on an unmapped page, one byte over. */
static void one_byte_over_the_end_refused(void)
{
    uint8_t buf[4097];

    setup(1, HOST_ENV_RW);
    CHECK(copy_from_guest(buf, VA, 4096) == 0);
    CHECK(copy_from_guest(buf, VA, 4097) == EFAULT);
    CHECK(copy_from_guest(buf, VA + 1, 4096) == EFAULT);
    CHECK(copy_to_guest(VA + 4095, buf, 2) == EFAULT);
}

int main(void)
{
    RUN(read_one_byte);
    RUN(read_crossing_a_page);
    RUN(read_crossing_into_a_scattered_frame);
    RUN(read_many_pages);
    RUN(write_many_pages_exactly);
    RUN(zero_length_touches_nothing);
    RUN(lower_half_and_top_of_upper_half);
    RUN(ignored_bits);
    RUN(last_machine_frame_is_usable);
    RUN(non_canonical_refused);
    RUN(copy_into_non_canonical_refused);
    RUN(hypervisor_hole_refused);
    RUN(null_refused);
    RUN(no_page_tables_refused);
    RUN(not_present_at_each_level_refused);
    RUN(supervisor_only_at_each_level_refused);
    RUN(read_only_at_each_level);
    RUN(large_page_entries_refused);
    RUN(l1_pat_bit_is_not_a_large_page);
    RUN(entries_outside_machine_memory_refused);
    RUN(machine_frames_bounds_the_walk);
    RUN(failure_in_the_middle_of_a_copy);
    RUN(one_byte_over_the_end_refused);
    return check_exit_status();
}
