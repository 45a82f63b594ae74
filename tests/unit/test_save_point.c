/* save_point_whole (launcher/run/save_point.h): a held vCPU whose event may
 * still be on its way into ring 0 is not saved. The code lives in a page
 * mapped through four-level tables built in a small guest memory. */
#include "check.h"

#include "../../launcher/run/save_point.h"
#include "../../launcher/vm/hole_map.h"
#include "../../launcher/vm/pagetable.h"

#define CODE_VA 0x400000ull

static struct guest_memory gm;
static uint64_t l4;
static uint8_t *code;

static void set_up(void)
{
    uint64_t page;

    if (gm.base)
        return;
    guest_memory_init(&gm, 16, 16);
    l4 = gm_alloc_private(&gm);
    page = gm_alloc_private(&gm);
    pt_map(&gm, l4, CODE_VA, 1, (page << PAGE_SHIFT) | PT_TABLE_FLAGS, hole_alloc_private, &gm);
    code = gm_frame(&gm, page);
}

/* A CPL3 vCPU on that page, at offset at, after the bytes `before`. */
static struct kvm_vcpu_state at_code(const uint8_t *before, unsigned n, unsigned at)
{
    struct kvm_vcpu_state st = { 0 };

    set_up();
    memset(code, 0x90, PAGE_SIZE);
    memcpy(code + at - n, before, n);
    st.regs.rip = CODE_VA + at;
    st.regs.rflags = 0x202;
    st.sregs.cr3 = l4 << PAGE_SHIFT;
    st.sregs.cs.dpl = 3;
    return st;
}

static void plain_code_is_whole(void)
{
    static const uint8_t mov[] = { 0x48, 0x89, 0xc7 };
    struct kvm_vcpu_state st = at_code(mov, sizeof(mov), 100);

    CHECK(save_point_whole(&gm, &st));
}

static void after_a_trap_is_not(void)
{
    static const uint8_t int3[] = { 0xcc }, syscall[] = { 0x0f, 0x05 },
                         int80[] = { 0xcd, 0x80 }, int1[] = { 0xf1 };
    struct kvm_vcpu_state st;

    st = at_code(int3, 1, 17);
    CHECK(!save_point_whole(&gm, &st));
    st = at_code(syscall, 2, 200);
    CHECK(!save_point_whole(&gm, &st));
    st = at_code(int80, 2, 300);
    CHECK(!save_point_whole(&gm, &st));
    st = at_code(int1, 1, 400);
    CHECK(!save_point_whole(&gm, &st));
}

/* Ring 0 takes no event on its way in; an unmapped rip has no bytes. */
static void ring_0_and_unmapped_are_whole(void)
{
    static const uint8_t int3[] = { 0xcc };
    struct kvm_vcpu_state st = at_code(int3, 1, 17);

    st.sregs.cs.dpl = 0;
    CHECK(save_point_whole(&gm, &st));
    st.sregs.cs.dpl = 3;
    st.regs.rip = 0x7000000000ull;
    CHECK(save_point_whole(&gm, &st));
}

static void interrupt_in_service_or_single_step_is_not(void)
{
    static const uint8_t mov[] = { 0x48, 0x89, 0xc7 };
    struct kvm_vcpu_state st = at_code(mov, sizeof(mov), 100);

    st.lapic.regs[0x100 + 16 * 7 + 3] = 0x80;      /* vector 0xff in service */
    CHECK(!save_point_whole(&gm, &st));
    st = at_code(mov, sizeof(mov), 100);
    st.regs.rflags |= 1u << 8;
    CHECK(!save_point_whole(&gm, &st));
}

int main(void)
{
    RUN(plain_code_is_whole);
    RUN(after_a_trap_is_not);
    RUN(ring_0_and_unmapped_are_whole);
    RUN(interrupt_in_service_or_single_step_is_not);
    guest_memory_release(&gm);
    return check_exit_status();
}
