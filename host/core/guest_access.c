/*
 * Guest memory by guest-kernel virtual address: the one software walk of
 * the guest's page tables, the one check of a guest address, and copies;
 * with them, how an entry is read and which frames are the guest's, the
 * rules host/mm/ and the other rooms share with the walk.
 *
 * The Host never dereferences a guest pointer: it walks the guest's page
 * tables in software (through the alias of machine memory) and copies
 * through the alias. A bad pointer is an -XEN_EFAULT for the guest, never a
 * fault inside the Host, so the Host needs no exception fixups. (Its
 * entries still nest: an interrupt may arrive while it works, see
 * docs/design.md section 7.)
 */
#include "env.h"
#include "host.h"
#include "vcpu.h"

bool va_canonical(uint64_t va)
{
    return va < 0x0000800000000000ull || va >= 0xffff800000000000ull;
}

bool guest_va_ok(uint64_t va)
{
    return va_canonical(va) && !(va >= XEN_HOLE_START && va < XEN_HOLE_END);
}

bool guest_handle_okay(uint64_t va, uint64_t bytes)
{
    uint64_t end = va + bytes;

    if (end < va)
        return false;
    return end <= 0x0000800000000000ull || va >= XEN_HOLE_END;
}

static bool frame_in_memslot(uint64_t mfn)
{
    return mfn < perch_shared.boot.machine_frames;
}

bool guest_owns_frame(uint64_t mfn)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;

    return mfn >= b->guest_mfn_base && mfn - b->guest_mfn_base < b->guest_nr_pages &&
           frame_in_memslot(mfn);
}

/* One 8-byte access: the guest is stopped, but the MMU walks these. */
uint64_t guest_read_entry(uint64_t maddr)
{
    return __atomic_load_n((uint64_t *)(env_alias_base() + maddr), __ATOMIC_RELAXED);
}

uint64_t guest_l1e_maddr(uint64_t va, uint64_t need)
{
    uint64_t table = current->kernel_cr3 & PTE_ADDR_MASK;

    if (!guest_va_ok(va))
        return GUEST_NO_ENTRY;
    for (unsigned level = 4;; level--) {
        uint64_t maddr = table + ((va >> (3 + 9 * level)) & 511) * 8, entry;

        if (!frame_in_memslot(table >> XEN_PAGE_SHIFT))
            return GUEST_NO_ENTRY;
        if (level == 1)
            return maddr;
        entry = guest_read_entry(maddr);
        /* Bit 7 is PS above L1: perch maps no superpages for guests. */
        if ((entry & need) != need || (entry & PTE_PS))
            return GUEST_NO_ENTRY;
        table = entry & PTE_ADDR_MASK;
    }
}

uint64_t guest_frame_maddr(uint64_t va, bool read_only)
{
    uint64_t l1e_maddr = guest_l1e_maddr(va, PTE_P), l1e;

    if (l1e_maddr == GUEST_NO_ENTRY)
        return 0;
    l1e = guest_read_entry(l1e_maddr);
    if (!(l1e & PTE_P) || (read_only && (l1e & PTE_RW)) ||
        !guest_owns_frame((l1e & PTE_ADDR_MASK) >> XEN_PAGE_SHIFT))
        return 0;
    return (l1e & PTE_ADDR_MASK) | (va & 0xfff);
}

/* Machine address of `va` in the current kernel page tables, or ~0. Bit 7
 * of the L1 entry is PAT, just a memory type. */
static uint64_t translate(uint64_t va, bool write)
{
    uint64_t need = PTE_P | PTE_US | (write ? PTE_RW : 0);
    uint64_t l1e = guest_l1e_maddr(va, need), entry, frame;

    if (l1e == GUEST_NO_ENTRY)
        return ~0ull;
    entry = guest_read_entry(l1e);
    frame = entry & PTE_ADDR_MASK;
    if ((entry & need) != need || !frame_in_memslot(frame >> XEN_PAGE_SHIFT))
        return ~0ull;
    return frame | (va & 0xfff);
}

/* Copy page by page; `to_guest` chooses the direction. */
static long copy_guest(uint64_t va, void *host, size_t len, bool to_guest)
{
    uint8_t *h = host;

    while (len) {
        size_t in_page = 4096 - (va & 0xfff);
        size_t n = len < in_page ? len : in_page;
        uint64_t maddr = translate(va, to_guest);

        if (maddr == ~0ull)
            return -XEN_EFAULT;
        if (to_guest)
            __builtin_memcpy(env_alias_base() + maddr, h, n);
        else
            __builtin_memcpy(h, env_alias_base() + maddr, n);
        va += n;
        h += n;
        len -= n;
    }
    return 0;
}

long copy_from_guest(void *dst, uint64_t va, size_t len)
{
    return copy_guest(va, dst, len, false);
}

long copy_to_guest(uint64_t va, const void *src, size_t len)
{
    return copy_guest(va, (void *)src, len, true);
}
