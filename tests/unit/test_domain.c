/*
 * Unit tests of the PV domain builder (launcher/boot/domain.c), on the host: the
 * images are built by hand (no ELF parser), guest memory is plain anonymous
 * memory, and the page tables are checked with a software page walk.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/xen.h"
#include "../../launcher/boot/domain.h"

#define VIRT_BASE     0xffffffff80000000ull
#define INIT_P2M_VA   0x0000008000000000ull
#define PRIVATE       64
#define MIB_PAGES     256ull            /* 4 KiB pages per MiB */
#define FILE_OFFSET   0x40ull           /* where segment bytes start in the file */
#define SHARED_MFN    5ull

#define PROT_TABLE    (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define PROT_PAGE     (PTE_P | PTE_RW | PTE_US | PTE_A)
#define PROT_PAGE_RO  (PTE_P | PTE_US | PTE_A)
#define PTE_FLAGS(e)  ((e) & ~PTE_ADDR_MASK)

/* Everything one build needs; tear down with fx_release(). */
struct fixture {
    struct guest_memory gm;
    uint8_t *file;
    struct pv_image img;
    struct domain_config cfg;
    struct domain_layout out;
    struct error e;
};

static uint8_t file_byte(uint64_t i)
{
    return (uint8_t)(i * 7 + 3 + (i >> 12));
}

/* A kernel of one segment at paddr: filesz recognisable bytes, then bss
 * up to memsz. Guest memory of nr_pages. */
static bool fx_init(struct fixture *f, uint64_t nr_pages, uint64_t paddr,
                    uint64_t filesz, uint64_t memsz)
{
    memset(f, 0, sizeof(*f));
    if (guest_memory_init(&f->gm, PRIVATE, nr_pages))
        return false;
    f->file = malloc(FILE_OFFSET + filesz);
    if (!f->file)
        return false;
    for (uint64_t i = 0; i < FILE_OFFSET + filesz; i++)
        f->file[i] = i < FILE_OFFSET ? 0 : file_byte(i - FILE_OFFSET);
    f->img.file = f->file;
    f->img.file_size = FILE_OFFSET + filesz;
    f->img.nr_segments = 1;
    f->img.segments[0] = (struct pv_segment){
        .paddr = paddr, .file_offset = FILE_OFFSET,
        .filesz = filesz, .memsz = memsz };
    f->img.virt_base = VIRT_BASE;
    f->img.virt_kstart = VIRT_BASE + paddr;
    f->img.virt_kend = VIRT_BASE + paddr + memsz;
    f->img.entry = f->img.virt_kstart + 0x10;
    f->cfg.shared_info_mfn = SHARED_MFN;
    f->cfg.console_evtchn = 2;
    f->cfg.store_evtchn = 1;
    return true;
}

static void fx_release(struct fixture *f)
{
    guest_memory_release(&f->gm);
    free(f->file);
}

static int fx_build(struct fixture *f)
{
    return domain_build(&f->gm, &f->img, &f->cfg, &f->out, &f->e);
}

/* The default guest: 64 MiB, kernel at 16 MiB, 2 MiB + 0x345 of file
 * bytes and a bss tail up to 3 MiB. */
static bool fx_default(struct fixture *f)
{
    return fx_init(f, 64 * MIB_PAGES, 0x1000000, 0x200345, 0x300000);
}

static struct start_info *fx_start_info(struct fixture *f)
{
    return gm_pfn(&f->gm, f->out.start_info_pfn);
}

static uint64_t mfn_of(const struct fixture *f, uint64_t pfn)
{
    return gm_pfn_to_mfn(&f->gm, pfn);
}

static uint64_t va_of(uint64_t pfn)
{
    return VIRT_BASE + pfn * 4096;
}

/*
 * Software page walk from l4_mfn: returns the L1 entry mapping va, or 0 when
 * some level is not present. Upper levels must carry exactly P|RW|US|A|D,
 * no superpage; a violation makes the walk return 1 (never a valid entry).
 */
