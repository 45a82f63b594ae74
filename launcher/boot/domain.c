/*
 * The PV domain builder (see domain.h for the layout it makes).
 *
 * It works in two phases. plan_layout() only does arithmetic: it hands out
 * pfns in Xen's order and sizes the page tables, touching no memory, so the
 * builder can check the whole layout against guest memory first and, when
 * memory is too small, work out how much would be enough. The fill phase
 * then writes the kernel, initrd, p2m, start_info and page tables into the
 * frames the plan chose, through gm_pfn() only.
 *
 * Address arithmetic: every mapped pfn N of the kernel map sits at
 * VA virt_base + N * 4096, and a segment's VA is
 * paddr + virt_base - paddr_offset, so its pfn is (paddr - paddr_offset) / 4K.
 */
#include "domain.h"

#include <stdbool.h>
#include <string.h>

#include "../../abi/xen/xen.h"

#define MIB (1024ull * 1024)

/* Shifts of the VA span covered by one table (L3: 512 GiB, L2: 1 GiB,
 * L1: 2 MiB) and by one entry of an L4 (a slot). */
#define L4_SLOT_SHIFT   39
#define L3_TABLE_SHIFT  39
#define L2_TABLE_SHIFT  30
#define L1_TABLE_SHIFT  21
#define PT_INDEX_MASK   511
#define L2_SPAN         (1ull << L2_TABLE_SHIFT)   /* what one L2 maps */

/* Xen's hypervisor hole; perch puts its own mappings there later. */
#define HOLE_FIRST_SLOT 256
#define HOLE_LAST_SLOT  271

/* Xen sizes the initial mapping with a boot stack page and 512 KiB to
 * spare, and ends it on a 4 MiB boundary. */
#define MAP_ALIGN        (4 * MIB)
#define MAP_SPARE_PAGES  ((512 * 1024) / PAGE_SIZE)
#define BOOT_STACK_PAGES 1

/* The kernel runs at CPL3, so every level carries USER (Xen adds it too).
 * Page-table pages are mapped read-only: the guest must change them by
 * hypercall, which is what lets the Host validate them. */
#define PROT_TABLE   (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define PROT_PAGE    (PTE_P | PTE_RW | PTE_US | PTE_A)
#define PROT_PAGE_RO (PTE_P | PTE_US | PTE_A)

/* No initrd or kernel can be this big; bounding sizes keeps the pfn
 * arithmetic below far away from overflow. */
#define MAX_SIZE_BYTES (1ull << 44)

/*
 * One virtually contiguous range mapped with 4 KiB pages onto consecutive
 * pfns, and the page-table pages of its own, taken consecutively in the
 * order [L4], L3s, L2s, L1s (the order Linux expects at pt_base).
 */
struct pt_map {
    uint64_t va, end;          /* [va, end), page-aligned */
    uint64_t pfn;              /* pfn mapped at va */
    uint64_t l4_pfn;           /* the L4 it hangs off (maybe not its own) */
    uint64_t pt_pfn;           /* first of its own table pages */
    uint64_t nr_l4, nr_l3, nr_l2, nr_l1;
};

/* Where every piece of the domain goes, in pfns. */
struct plan {
    uint64_t nr_pages;         /* the guest size this plan was made for */
    uint64_t next_pfn;         /* the allocator: pfns below are taken */

    uint64_t kernel_pfn, kernel_end_pfn;
    bool have_initrd, initrd_mapped;
    uint64_t initrd_pfn, initrd_pages;
    bool p2m_in_kernel_map;
    uint64_t p2m_pfn, p2m_pages;        /* the array only */
    uint64_t p2m_va;
    uint64_t start_info_pfn, store_pfn, console_pfn;
    uint64_t stack_pfn;
    uint64_t virt_pgtab_end;

    struct pt_map kmap;        /* virt_base .. virt_pgtab_end */
    struct pt_map p2m_map;     /* the p2m at INIT_P2M; unused otherwise */
};

/* ---- small helpers ---- */

static uint64_t pages_for(uint64_t bytes)
{
    return (bytes + PAGE_SIZE - 1) / PAGE_SIZE;
}

static unsigned l4_slot(uint64_t va)
{
    return (va >> L4_SLOT_SHIFT) & PT_INDEX_MASK;
}

