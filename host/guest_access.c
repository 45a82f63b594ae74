/*
 * Reading and writing guest memory by guest-kernel virtual address.
 *
 * The Host never dereferences a guest pointer: it walks the guest's page
 * tables in software (through the alias of machine memory) and copies
 * through the alias. A bad pointer is an -XEN_EFAULT for the guest, never a
 * fault inside the Host, so the Host needs no exception fixups and its
 * entries never nest.
 */
#include "env.h"
#include "host.h"
#include "vcpu.h"

#define LEVELS 4

bool va_canonical(uint64_t va)
{
    return va < 0x0000800000000000ull || va >= 0xffff800000000000ull;
}

/* One address a guest pointer may name: canonical, outside the hole. */
static bool guest_va_ok(uint64_t va)
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

/* Machine address of `va` in the current kernel page tables, or ~0. */
static uint64_t translate(uint64_t va, bool write)
{
    uint64_t need = PTE_P | PTE_US | (write ? PTE_RW : 0);
    uint64_t table = vcpu0.kernel_cr3 & PTE_ADDR_MASK;

    if (!guest_va_ok(va))
        return ~0ull;
    for (int level = LEVELS - 1; level >= 0; level--) {
        unsigned index = (va >> (12 + 9 * level)) & 511;
        uint64_t entry;

        if (!frame_in_memslot(table >> 12))
            return ~0ull;
        entry = ((const uint64_t *)(env_alias_base() + table))[index];
        /* Bit 7 is PS above L1 (perch maps no superpages for guests) and
         * PAT in an L1 entry, where it is just a memory type. */
        if ((entry & need) != need || (level > 0 && (entry & PTE_PS)))
            return ~0ull;
        table = entry & PTE_ADDR_MASK;
    }
    if (!frame_in_memslot(table >> 12))
        return ~0ull;
    return table | (va & 0xfff);
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