static uint64_t walk(const struct fixture *f, uint64_t va)
{
    uint64_t mfn = f->out.l4_mfn;
    static const unsigned shifts[] = { 39, 30, 21, 12 };

    for (unsigned lvl = 0; lvl < 4; lvl++) {
        const uint64_t *table = gm_frame(&f->gm, mfn);
        uint64_t entry;

        if (!table)
            return 1;
        entry = table[(va >> shifts[lvl]) & 511];
        if (!(entry & PTE_P))
            return 0;
        if (lvl == 3)
            return entry;
        if (PTE_FLAGS(entry) != PROT_TABLE)
            return 1;
        mfn = (entry & PTE_ADDR_MASK) >> 12;
    }
    return 0;
}

static bool maps_to(const struct fixture *f, uint64_t va, uint64_t pfn,
                    uint64_t prot)
{
    uint64_t entry = walk(f, va);

    return (entry & PTE_ADDR_MASK) >> 12 == mfn_of(f, pfn) &&
           PTE_FLAGS(entry) == prot;
}

/* ---- loading the kernel ---- */

static void kernel_bytes_loaded_and_bss_zeroed(void)
{
    struct fixture f;
    const struct pv_segment *s = &f.img.segments[0];
    bool ok = true;

    CHECK(fx_default(&f));
    /* Dirty the kernel's frames: the builder must zero the bss itself. */
    for (uint64_t pfn = 0x1000; pfn < 0x1300; pfn++)
        memset(gm_pfn(&f.gm, pfn), 0xaa, 4096);
    CHECK(fx_build(&f) == 0);
    for (uint64_t i = 0; i < s->memsz && ok; i++) {
        uint8_t *page = gm_pfn(&f.gm, (s->paddr + i) / 4096);
        uint8_t want = i < s->filesz ? file_byte(i) : 0;

        ok = page[(s->paddr + i) % 4096] == want;
    }
    CHECK(ok);
    CHECK(f.out.entry == VIRT_BASE + 0x1000010);
    fx_release(&f);
}

static void segment_with_paddr_offset(void)
{
    struct fixture f;
    uint8_t *page;

    /* p_paddr 0x1100000 with PADDR_OFFSET 0x100000: pfn 0x1000. */
    CHECK(fx_default(&f));
    f.img.segments[0].paddr = 0x1100000;
    f.img.paddr_offset = 0x100000;
    CHECK(fx_build(&f) == 0);
    page = gm_pfn(&f.gm, 0x1000);
    CHECK(page[0] == file_byte(0) && page[1] == file_byte(1));
    CHECK(maps_to(&f, f.img.virt_kstart, 0x1000, PROT_PAGE));
    fx_release(&f);
}

/* ---- the layout ---- */

/* The numbers of Xen's builder for this guest, worked out by hand: kernel
 * 0x1000-0x12ff, p2m 0x1300-0x131f (32 pages for 16384 pfns), start_info
 * 0x1320, store 0x1321, console 0x1322, tables 0x1323-0x132f (L4, L3, L2
 * and 10 L1s for 20 MiB), stack 0x1330, padding to 0x1400 = 20 MiB. */
static void layout_matches_xen_p2m_in_kernel_map(void)
{
    struct fixture f;
    struct start_info *si;

    CHECK(fx_default(&f));
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    CHECK(si->mfn_list == va_of(0x1300));
    CHECK(f.out.p2m_va == va_of(0x1300));
    CHECK(f.out.start_info_pfn == 0x1320);
    CHECK(f.out.start_info_va == va_of(0x1320));
    CHECK(f.out.store_pfn == 0x1321);
    CHECK(f.out.console_pfn == 0x1322);
    CHECK(f.out.pt_base_va == va_of(0x1323));
    CHECK(f.out.l4_mfn == mfn_of(&f, 0x1323));
    CHECK(f.out.nr_pt_frames == 13);
    CHECK(f.out.stack_top == va_of(0x1331));
    CHECK(f.out.virt_pgtab_end == VIRT_BASE + 0x1400000);
    CHECK(f.out.pfns_used == 0x1400);
    CHECK(si->first_p2m_pfn == 0 && si->nr_p2m_frames == 0);
    fx_release(&f);
}

/* Same guest with INIT_P2M: the special pages follow the kernel, and the
 * p2m (32 pages) and its L3, L2, L1 come after the map at 0x1400. */