static bool slot_in_hole(unsigned slot)
{
    return slot >= HOLE_FIRST_SLOT && slot <= HOLE_LAST_SLOT;
}

static bool is_canonical(uint64_t va)
{
    uint64_t top = va >> 47;

    return top == 0 || top == 0x1ffff;
}

/* The pfn allocator of the plan: every step takes the next n pfns. */
static uint64_t take_pfns(struct plan *p, uint64_t n)
{
    uint64_t pfn = p->next_pfn;

    p->next_pfn += n;
    return pfn;
}

static uint64_t plan_va(const struct pv_image *img, uint64_t pfn)
{
    return img->virt_base + pfn * PAGE_SIZE;
}

/* ---- page-table arithmetic ---- */

/* How many tables with the given span the range [va, end) touches. */
static uint64_t tables_spanned(uint64_t va, uint64_t end, unsigned shift)
{
    return ((end - 1) >> shift) - (va >> shift) + 1;
}

static void pt_map_count(struct pt_map *m, bool own_l4)
{
    m->nr_l4 = own_l4 ? 1 : 0;
    m->nr_l3 = tables_spanned(m->va, m->end, L3_TABLE_SHIFT);
    m->nr_l2 = tables_spanned(m->va, m->end, L2_TABLE_SHIFT);
    m->nr_l1 = tables_spanned(m->va, m->end, L1_TABLE_SHIFT);
}

static uint64_t pt_map_tables(const struct pt_map *m)
{
    return m->nr_l4 + m->nr_l3 + m->nr_l2 + m->nr_l1;
}

static bool pt_map_owns(const struct pt_map *m, uint64_t pfn)
{
    return pfn >= m->pt_pfn && pfn < m->pt_pfn + pt_map_tables(m);
}

/* The pfn of the table at each level that maps va: tables of a level are
 * consecutive, one per span, starting with the one covering m->va. */
static uint64_t l3_table_pfn(const struct pt_map *m, uint64_t va)
{
    return m->pt_pfn + m->nr_l4 +
           ((va >> L3_TABLE_SHIFT) - (m->va >> L3_TABLE_SHIFT));
}

static uint64_t l2_table_pfn(const struct pt_map *m, uint64_t va)
{
    return m->pt_pfn + m->nr_l4 + m->nr_l3 +
           ((va >> L2_TABLE_SHIFT) - (m->va >> L2_TABLE_SHIFT));
}

static uint64_t l1_table_pfn(const struct pt_map *m, uint64_t va)
{
    return m->pt_pfn + m->nr_l4 + m->nr_l3 + m->nr_l2 +
           ((va >> L1_TABLE_SHIFT) - (m->va >> L1_TABLE_SHIFT));
}

/* ---- checks of the image and the configuration ---- */

static int check_segment(const struct guest_memory *gm,
                         const struct pv_image *img, unsigned i,
                         struct error *e)
{
    const struct pv_segment *s = &img->segments[i];
    uint64_t va, pfn_end;

    /* Where its file bytes lie was checked by pv_image_parse(), the one
     * place that rules on the file; the sizes here are about memory. */
    if (s->memsz > MAX_SIZE_BYTES)
        return fail(e, "kernel segment %u: memory size %#llx is too large",
                    i, (unsigned long long)s->memsz);
    if (s->paddr < img->paddr_offset)
        return fail(e, "kernel segment %u (paddr %#llx) lies below virt_base",
                    i, (unsigned long long)s->paddr);
    if (s->paddr - img->paddr_offset > MAX_SIZE_BYTES)
        return fail(e, "kernel segment %u (paddr %#llx) lies outside guest memory",
                    i, (unsigned long long)s->paddr);
    pfn_end = pages_for(s->paddr - img->paddr_offset + s->memsz);
    if (pfn_end > gm->nr_pages)
        return fail(e, "guest memory of %llu MiB is too small for this kernel: "
                    "its segment %u (paddr %#llx, %#llx bytes) ends beyond it",
                    (unsigned long long)(gm->nr_pages * PAGE_SIZE / MIB), i,
                    (unsigned long long)s->paddr, (unsigned long long)s->memsz);
    va = s->paddr - img->paddr_offset + img->virt_base;
    if (s->memsz && (va < img->virt_kstart || va + s->memsz > img->virt_kend))
        return fail(e, "kernel segment %u (VA %#llx) lies outside the kernel "
                    "image %#llx-%#llx", i, (unsigned long long)va,
                    (unsigned long long)img->virt_kstart,
                    (unsigned long long)img->virt_kend);
    return 0;
}

