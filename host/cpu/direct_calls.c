/*
 * Patching xen_hypercall_pv and xen_iret into jumps to the Host: the
 * shapes and why are in direct_calls.h.
 */
#include "direct_calls.h"

#include "../core/env.h"
#include "../core/vcpu.h"

#define HYPERCALL_PATCH_BYTES 8
#define IRET_PATCH_BYTES      16
#define IRET_POINTER          8    /* the Host's address, in xen_iret */

/* xen_hypercall_pv up to its return: push %rcx; push %r11; syscall;
 * pop %r11; pop %rcx. */
static const uint8_t hypercall_linux[HYPERCALL_PATCH_BYTES] = {
    0x51, 0x41, 0x53, 0x0f, 0x05, 0x41, 0x5b, 0x59,
};

/* xen_iret: push $0; push %rcx; push %r11; push %rax;
 * mov $__HYPERVISOR_iret, %eax; syscall; int3; then alignment (a two-byte
 * nop, or int3s) up to the next function. */
static const uint8_t iret_linux[IRET_PATCH_BYTES - 2] = {
    0x6a, 0x00, 0x51, 0x41, 0x53, 0x50, 0xb8, 0x17, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xcc,
};

static bool is_alignment(const uint8_t *two)
{
    return (two[0] == 0x66 && two[1] == 0x90) ||
           ((two[0] == 0xcc || two[0] == 0x90) && two[1] == two[0]);
}

/* The kernel's bytes at va, len of them within one page of a guest frame,
 * through the alias; NULL when they are not there to patch. */
static uint8_t *kernel_bytes(uint64_t va, unsigned len)
{
    uint64_t maddr;

    if (!va || (va & 0xfff) + len > 4096)
        return 0;
    maddr = guest_frame_maddr(va, false);
    return maddr ? env_alias_base() + maddr : 0;
}

static enum perch_direct_state patch(uint64_t hypercall_va, uint64_t iret_va, uint64_t entry)
{
    uint8_t *hypercall = kernel_bytes(hypercall_va, HYPERCALL_PATCH_BYTES);
    uint8_t *iret = kernel_bytes(iret_va, IRET_PATCH_BYTES);
    int64_t to_pointer = (int64_t)(iret_va + IRET_POINTER) - (int64_t)(hypercall_va + 8);
    int32_t disp = (int32_t)to_pointer;

    if (!hypercall || !iret)
        return PERCH_DIRECT_UNKNOWN_CODE;
    if (__builtin_memcmp(hypercall, hypercall_linux, sizeof(hypercall_linux)) ||
        __builtin_memcmp(iret, iret_linux, sizeof(iret_linux)) ||
        !is_alignment(iret + sizeof(iret_linux)) ||
        to_pointer != disp)
        return PERCH_DIRECT_UNKNOWN_CODE;

    /* xen_iret + 2: jmp *0(%rip), the pointer right after it. */
    iret[2] = 0xff;
    iret[3] = 0x25;
    __builtin_memset(iret + 4, 0, 4);
    __builtin_memcpy(iret + IRET_POINTER, &entry, 8);
    /* xen_hypercall_pv: push $-1; jmp *to_pointer(%rip). */
    hypercall[0] = 0x6a;
    hypercall[1] = 0xff;
    hypercall[2] = 0xff;
    hypercall[3] = 0x25;
    __builtin_memcpy(hypercall + 4, &disp, 4);
    return PERCH_DIRECT_ACTIVE;
}

/* Where each slot keeps the Host's address, past its code. */
#define SLOT_POINTER 24

/* The `syscall` stub the Launcher wrote in slot `nr`, as it wrote it
 * (launcher/boot/domain.c): push %rcx; push %r11; [push %rax;] mov $nr,
 * %eax; syscall. Its first bytes are checked before a slot is rewritten. */
static bool is_syscall_stub(const uint8_t *slot, unsigned nr)
{
    static const uint8_t push_rcx_r11[3] = { 0x51, 0x41, 0x53 };
    unsigned mov = nr == HYPERVISOR_iret ? 4 : 3;
    uint32_t imm;

    __builtin_memcpy(&imm, slot + mov + 1, 4);
    return !__builtin_memcmp(slot, push_rcx_r11, 3) && slot[mov] == 0xb8 && imm == nr &&
           (nr != HYPERVISOR_iret || slot[3] == 0x50);
}

/*
 * An older kernel's hypercall page: a `call` to slot nr (32 bytes) for
 * hypercall nr, a jump to the iret slot with the flags word pushed (as
 * xen_iret pushes it). Each slot becomes what the patched functions do:
 *   hypercall  push $-1; mov $nr, %eax; jmp *24(slot)
 *   iret       jmp *24(slot)
 * with the Host's address in the slot's last 8 bytes. The page is the
 * kernel's own text, written before the guest runs; a slot the Launcher
 * did not fill as expected leaves the page as it is.
 */
static enum perch_direct_state patch_page(uint64_t page_va, uint64_t entry)
{
    uint8_t *page = kernel_bytes(page_va, 4096);

    if (!page)                         /* not a whole page of the guest's */
        return PERCH_DIRECT_UNKNOWN_CODE;
    for (unsigned nr = 0; nr < 4096 / XEN_HYPERCALL_SLOT_SIZE; nr++)
        if (!is_syscall_stub(page + nr * XEN_HYPERCALL_SLOT_SIZE, nr))
            return PERCH_DIRECT_UNKNOWN_CODE;
    for (unsigned nr = 0; nr < 4096 / XEN_HYPERCALL_SLOT_SIZE; nr++) {
        uint8_t *s = page + nr * XEN_HYPERCALL_SLOT_SIZE, *jmp = s;
        int32_t to_pointer;

        __builtin_memset(s, 0xcc, XEN_HYPERCALL_SLOT_SIZE);
        if (nr != HYPERVISOR_iret) {
            s[0] = 0x6a;               /* push $-1 */
            s[1] = 0xff;
            s[2] = 0xb8;               /* mov $nr, %eax */
            __builtin_memcpy(s + 3, &nr, 4);
            jmp = s + 7;
        }
        to_pointer = (int32_t)(SLOT_POINTER - (jmp + 6 - s));
        jmp[0] = 0xff;                 /* jmp *to_pointer(%rip) */
        jmp[1] = 0x25;
        __builtin_memcpy(jmp + 2, &to_pointer, 4);
        __builtin_memcpy(s + SLOT_POINTER, &entry, 8);
    }
    return PERCH_DIRECT_PAGE;
}

/* Linux 6.1's functions where the kernel has them, else its hypercall
 * page; both where it has both, the functions' state then saying what
 * became of them (the `call` form of patched stores needs them). */
static enum perch_direct_state patch_kernel(uint64_t entry)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;
    enum perch_direct_state functions = PERCH_DIRECT_NONE, page = PERCH_DIRECT_NONE;

    if (b->hypercall_page)
        page = patch_page(b->hypercall_page, entry);
    if (b->hypercall_func && b->iret_func)
        functions = patch(b->hypercall_func, b->iret_func, entry);
    return functions != PERCH_DIRECT_NONE ? functions : page;
}

enum perch_direct_state direct_calls_install(uint64_t entry, bool for_gdb)
{
    enum perch_direct_state state;

    if (optimizations_off & PERCH_OPT_DIRECT_CALLS)
        state = PERCH_DIRECT_OFF;
    else if (for_gdb)
        state = PERCH_DIRECT_GDB;
    else
        state = patch_kernel(entry);
    perch_shared.stats.direct_state = state;
    return state;
}