static void layout_matches_xen_init_p2m(void)
{
    struct fixture f;
    struct start_info *si;

    CHECK(fx_default(&f));
    f.img.init_p2m = INIT_P2M_VA;
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    CHECK(f.out.start_info_pfn == 0x1300);
    CHECK(f.out.store_pfn == 0x1301);
    CHECK(f.out.console_pfn == 0x1302);
    CHECK(f.out.pt_base_va == va_of(0x1303));
    CHECK(f.out.nr_pt_frames == 13);
    CHECK(f.out.stack_top == va_of(0x1311));
    CHECK(f.out.virt_pgtab_end == VIRT_BASE + 0x1400000);
    CHECK(si->mfn_list == INIT_P2M_VA && f.out.p2m_va == INIT_P2M_VA);
    CHECK(si->first_p2m_pfn == 0x1400);
    CHECK(si->nr_p2m_frames == 32 + 3);
    CHECK(f.out.pfns_used == 0x1423);
    fx_release(&f);
}

static void pgtab_end_aligned_and_covers_stack_and_spare(void)
{
    struct fixture f;
    uint64_t end;

    /* An odd kernel size and memory size, so nothing lines up by luck. */
    CHECK(fx_init(&f, 100 * MIB_PAGES + 7, 0x1000000, 0x123456, 0x2f1234));
    CHECK(fx_build(&f) == 0);
    end = f.out.virt_pgtab_end;
    CHECK(end % 0x400000 == 0);
    CHECK(end >= f.out.stack_top + 512 * 1024);
    CHECK(f.out.stack_top > f.out.pt_base_va + f.out.nr_pt_frames * 4096 - 1);
    /* L4 + L3 + L2 + one L1 per 2 MiB of the map. */
    CHECK(f.out.nr_pt_frames == 3 + (end - VIRT_BASE) / 0x200000);
    CHECK(f.out.pfns_used == (end - VIRT_BASE) / 4096);
    fx_release(&f);
}

/* The map's end moves to the next 4 MiB as soon as the tables, the stack
 * and 512 KiB no longer fit: a kernel ending at pfn 0x134f leaves p2m,
 * special pages, 13 tables, stack and exactly 128 spare pages below 20 MiB;
 * one more kernel page pushes the end to 24 MiB (with 2 more L1s). */
static void pgtab_end_moves_at_the_exact_boundary(void)
{
    struct fixture f;

    CHECK(fx_init(&f, 64 * MIB_PAGES, 0x1000000, 0x1000, 0x34f000));
    CHECK(fx_build(&f) == 0);
    CHECK(f.out.virt_pgtab_end == VIRT_BASE + 0x1400000);
    CHECK(f.out.stack_top == va_of(0x1380));
    CHECK(f.out.nr_pt_frames == 13);
    fx_release(&f);

    CHECK(fx_init(&f, 64 * MIB_PAGES, 0x1000000, 0x1000, 0x350000));
    CHECK(fx_build(&f) == 0);
    CHECK(f.out.virt_pgtab_end == VIRT_BASE + 0x1800000);
    CHECK(f.out.nr_pt_frames == 15);
    CHECK(f.out.stack_top == va_of(0x1373 + 15 + 1));
    fx_release(&f);
}

/* ---- start_info ---- */

static void start_info_fields(void)
{
    struct fixture f;
    struct start_info *si;

    CHECK(fx_init(&f, 64 * MIB_PAGES + 12, 0x1000000, 0x200345, 0x300000));
    f.cfg.cmdline = "console=hvc0 root=/dev/xvda";
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    CHECK(strcmp(si->magic, "xen-3.0-x86_64") == 0);
    CHECK(si->nr_pages == 64 * MIB_PAGES + 12);
    CHECK(si->shared_info == SHARED_MFN << 12);
    CHECK(si->flags == SIF_VIRT_P2M_4TOOLS);
    CHECK(si->store_mfn == mfn_of(&f, f.out.store_pfn));
    CHECK(si->store_evtchn == 1);
    CHECK(si->console.domU.mfn == mfn_of(&f, f.out.console_pfn));
    CHECK(si->console.domU.evtchn == 2);
    CHECK(si->pt_base == f.out.pt_base_va);
    CHECK(si->nr_pt_frames == f.out.nr_pt_frames);
    CHECK(si->mfn_list == f.out.p2m_va);
    CHECK(si->mod_start == 0 && si->mod_len == 0);
    CHECK(strcmp(si->cmd_line, "console=hvc0 root=/dev/xvda") == 0);
    CHECK(f.out.store_pfn == f.out.start_info_pfn + 1);
    CHECK(f.out.console_pfn == f.out.start_info_pfn + 2);
    fx_release(&f);
}