static int check_kernel(const struct guest_memory *gm,
                        const struct pv_image *img, struct error *e)
{
    if (img->nr_segments == 0 || img->nr_segments > PV_IMAGE_MAX_SEGMENTS)
        return fail(e, "kernel image has %u loadable segments", img->nr_segments);
    if (img->virt_base % PAGE_SIZE || !is_canonical(img->virt_base) ||
        slot_in_hole(l4_slot(img->virt_base)))
        return fail(e, "kernel virt_base %#llx is unusable (unaligned, "
                    "non-canonical or in the hypervisor hole)",
                    (unsigned long long)img->virt_base);
    for (unsigned i = 0; i < img->nr_segments; i++)
        if (check_segment(gm, img, i, e))
            return -1;
    if (img->virt_kstart < img->virt_base)
        return fail(e, "kernel start %#llx lies below virt_base %#llx",
                    (unsigned long long)img->virt_kstart,
                    (unsigned long long)img->virt_base);
    if (img->virt_kend <= img->virt_kstart ||
        img->virt_kend - img->virt_base > gm->nr_pages * PAGE_SIZE)
        return fail(e, "guest memory of %llu MiB is too small for this kernel: "
                    "its image %#llx-%#llx ends beyond it",
                    (unsigned long long)(gm->nr_pages * PAGE_SIZE / MIB),
                    (unsigned long long)img->virt_kstart,
                    (unsigned long long)img->virt_kend);
    if (img->entry < img->virt_kstart || img->entry >= img->virt_kend)
        return fail(e, "kernel entry %#llx lies outside the kernel image",
                    (unsigned long long)img->entry);
    return 0;
}

/* The hypercall page is filled in place (the page holding that VA), so it
 * must be a page of the kernel image, not of whatever follows it. */
static int check_hypercall_page(const struct pv_image *img, struct error *e)
{
    if (!img->hypercall_page)
        return 0;
    if (img->hypercall_page < img->virt_kstart ||
        img->hypercall_page >= img->virt_kend)
        return fail(e, "hypercall page %#llx lies outside the kernel image "
                    "%#llx-%#llx", (unsigned long long)img->hypercall_page,
                    (unsigned long long)img->virt_kstart,
                    (unsigned long long)img->virt_kend);
    return 0;
}

/*
 * INIT_P2M: the p2m gets its own L4 slot(s) below the kernel. Xen quietly
 * falls back to the kernel map for an unusable address; perch refuses it,
 * as a kernel asking for it expects it there.
 */
static int check_p2m_va(const struct pv_image *img, uint64_t bytes,
                        struct error *e)
{
    uint64_t va = img->init_p2m, last = va + bytes - 1;
    unsigned kslot = l4_slot(img->virt_base);

    if (va % PAGE_SIZE || va >= img->virt_base || last < va ||
        !is_canonical(va) || !is_canonical(last) || (va ^ last) >> 47)
        goto bad;
    for (unsigned s = l4_slot(va); s <= l4_slot(last); s++)
        if (s == kslot || slot_in_hole(s))
            goto bad;
    return 0;
bad:
    return fail(e, "p2m VA (INIT_P2M) %#llx is invalid: it must be page-aligned, "
                "below virt_base, and its %llu bytes must lie outside the "
                "kernel's L4 slot and the hypervisor hole",
                (unsigned long long)va, (unsigned long long)bytes);
}

/* ---- the plan: one function per allocation step, in Xen's order ---- */

/* (1) padding below the kernel, (2) the kernel up to virt_kend. */
static void plan_kernel(struct plan *p, const struct pv_image *img)
{
    p->kernel_pfn = (img->virt_kstart - img->virt_base) / PAGE_SIZE;
    p->kernel_end_pfn = pages_for(img->virt_kend - img->virt_base);
    take_pfns(p, p->kernel_pfn);
    take_pfns(p, p->kernel_end_pfn - p->kernel_pfn);
}