/* 1023 bytes fit start_info whole; one more is refused, never cut. */
static void cmdline_whole_or_refused_and_absent(void)
{
    struct fixture f;
    struct start_info *si;
    char *long_line = malloc(1025);

    CHECK(long_line);
    memset(long_line, 'x', 1023);
    long_line[1023] = '\0';
    CHECK(fx_default(&f));
    f.cfg.cmdline = long_line;
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    CHECK(strlen(si->cmd_line) == 1023);
    CHECK(si->cmd_line[1022] == 'x' && si->cmd_line[1023] == '\0');
    fx_release(&f);

    long_line[1023] = 'y';
    long_line[1024] = '\0';
    CHECK(fx_default(&f));
    f.cfg.cmdline = long_line;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "command line is 1024 bytes");
    fx_release(&f);

    CHECK(fx_default(&f));
    f.cfg.cmdline = NULL;
    CHECK(fx_build(&f) == 0);
    CHECK(fx_start_info(&f)->cmd_line[0] == '\0');
    fx_release(&f);
    free(long_line);
}

/* ---- page tables ---- */

static void page_walk_translates_with_right_flags(void)
{
    struct fixture f;
    uint64_t pt_pfn, stack_pfn, p2m_pfn, end_pfn;

    CHECK(fx_default(&f));
    CHECK(fx_build(&f) == 0);
    pt_pfn = (f.out.pt_base_va - VIRT_BASE) / 4096;
    stack_pfn = (f.out.stack_top - VIRT_BASE) / 4096 - 1;
    p2m_pfn = (f.out.p2m_va - VIRT_BASE) / 4096;
    end_pfn = (f.out.virt_pgtab_end - VIRT_BASE) / 4096;

    CHECK(maps_to(&f, VIRT_BASE, 0, PROT_PAGE));                 /* padding */
    CHECK(maps_to(&f, f.img.virt_kstart, 0x1000, PROT_PAGE));    /* text */
    CHECK(maps_to(&f, f.img.virt_kend - 1, 0x12ff, PROT_PAGE));  /* bss */
    CHECK(maps_to(&f, f.out.start_info_va + 0x123, f.out.start_info_pfn,
                  PROT_PAGE));
    CHECK(maps_to(&f, f.out.stack_top - 8, stack_pfn, PROT_PAGE));
    CHECK(maps_to(&f, f.out.p2m_va, p2m_pfn, PROT_PAGE));
    CHECK(maps_to(&f, f.out.virt_pgtab_end - 1, end_pfn - 1, PROT_PAGE));
    /* Every page-table page is mapped, read-only; the page after is not. */
    for (uint64_t i = 0; i < f.out.nr_pt_frames; i++)
        CHECK(maps_to(&f, f.out.pt_base_va + i * 4096, pt_pfn + i,
                      PROT_PAGE_RO));
    CHECK(maps_to(&f, f.out.pt_base_va + f.out.nr_pt_frames * 4096,
                  pt_pfn + f.out.nr_pt_frames, PROT_PAGE));
    /* Nothing beyond the map, nothing below virt_base. */
    CHECK(walk(&f, f.out.virt_pgtab_end) == 0);
    CHECK(walk(&f, VIRT_BASE - 4096) == 0);
    fx_release(&f);
}

static void every_mapped_page_is_user_and_identity_by_pfn(void)
{
    struct fixture f;
    bool ok = true;

    CHECK(fx_default(&f));
    CHECK(fx_build(&f) == 0);
    for (uint64_t va = VIRT_BASE; va < f.out.virt_pgtab_end && ok; va += 4096) {
        uint64_t entry = walk(&f, va);

        ok = (entry & PTE_US) && (entry & PTE_P) && !(entry & PTE_NX) &&
             !(entry & PTE_G) &&
             (entry & PTE_ADDR_MASK) >> 12 == mfn_of(&f, (va - VIRT_BASE) / 4096);
    }
    CHECK(ok);
    fx_release(&f);
}

static void hypervisor_hole_left_empty(void)
{
    struct fixture f;
    const uint64_t *l4;

    CHECK(fx_default(&f));
    f.img.init_p2m = INIT_P2M_VA;
    CHECK(fx_build(&f) == 0);
    l4 = gm_frame(&f.gm, f.out.l4_mfn);
    for (unsigned slot = 0; slot < 512; slot++) {
        bool used = slot == 1 || slot == 511;

        CHECK((l4[slot] != 0) == used);
    }
    fx_release(&f);
}

/* ---- the p2m ---- */

static bool p2m_contents_ok(const struct fixture *f, uint64_t first_pfn)
{
    uint64_t nr = f->gm.nr_pages, rounded = (nr + 511) / 512 * 512;

    for (uint64_t i = 0; i < rounded; i++) {
        const uint64_t *page = gm_pfn(&f->gm, first_pfn + i / 512);
        uint64_t want = i < nr ? mfn_of(f, i) : INVALID_P2M_ENTRY;

        if (page[i % 512] != want)
            return false;
    }
    return true;
}

static void p2m_in_kernel_map_contents(void)
{
    struct fixture f;

    /* Not a multiple of 512 pfns: the last page is padded with INVALID. */
    CHECK(fx_init(&f, 64 * MIB_PAGES + 12, 0x1000000, 0x200345, 0x300000));
    CHECK(fx_build(&f) == 0);
    CHECK(p2m_contents_ok(&f, (f.out.p2m_va - VIRT_BASE) / 4096));
    fx_release(&f);
}

static void p2m_at_init_p2m_mapped_through_slot_1(void)
{
    struct fixture f;
    struct start_info *si;
    uint64_t first, pages = (64 * MIB_PAGES + 12 + 511) / 512;

    CHECK(fx_init(&f, 64 * MIB_PAGES + 12, 0x1000000, 0x200345, 0x300000));
    f.img.init_p2m = INIT_P2M_VA;
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    first = si->first_p2m_pfn;
    CHECK(si->mfn_list == INIT_P2M_VA);
    CHECK(first == (f.out.virt_pgtab_end - VIRT_BASE) / 4096);
    CHECK(si->nr_p2m_frames == pages + 3);
    CHECK(f.out.pfns_used == first + pages + 3);
    CHECK(p2m_contents_ok(&f, first));
    for (uint64_t i = 0; i < pages; i++)
        CHECK(maps_to(&f, INIT_P2M_VA + i * 4096, first + i, PROT_PAGE));
    CHECK(walk(&f, INIT_P2M_VA + pages * 4096) == 0);
    /* Its tables follow the array (L3, L2, L1) and are not in the kernel
     * map's count. */
    {
        const uint64_t *l4 = gm_frame(&f.gm, f.out.l4_mfn);

        CHECK((l4[1] & PTE_ADDR_MASK) >> 12 == mfn_of(&f, first + pages));
    }
    CHECK(f.out.nr_pt_frames == 13);
    fx_release(&f);
}

static void init_p2m_invalid_addresses_refused(void)
{
    static const uint64_t bad[] = {
        INIT_P2M_VA + 0x800,             /* unaligned */
        0xffff800000000000ull,           /* hypervisor hole, slot 256 */
        0xffff878000000000ull,           /* slot 271 */
        0xffffff8000000000ull,           /* the kernel's slot 511 */
        0xffffffff90000000ull,           /* above virt_base */
        0x0000900000000000ull,           /* not canonical */
    };

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct fixture f;
        int rc;

        CHECK(fx_default(&f));
        f.img.init_p2m = bad[i];
        rc = fx_build(&f);
        fx_release(&f);
        CHECK(rc == -1);
        CHECK_CONTAINS(f.e.msg, "p2m VA");
    }
}

/* ---- the initrd ---- */

static uint8_t initrd_byte(uint64_t i)
{
    return (uint8_t)(i * 13 + 1);
}