/* (3) an initrd the kernel cannot take by pfn is mapped after it. */
static void plan_mapped_initrd(struct plan *p, const struct pv_image *img,
                               const struct domain_config *cfg)
{
    p->have_initrd = cfg->initrd && cfg->initrd_bytes;
    p->initrd_pages = p->have_initrd ? pages_for(cfg->initrd_bytes) : 0;
    p->initrd_mapped = p->have_initrd && !img->mod_start_pfn;
    if (p->initrd_mapped)
        p->initrd_pfn = take_pfns(p, p->initrd_pages);
}

/* (4) without INIT_P2M the p2m array sits in the kernel map. */
static void plan_p2m_in_kernel_map(struct plan *p, const struct pv_image *img)
{
    p->p2m_pages = pages_for(p->nr_pages * sizeof(uint64_t));
    p->p2m_in_kernel_map = img->init_p2m == 0;
    if (p->p2m_in_kernel_map) {
        p->p2m_pfn = take_pfns(p, p->p2m_pages);
        p->p2m_va = plan_va(img, p->p2m_pfn);
    }
}

/* (5) start_info, xenstore and console pages. */
static void plan_special_pages(struct plan *p)
{
    p->start_info_pfn = take_pfns(p, 1);
    p->store_pfn = take_pfns(p, 1);
    p->console_pfn = take_pfns(p, 1);
}

/*
 * (6) the kernel map's tables. The map must cover what is allocated so far,
 * the tables themselves, the boot stack and the spare 512 KiB; the table
 * count depends on where the map ends, so iterate until it is stable, as
 * Xen does. (Xen rounds with `| (4 MiB - 1)`, which adds 4 MiB to an end
 * already on a boundary; that only happens before the tables are counted
 * in, and the next round then reaches the same end as plain rounding up.)
 *
 * Linux takes the boot mapping over through a single L2, so the map must
 * end inside the 1 GiB region of virt_base's L2. The sums run on offsets
 * into that region, which keeps them from wrapping whatever virt_base is.
 */
static int plan_kernel_tables(struct plan *p, const struct pv_image *img,
                              struct error *e)
{
    uint64_t region = img->virt_base & ~(L2_SPAN - 1);
    uint64_t start = img->virt_base - region;
    uint64_t used = start + p->next_pfn * PAGE_SIZE;
    uint64_t extra = BOOT_STACK_PAGES + MAP_SPARE_PAGES;
    uint64_t pages = extra, end;
    struct pt_map *m = &p->kmap;

    for (;;) {
        end = (used + pages * PAGE_SIZE + MAP_ALIGN - 1) & ~(MAP_ALIGN - 1);
        /* L4, L3, L2 and the L1s (exact while end fits the region). */
        pages = 3 + tables_spanned(start, end, L1_TABLE_SHIFT) + extra;
        if (used + pages * PAGE_SIZE <= end)
            break;
    }
    if (end > L2_SPAN || region + end == 0)
        return fail(e, "initial mapping from %#llx needs %llu MiB, more than "
                    "the 1 GiB of one L2 can reach%s",
                    (unsigned long long)img->virt_base,
                    (unsigned long long)((end - start) / MIB),
                    p->initrd_mapped ? " (the mapped initrd is too large)" : "");
    m->va = img->virt_base;
    m->end = region + end;
    m->pfn = 0;
    pt_map_count(m, true);
    m->pt_pfn = take_pfns(p, pt_map_tables(m));
    m->l4_pfn = m->pt_pfn;
    p->virt_pgtab_end = m->end;
    return 0;
}

/* (7) the boot stack, (8) padding so all mapped memory is RAM. */
static void plan_stack_and_padding(struct plan *p, const struct pv_image *img)
{
    uint64_t end_pfn = (p->virt_pgtab_end - img->virt_base) / PAGE_SIZE;

    p->stack_pfn = take_pfns(p, BOOT_STACK_PAGES);
    take_pfns(p, end_pfn - p->next_pfn);
}

/* (9) an initrd the kernel takes by pfn goes above the map, unmapped. */
static void plan_unmapped_initrd(struct plan *p)
{
    if (p->have_initrd && !p->initrd_mapped)
        p->initrd_pfn = take_pfns(p, p->initrd_pages);
}