static uint8_t *make_initrd(uint64_t bytes)
{
    uint8_t *p = malloc(bytes);

    for (uint64_t i = 0; p && i < bytes; i++)
        p[i] = initrd_byte(i);
    return p;
}

static bool initrd_at_pfn(const struct fixture *f, uint64_t pfn,
                          uint64_t bytes)
{
    for (uint64_t i = 0; i < (bytes + 4095) / 4096 * 4096; i++) {
        const uint8_t *page = gm_pfn(&f->gm, pfn + i / 4096);
        uint8_t want = i < bytes ? initrd_byte(i) : 0;

        if (page[i % 4096] != want)
            return false;
    }
    return true;
}

static void initrd_mapped_without_mod_start_pfn(void)
{
    struct fixture f;
    struct start_info *si;
    uint64_t bytes = 3 * 4096 + 100, pfn;
    uint8_t *initrd = make_initrd(bytes);

    CHECK(initrd);
    CHECK(fx_default(&f));
    f.cfg.initrd = initrd;
    f.cfg.initrd_bytes = bytes;
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    CHECK(!(si->flags & SIF_MOD_START_PFN));
    CHECK(si->mod_start == va_of(0x1300));   /* right after the kernel */
    CHECK(si->mod_len == 4 * 4096);
    pfn = (si->mod_start - VIRT_BASE) / 4096;
    CHECK(initrd_at_pfn(&f, pfn, bytes));
    for (uint64_t i = 0; i < 4; i++)
        CHECK(maps_to(&f, si->mod_start + i * 4096, pfn + i, PROT_PAGE));
    CHECK(f.out.p2m_va == va_of(0x1304));    /* the p2m follows it */
    fx_release(&f);
    free(initrd);
}

static void initrd_unmapped_with_mod_start_pfn(void)
{
    struct fixture f;
    struct start_info *si;
    uint64_t bytes = 5 * 4096 + 1, end_pfn;
    uint8_t *initrd = make_initrd(bytes);

    CHECK(initrd);
    CHECK(fx_default(&f));
    f.img.mod_start_pfn = true;
    f.img.init_p2m = INIT_P2M_VA;
    f.cfg.initrd = initrd;
    f.cfg.initrd_bytes = bytes;
    CHECK(fx_build(&f) == 0);
    si = fx_start_info(&f);
    end_pfn = (f.out.virt_pgtab_end - VIRT_BASE) / 4096;
    CHECK(si->flags & SIF_MOD_START_PFN);
    CHECK(si->mod_start == end_pfn);         /* first pfn above the map */
    CHECK(si->mod_len == 6 * 4096);
    CHECK(initrd_at_pfn(&f, si->mod_start, bytes));
    CHECK(walk(&f, va_of(si->mod_start)) == 0);
    CHECK(si->first_p2m_pfn == end_pfn + 6); /* the p2m comes after it */
    fx_release(&f);
    free(initrd);
}

static void initrd_too_big_refused(void)
{
    struct fixture f;
    uint8_t byte = 0;

    CHECK(fx_default(&f));
    f.img.mod_start_pfn = true;
    f.cfg.initrd = &byte;                    /* never read: refused first */
    f.cfg.initrd_bytes = 60ull << 20;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "initrd");
    CHECK_CONTAINS(f.e.msg, "needs at least 80 MiB");
    fx_release(&f);

    /* When the kernel alone does not fit either, the message says so. */
    CHECK(fx_init(&f, 19 * MIB_PAGES, 0x1000000, 0x200345, 0x300000));
    f.img.mod_start_pfn = true;
    f.cfg.initrd = &byte;
    f.cfg.initrd_bytes = 4096;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "too small for the kernel's layout");
    CHECK_CONTAINS(f.e.msg, "at least 21 MiB");
    fx_release(&f);
}

/* ---- the hypercall page ---- */

static const uint8_t slot0[32] = {
    0x51, 0x41, 0x53, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x41, 0x5b,
    0x59, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
    0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};
static const uint8_t slot29[32] = {
    0x51, 0x41, 0x53, 0xb8, 0x1d, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x41, 0x5b,
    0x59, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
    0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};