/* (10) with INIT_P2M: the array, then its L3s, L2s and L1s, all counted
 * by first_p2m_pfn/nr_p2m_frames. Its L4 entry goes in the kernel's L4. */
static int plan_p2m_segment(struct plan *p, const struct pv_image *img,
                            struct error *e)
{
    struct pt_map *m = &p->p2m_map;

    if (p->p2m_in_kernel_map)
        return 0;
    if (check_p2m_va(img, p->p2m_pages * PAGE_SIZE, e))
        return -1;
    p->p2m_va = img->init_p2m;
    p->p2m_pfn = take_pfns(p, p->p2m_pages);
    m->va = img->init_p2m;
    m->end = img->init_p2m + p->p2m_pages * PAGE_SIZE;
    m->pfn = p->p2m_pfn;
    m->l4_pfn = p->kmap.l4_pfn;
    pt_map_count(m, false);
    m->pt_pfn = take_pfns(p, pt_map_tables(m));
    return 0;
}

/* The whole layout for a guest of nr_pages, without touching memory.
 * p->next_pfn ends as the number of pfns it needs. */
static int plan_layout(const struct pv_image *img,
                       const struct domain_config *cfg, uint64_t nr_pages,
                       struct plan *p, struct error *e)
{
    memset(p, 0, sizeof(*p));
    p->nr_pages = nr_pages;
    plan_kernel(p, img);
    plan_mapped_initrd(p, img, cfg);
    plan_p2m_in_kernel_map(p, img);
    plan_special_pages(p);
    if (plan_kernel_tables(p, img, e))
        return -1;
    plan_stack_and_padding(p, img);
    plan_unmapped_initrd(p);
    return plan_p2m_segment(p, img, e);
}

/* The smallest guest the layout fits in: a bigger guest needs a bigger
 * p2m, so grow until the plan fits (a few rounds at most). */
static uint64_t min_guest_pages(const struct pv_image *img,
                                const struct domain_config *cfg,
                                uint64_t from)
{
    uint64_t n = from;
    struct plan p;
    struct error ignored;

    for (int round = 0; round < 64; round++) {
        if (plan_layout(img, cfg, n, &p, &ignored) || p.next_pfn <= n)
            break;
        n = p.next_pfn;
    }
    return n;
}

/* Whether it is the initrd that makes the layout too big. */
static bool fits_without_initrd(const struct guest_memory *gm,
                                const struct pv_image *img,
                                const struct domain_config *cfg)
{
    struct domain_config bare = *cfg;
    struct plan p;
    struct error ignored;

    bare.initrd = NULL;
    bare.initrd_bytes = 0;
    return plan_layout(img, &bare, gm->nr_pages, &p, &ignored) == 0 &&
           p.next_pfn <= gm->nr_pages;
}

static int check_fits(const struct guest_memory *gm, const struct plan *p,
                      const struct pv_image *img,
                      const struct domain_config *cfg, struct error *e)
{
    uint64_t need, need_mib, have_mib;

    if (p->next_pfn <= gm->nr_pages)
        return 0;
    need = min_guest_pages(img, cfg, p->next_pfn);
    need_mib = (need * PAGE_SIZE + MIB - 1) / MIB;
    have_mib = gm->nr_pages * PAGE_SIZE / MIB;
    if (p->have_initrd && fits_without_initrd(gm, img, cfg))
        return fail(e, "the initrd (%llu KiB) does not fit: guest memory of %llu "
                    "MiB is too small, it needs at least %llu MiB",
                    (unsigned long long)(cfg->initrd_bytes / 1024),
                    (unsigned long long)have_mib, (unsigned long long)need_mib);
    return fail(e, "guest memory of %llu MiB is too small for the kernel's "
                "layout: it needs at least %llu MiB",
                (unsigned long long)have_mib, (unsigned long long)need_mib);
}

/* ---- writing guest memory ---- */

/* Copy len bytes (zeroes when src is NULL) to pseudo-physical address
 * gpa, page by page through gm_pfn(), which bounds-checks every frame. */
static int guest_write(const struct guest_memory *gm, uint64_t gpa,
                       const uint8_t *src, uint64_t len)
{
    while (len) {
        uint8_t *page = gm_pfn(gm, gpa / PAGE_SIZE);
        uint64_t off = gpa % PAGE_SIZE;
        uint64_t n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;

        if (!page)
            return -1;
        if (src) {
            memcpy(page + off, src, n);
            src += n;
        } else {
            memset(page + off, 0, n);
        }
        gpa += n;
        len -= n;
    }
    return 0;
}

static int guest_zero_pfns(const struct guest_memory *gm, uint64_t pfn,
                           uint64_t n)
{
    return guest_write(gm, pfn * PAGE_SIZE, NULL, n * PAGE_SIZE);
}

/* The plan was checked against guest memory, so this means a bug here. */
static int not_in_memory(struct error *e, const char *what)
{
    return fail(e, "domain builder: %s lies outside guest memory", what);
}

/* Zero the kernel's pages (bss included), then copy the file bytes. */
static int load_kernel(const struct guest_memory *gm, const struct plan *p,
                       const struct pv_image *img, struct error *e)
{
    if (guest_zero_pfns(gm, p->kernel_pfn, p->kernel_end_pfn - p->kernel_pfn))
        return not_in_memory(e, "the kernel");
    for (unsigned i = 0; i < img->nr_segments; i++) {
        const struct pv_segment *s = &img->segments[i];

        /* No file bytes: its offset may lie anywhere, even past the end. */
        if (s->filesz && guest_write(gm, s->paddr - img->paddr_offset,
                        img->file + s->file_offset, s->filesz))
            return not_in_memory(e, "a kernel segment");
    }
    return 0;
}

static int fill_hypercall_page(const struct guest_memory *gm,
                               const struct pv_image *img, struct error *e)
{
    uint8_t *page;

    if (!img->hypercall_page)
        return 0;
    page = gm_pfn(gm, (img->hypercall_page - img->virt_base) / PAGE_SIZE);
    if (!page)
        return not_in_memory(e, "the hypercall page");
    domain_fill_hypercall_page(page);
    return 0;
}

static int load_initrd(const struct guest_memory *gm, const struct plan *p,
                       const struct domain_config *cfg, struct error *e)
{
    if (!p->have_initrd)
        return 0;
    if (guest_zero_pfns(gm, p->initrd_pfn, p->initrd_pages) ||
        guest_write(gm, p->initrd_pfn * PAGE_SIZE, cfg->initrd,
                    cfg->initrd_bytes))
        return not_in_memory(e, "the initrd");
    return 0;
}

/* entry[pfn] = mfn for every guest pfn, then INVALID to the page end
 * (Linux writes those itself too, but expects a page-granular list). */
static int fill_p2m(const struct guest_memory *gm, const struct plan *p,
                    struct error *e)
{
    uint64_t per_page = PAGE_SIZE / sizeof(uint64_t);

    for (uint64_t i = 0; i < p->p2m_pages; i++) {
        uint64_t *page = gm_pfn(gm, p->p2m_pfn + i);

        if (!page)
            return not_in_memory(e, "the p2m");
        for (uint64_t j = 0; j < per_page; j++) {
            uint64_t pfn = i * per_page + j;

            page[j] = pfn < p->nr_pages ? gm_pfn_to_mfn(gm, pfn)
                                        : INVALID_P2M_ENTRY;
        }
    }
    return 0;
}

/* A pfn holding a page table of either mapping is mapped read-only. */
static bool is_table_pfn(const struct plan *p, uint64_t pfn)
{
    return pt_map_owns(&p->kmap, pfn) ||
           (!p->p2m_in_kernel_map && pt_map_owns(&p->p2m_map, pfn));
}

static uint64_t table_entry(const struct guest_memory *gm, uint64_t pfn)
{
    return (gm_pfn_to_mfn(gm, pfn) << PAGE_SHIFT) | PROT_TABLE;
}

/* Map one page: point each level at the table the plan chose for va
 * (rewriting an already-present entry with the same value is harmless). */