static const uint8_t slot23[32] = {
    0x51, 0x41, 0x53, 0x50, 0xb8, 0x17, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xcc,
    0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
    0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};
static const uint8_t slot127[32] = {
    0x51, 0x41, 0x53, 0xb8, 0x7f, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x41, 0x5b,
    0x59, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
    0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
};

static void hypercall_page_stubs(void)
{
    static uint8_t page[4096];

    memset(page, 0x5a, sizeof(page));
    domain_fill_hypercall_page(page);
    CHECK(memcmp(page, slot0, 32) == 0);
    CHECK(memcmp(page + 23 * 32, slot23, 32) == 0);
    CHECK(memcmp(page + 29 * 32, slot29, 32) == 0);
    CHECK(memcmp(page + 127 * 32, slot127, 32) == 0);
}

static void hypercall_page_filled_in_kernel(void)
{
    struct fixture f;
    static uint8_t want[4096];
    const uint8_t *page;

    CHECK(fx_default(&f));
    f.img.hypercall_page = f.img.virt_kstart + 0x2000;
    CHECK(fx_build(&f) == 0);
    domain_fill_hypercall_page(want);
    page = gm_pfn(&f.gm, 0x1002);
    CHECK(memcmp(page, want, 4096) == 0);
    /* Its neighbours keep the kernel's bytes. */
    CHECK(((uint8_t *)gm_pfn(&f.gm, 0x1001))[4095] == file_byte(0x1fff));
    CHECK(((uint8_t *)gm_pfn(&f.gm, 0x1003))[0] == file_byte(0x3000));
    fx_release(&f);
}

static void hypercall_page_outside_kernel_refused(void)
{
    struct fixture f;

    CHECK(fx_default(&f));
    f.img.hypercall_page = f.img.virt_kend;   /* first page after it */
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "hypercall page");
    fx_release(&f);

    CHECK(fx_default(&f));
    f.img.hypercall_page = VIRT_BASE;         /* padding below it */
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "outside the kernel");
    fx_release(&f);
}

/* ---- errors ---- */

/* The kernel ends at 19 MiB; the map then ends at 20 MiB, so 20 MiB is
 * the least that works, and the message says so. */
static void memory_too_small_says_how_much(void)
{
    struct fixture f;

    CHECK(fx_init(&f, 19 * MIB_PAGES, 0x1000000, 0x200345, 0x300000));
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "too small");
    CHECK_CONTAINS(f.e.msg, "at least 20 MiB");
    fx_release(&f);

    CHECK(fx_init(&f, 20 * MIB_PAGES - 1, 0x1000000, 0x200345, 0x300000));
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "at least 20 MiB");
    fx_release(&f);

    CHECK(fx_init(&f, 20 * MIB_PAGES, 0x1000000, 0x200345, 0x300000));
    CHECK(fx_build(&f) == 0);
    CHECK(f.out.pfns_used == 20 * MIB_PAGES);
    fx_release(&f);
}

static void segment_beyond_guest_memory_refused(void)
{
    struct fixture f;

    CHECK(fx_init(&f, 64 * MIB_PAGES, 0x3f00000, 0x1000, 0x200000));
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "is too small for this kernel");
    fx_release(&f);
}

static void segment_below_virt_base_refused(void)
{
    struct fixture f;

    /* With PADDR_OFFSET 2 MiB, p_paddr 1 MiB lies at virt_base - 1 MiB. */
    CHECK(fx_init(&f, 64 * MIB_PAGES, 0x100000, 0x1000, 0x2000));
    f.img.paddr_offset = 0x200000;
    f.img.virt_kstart = VIRT_BASE - 0x100000;
    f.img.virt_kend = f.img.virt_kstart + 0x2000;
    f.img.entry = f.img.virt_kstart;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "below virt_base");
    fx_release(&f);
}

/* Where file bytes lie is pv_image.c's rule alone: a segment with none
 * may give any offset, and its memory is zeroed. */
static void segment_without_file_bytes_loads_at_any_offset(void)
{
    struct fixture f;
    uint8_t *page;

    CHECK(fx_init(&f, 64 * MIB_PAGES, 0x1000000, 0, 0x3000));
    f.img.segments[0].file_offset = f.img.file_size + 0x10000;
    CHECK(fx_build(&f) == 0);
    page = gm_pfn(&f.gm, 0x1000000 / 4096);
    CHECK(page && page[0] == 0 && page[4095] == 0);
    fx_release(&f);
}