static int map_page(const struct guest_memory *gm, const struct plan *p,
                    const struct pt_map *m, uint64_t va, uint64_t pfn)
{
    uint64_t *l4 = gm_pfn(gm, m->l4_pfn);
    uint64_t *l3 = gm_pfn(gm, l3_table_pfn(m, va));
    uint64_t *l2 = gm_pfn(gm, l2_table_pfn(m, va));
    uint64_t *l1 = gm_pfn(gm, l1_table_pfn(m, va));
    uint64_t prot = is_table_pfn(p, pfn) ? PROT_PAGE_RO : PROT_PAGE;

    if (!l4 || !l3 || !l2 || !l1 || !gm_pfn_valid(gm, pfn))
        return -1;
    /* The index at each level is the VA bits that level translates. */
    l4[(va >> L4_SLOT_SHIFT) & PT_INDEX_MASK] =
        table_entry(gm, l3_table_pfn(m, va));
    l3[(va >> L2_TABLE_SHIFT) & PT_INDEX_MASK] =
        table_entry(gm, l2_table_pfn(m, va));
    l2[(va >> L1_TABLE_SHIFT) & PT_INDEX_MASK] =
        table_entry(gm, l1_table_pfn(m, va));
    l1[(va >> PAGE_SHIFT) & PT_INDEX_MASK] =
        (gm_pfn_to_mfn(gm, pfn) << PAGE_SHIFT) | prot;
    return 0;
}

static int map_range(const struct guest_memory *gm, const struct plan *p,
                     const struct pt_map *m, struct error *e)
{
    if (guest_zero_pfns(gm, m->pt_pfn, pt_map_tables(m)))
        return not_in_memory(e, "a page table");
    for (uint64_t va = m->va, pfn = m->pfn; va < m->end; va += PAGE_SIZE, pfn++)
        if (map_page(gm, p, m, va, pfn))
            return not_in_memory(e, "a mapped page");
    return 0;
}

/* The kernel map first: its tables hold the L4 the p2m map hangs off. */
static int build_page_tables(const struct guest_memory *gm,
                             const struct plan *p, struct error *e)
{
    if (map_range(gm, p, &p->kmap, e))
        return -1;
    if (!p->p2m_in_kernel_map && map_range(gm, p, &p->p2m_map, e))
        return -1;
    return 0;
}

/* si points at the start_info page, already zeroed. */
static void fill_start_info(struct start_info *si,
                            const struct guest_memory *gm,
                            const struct plan *p, const struct pv_image *img,
                            const struct domain_config *cfg)
{
    memcpy(si->magic, XEN_START_INFO_MAGIC, sizeof(XEN_START_INFO_MAGIC));
    si->nr_pages = p->nr_pages;
    si->shared_info = cfg->shared_info_mfn << PAGE_SHIFT;
    /* As Xen's builder: the p2m is virtually mapped, so Linux need not
     * build the frame lists for save/restore tools. */
    si->flags = SIF_VIRT_P2M_4TOOLS;
    si->store_mfn = gm_pfn_to_mfn(gm, p->store_pfn);
    si->store_evtchn = cfg->store_evtchn;
    si->console.domU.mfn = gm_pfn_to_mfn(gm, p->console_pfn);
    si->console.domU.evtchn = cfg->console_evtchn;
    si->pt_base = plan_va(img, p->kmap.l4_pfn);
    si->nr_pt_frames = pt_map_tables(&p->kmap);
    si->mfn_list = p->p2m_va;
    if (p->have_initrd) {
        /* Xen passes the page-rounded length in both cases. */
        si->mod_len = p->initrd_pages * PAGE_SIZE;
        if (p->initrd_mapped) {
            si->mod_start = plan_va(img, p->initrd_pfn);
        } else {
            si->mod_start = p->initrd_pfn;
            si->flags |= SIF_MOD_START_PFN;
        }
    }
    if (cfg->cmdline)   /* its length was checked by domain_build() */
        memcpy(si->cmd_line, cfg->cmdline, strlen(cfg->cmdline) + 1);
    if (!p->p2m_in_kernel_map) {
        si->first_p2m_pfn = p->p2m_pfn;
        si->nr_p2m_frames = p->p2m_pages + pt_map_tables(&p->p2m_map);
    }
}

static int fill_special_pages(const struct guest_memory *gm,
                              const struct plan *p, const struct pv_image *img,
                              const struct domain_config *cfg, struct error *e)
{
    struct start_info *si = gm_pfn(gm, p->start_info_pfn);

    if (!si || guest_zero_pfns(gm, p->start_info_pfn, 1) ||
        guest_zero_pfns(gm, p->store_pfn, 1) ||
        guest_zero_pfns(gm, p->console_pfn, 1) ||
        guest_zero_pfns(gm, p->stack_pfn, BOOT_STACK_PAGES))
        return not_in_memory(e, "a start-of-day page");
    fill_start_info(si, gm, p, img, cfg);
    return 0;
}

static void fill_layout(struct domain_layout *out,
                        const struct guest_memory *gm, const struct plan *p,
                        const struct pv_image *img)
{
    memset(out, 0, sizeof(*out));
    out->entry = img->entry;
    out->stack_top = plan_va(img, p->stack_pfn + BOOT_STACK_PAGES);
    out->start_info_va = plan_va(img, p->start_info_pfn);
    out->start_info_pfn = p->start_info_pfn;
    out->l4_mfn = gm_pfn_to_mfn(gm, p->kmap.l4_pfn);
    out->pt_base_va = plan_va(img, p->kmap.l4_pfn);
    out->nr_pt_frames = pt_map_tables(&p->kmap);
    out->console_pfn = p->console_pfn;
    out->store_pfn = p->store_pfn;
    out->p2m_va = p->p2m_va;
    out->virt_pgtab_end = p->virt_pgtab_end;
    out->pfns_used = p->next_pfn;
}

int domain_build(struct guest_memory *gm, const struct pv_image *img,
                 const struct domain_config *cfg, struct domain_layout *out,
                 struct error *e)
{
    struct plan p;

    if (check_kernel(gm, img, e) || check_hypercall_page(img, e))
        return -1;
    /* Cut, it would boot the guest with a command line nobody asked for. */
    if (cfg->cmdline && strlen(cfg->cmdline) >= MAX_GUEST_CMDLINE)
        return fail(e, "the kernel command line is %zu bytes, more than the "
                    "%d a PV guest's start_info holds",
                    strlen(cfg->cmdline), MAX_GUEST_CMDLINE - 1);
    if (cfg->initrd && cfg->initrd_bytes > MAX_SIZE_BYTES)
        return fail(e, "the initrd (%llu bytes) does not fit in guest memory",
                    (unsigned long long)cfg->initrd_bytes);
    if (plan_layout(img, cfg, gm->nr_pages, &p, e) ||
        check_fits(gm, &p, img, cfg, e))
        return -1;

    if (load_kernel(gm, &p, img, e) || fill_hypercall_page(gm, img, e) ||
        load_initrd(gm, &p, cfg, e) || fill_p2m(gm, &p, e) ||
        build_page_tables(gm, &p, e) ||
        fill_special_pages(gm, &p, img, cfg, e))
        return -1;
    fill_layout(out, gm, &p, img);
    return 0;
}

/* ---- the hypercall page ---- */

#define INT3 0xcc

/* Store a little-endian 32-bit value (the hypercall number). */
static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
    p[3] = (v >> 24) & 0xff;
}

/*
 * Xen's 64-bit PV stubs: the kernel runs at CPL3, so a hypercall is a
 * `syscall`, which clobbers rcx and r11; the stub saves them around it.
 * iret never returns to its stub, and the Host reads the guest's rax from
 * the stack (Xen's iret frame starts with rax), so that stub pushes rax.
 */
void domain_fill_hypercall_page(uint8_t page[4096])
{
    static const uint8_t push_rcx_r11[] = { 0x51, 0x41, 0x53 };
    static const uint8_t syscall_ret[] = { 0x0f, 0x05, 0x41, 0x5b, 0x59, 0xc3 };
    static const uint8_t push_rax = 0x50, mov_eax = 0xb8;
    static const uint8_t syscall_insn[] = { 0x0f, 0x05 };

    memset(page, INT3, PAGE_SIZE);
    for (unsigned i = 0; i < PAGE_SIZE / XEN_HYPERCALL_SLOT_SIZE; i++) {
        uint8_t *s = page + i * XEN_HYPERCALL_SLOT_SIZE;

        memcpy(s, push_rcx_r11, sizeof(push_rcx_r11));
        s += sizeof(push_rcx_r11);
        if (i == HYPERVISOR_iret)
            *s++ = push_rax;
        *s++ = mov_eax;
        put_le32(s, i);
        s += 4;
        if (i == HYPERVISOR_iret)
            memcpy(s, syscall_insn, sizeof(syscall_insn));
        else
            memcpy(s, syscall_ret, sizeof(syscall_ret));
    }
}