/* A kernel linked in the top L2 of the address space: a map that fits
 * works; one that would have to end at 2^64 is refused, not wrapped. */
static void virt_base_in_the_top_l2(void)
{
    struct fixture f;
    uint64_t top_l2 = 0xffffffffc0000000ull;

    CHECK(fx_init(&f, 64 * MIB_PAGES, 0x1000000, 0x1000, 0x300000));
    f.img.virt_base = top_l2;
    f.img.virt_kstart = top_l2 + 0x1000000;
    f.img.virt_kend = f.img.virt_kstart + 0x300000;
    f.img.entry = f.img.virt_kstart;
    CHECK(fx_build(&f) == 0);
    CHECK(f.out.virt_pgtab_end == top_l2 + 0x1400000);
    CHECK(walk(&f, f.img.virt_kstart) >> 12 == mfn_of(&f, 0x1000));
    fx_release(&f);

    CHECK(fx_init(&f, 64 * MIB_PAGES, 0, 0x1000, 0x1000));
    f.img.virt_base = 0xffffffffffc00000ull;   /* 4 MiB below 2^64 */
    f.img.virt_kstart = f.img.virt_base;
    f.img.virt_kend = f.img.virt_base + 0x1000;
    f.img.entry = f.img.virt_kstart;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "one L2");
    fx_release(&f);
}

/* A hand-made image whose notes disagree with its segments. */
static void inconsistent_image_refused(void)
{
    struct fixture f;

    CHECK(fx_default(&f));
    f.img.virt_kend -= 0x1000;               /* segment ends past virt_kend */
    f.img.entry = f.img.virt_kstart;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "outside the kernel image");
    fx_release(&f);

    CHECK(fx_default(&f));
    f.img.entry = f.img.virt_kend;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "entry");
    fx_release(&f);
}

static void mapped_initrd_beyond_one_l2_refused(void)
{
    struct fixture f;
    uint8_t byte = 0;

    /* 1 GiB of mapped initrd cannot be reached through one L2. */
    CHECK(fx_init(&f, 1200 * MIB_PAGES, 0x1000000, 0x1000, 0x1000));
    f.cfg.initrd = &byte;                    /* never read: refused first */
    f.cfg.initrd_bytes = 1024ull << 20;
    CHECK(fx_build(&f) == -1);
    CHECK_CONTAINS(f.e.msg, "1 GiB");
    fx_release(&f);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* keep the lines if a case crashes */
    RUN(kernel_bytes_loaded_and_bss_zeroed);
    RUN(segment_with_paddr_offset);
    RUN(layout_matches_xen_p2m_in_kernel_map);
    RUN(layout_matches_xen_init_p2m);
    RUN(pgtab_end_aligned_and_covers_stack_and_spare);
    RUN(pgtab_end_moves_at_the_exact_boundary);
    RUN(start_info_fields);
    RUN(cmdline_whole_or_refused_and_absent);
    RUN(page_walk_translates_with_right_flags);
    RUN(every_mapped_page_is_user_and_identity_by_pfn);
    RUN(hypervisor_hole_left_empty);
    RUN(p2m_in_kernel_map_contents);
    RUN(p2m_at_init_p2m_mapped_through_slot_1);
    RUN(init_p2m_invalid_addresses_refused);
    RUN(initrd_mapped_without_mod_start_pfn);
    RUN(initrd_unmapped_with_mod_start_pfn);
    RUN(initrd_too_big_refused);
    RUN(hypercall_page_stubs);
    RUN(hypercall_page_filled_in_kernel);
    RUN(hypercall_page_outside_kernel_refused);
    RUN(memory_too_small_says_how_much);
    RUN(segment_beyond_guest_memory_refused);
    RUN(segment_below_virt_base_refused);
    RUN(segment_without_file_bytes_loads_at_any_offset);
    RUN(virt_base_in_the_top_l2);
    RUN(inconsistent_image_refused);
    RUN(mapped_initrd_beyond_one_l2_refused);
    return check_exit_status();
}
