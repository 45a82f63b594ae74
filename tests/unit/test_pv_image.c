/*
 * Unit tests of the PV kernel image parser. Each case assembles an ELF64
 * image in memory (header, program headers, a PT_NOTE segment with chosen
 * notes, PT_LOAD segments), breaks it in one way or not at all, and checks
 * what pv_image_parse() makes of it.
 *
 * Every parse reads a heap copy of exactly the image's size, so that with
 * AddressSanitizer any read past the end of the buffer is caught.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/elfnote.h"
#include "../../abi/xen/features.h"
#include "../../abi/xen/xen.h"
#include "../../launcher/boot/pv_image.h"

/* The layout of the usual test kernel: Linux-like addresses. */
#define VIRT_BASE      0xffffffff80000000ull
#define LOAD_PADDR     0x1000000ull
#define LOAD_OFFSET    0x1000ull
#define LOAD_FILESZ    0x1000ull
#define LOAD_MEMSZ     0x3000ull
#define LOAD_STRIDE    0x4000ull    /* paddr distance between PT_LOADs */
#define KSTART         (VIRT_BASE + LOAD_PADDR)
#define KEND           (KSTART + LOAD_MEMSZ)
#define ENTRY          (KSTART + 0x100)
#define HYPERCALL_PAGE (KSTART + 0x1000)
#define INIT_P2M       0x8000000000ull
#define HV_START_LOW   0xffff800000000000ull
#define FEATURES       "!writable_page_tables|pae_pgdir_above_4gb"
#define IMAGE_MAX      0x3000

/* ---- Building notes ---- */

struct notes {
    uint8_t b[2048];
    size_t len;
    unsigned align;             /* padding of names and descriptors: 4 or 8 */
};

static size_t pad(size_t n, unsigned align)
{
    return (n + align - 1) / align * align;
}

static void notes_init(struct notes *n, unsigned align)
{
    memset(n, 0, sizeof(*n));
    n->align = align;
}

/* Append a note header with arbitrary sizes, and `body` bytes after it. */
static void note_raw(struct notes *n, uint32_t namesz, uint32_t descsz,
                     uint32_t type, const void *body, size_t body_len)
{
    Elf64_Nhdr nh = { .n_namesz = namesz, .n_descsz = descsz,
                      .n_type = type };

    if (n->len + sizeof(nh) + body_len > sizeof(n->b))
        abort();
    memcpy(n->b + n->len, &nh, sizeof(nh));
    memcpy(n->b + n->len + sizeof(nh), body, body_len);
    n->len += sizeof(nh) + body_len;
}

/* Append a well-formed note owned by `owner`. Its descriptor starts at an
 * aligned offset from the note's start, counting the 12-byte header. */
static void note_add(struct notes *n, const char *owner, uint32_t type,
                     const void *desc, uint32_t descsz)
{
    uint32_t namesz = strlen(owner) + 1;
    size_t name_room = pad(sizeof(Elf64_Nhdr) + namesz, n->align) -
                       sizeof(Elf64_Nhdr);
    uint8_t body[512] = { 0 };

    if (name_room + pad(descsz, n->align) > sizeof(body))
        abort();
    memcpy(body, owner, namesz);
    memcpy(body + name_room, desc, descsz);
    note_raw(n, namesz, descsz, type, body,
             name_room + pad(descsz, n->align));
}

static void note_u64(struct notes *n, uint32_t type, uint64_t v)
{
    note_add(n, "Xen", type, &v, 8);
}

static void note_u32(struct notes *n, uint32_t type, uint32_t v)
{
    note_add(n, "Xen", type, &v, 4);
}

static void note_str(struct notes *n, uint32_t type, const char *s)
{
    note_add(n, "Xen", type, s, strlen(s) + 1);
}

/* Leave a note out of usual_notes(). */
enum {
    NO_ENTRY = 1 << 0,
    NO_HYPERCALL_PAGE = 1 << 1,
    NO_VIRT_BASE = 1 << 2,
    NO_XEN_VERSION = 1 << 3,
    NO_MOD_START_PFN = 1 << 4,
    NO_PADDR_OFFSET = 1 << 5,
};

/* The notes a 64-bit Linux kernel carries, with non-Xen notes among them. */
static void usual_notes(struct notes *n, unsigned omit)
{
    static const uint8_t build_id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

    note_add(n, "GNU", NT_GNU_BUILD_ID, build_id, sizeof(build_id));
    note_str(n, XEN_ELFNOTE_GUEST_OS, "linux");
    note_str(n, XEN_ELFNOTE_GUEST_VERSION, "2.6");
    if (!(omit & NO_XEN_VERSION))
        note_str(n, XEN_ELFNOTE_XEN_VERSION, "xen-3.0");
    if (!(omit & NO_VIRT_BASE))
        note_u64(n, XEN_ELFNOTE_VIRT_BASE, VIRT_BASE);
    if (!(omit & NO_PADDR_OFFSET))
        note_u64(n, XEN_ELFNOTE_PADDR_OFFSET, 0);
    if (!(omit & NO_ENTRY))
        note_u64(n, XEN_ELFNOTE_ENTRY, ENTRY);
    if (!(omit & NO_HYPERCALL_PAGE))
        note_u64(n, XEN_ELFNOTE_HYPERCALL_PAGE, HYPERCALL_PAGE);
    note_str(n, XEN_ELFNOTE_FEATURES, FEATURES);
    note_u32(n, XEN_ELFNOTE_SUPPORTED_FEATURES, 1u << XENFEAT_dom0);
    note_str(n, XEN_ELFNOTE_PAE_MODE, "yes");
    note_str(n, XEN_ELFNOTE_LOADER, "generic");
    note_u32(n, XEN_ELFNOTE_SUSPEND_CANCEL, 1);
    note_u64(n, XEN_ELFNOTE_HV_START_LOW, HV_START_LOW);
    note_u64(n, XEN_ELFNOTE_INIT_P2M, INIT_P2M);
    if (!(omit & NO_MOD_START_PFN))
        note_u32(n, XEN_ELFNOTE_MOD_START_PFN, 1);
    note_add(n, "Linux", 0x100, "6.1", 4);
}

/* ---- Building images ---- */

struct image {
    _Alignas(8) uint8_t b[IMAGE_MAX];
    size_t size;
    uint64_t notes_off;
    uint64_t notes_len;
};

static Elf64_Ehdr *ehdr(struct image *im)
{
    return (Elf64_Ehdr *)im->b;
}

/* Program header 0 is the PT_NOTE segment, 1.. are the PT_LOADs. */
static Elf64_Phdr *phdr(struct image *im, unsigned i)
{
    return (Elf64_Phdr *)(im->b + sizeof(Elf64_Ehdr)) + i;
}

static void build_loads(struct image *im, const struct notes *n,
                        unsigned nloads)
{
    unsigned phnum = 1 + nloads;
    Elf64_Ehdr *eh = ehdr(im);

    memset(im, 0, sizeof(*im));
    im->notes_off = sizeof(Elf64_Ehdr) + phnum * sizeof(Elf64_Phdr);
    im->notes_len = n->len;
    if (im->notes_off + n->len > LOAD_OFFSET)
        abort();

    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_EXEC;
    eh->e_machine = EM_X86_64;
    eh->e_version = EV_CURRENT;
    eh->e_entry = LOAD_PADDR;           /* physical, as in a vmlinux */
    eh->e_phoff = sizeof(Elf64_Ehdr);
    eh->e_ehsize = sizeof(Elf64_Ehdr);
    eh->e_phentsize = sizeof(Elf64_Phdr);
    eh->e_phnum = phnum;

    *phdr(im, 0) = (Elf64_Phdr){
        .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = im->notes_off,
        .p_filesz = n->len, .p_memsz = n->len, .p_align = n->align,
    };
    memcpy(im->b + im->notes_off, n->b, n->len);

    for (unsigned i = 0; i < nloads; i++) {
        uint64_t paddr = LOAD_PADDR + i * LOAD_STRIDE;

        *phdr(im, 1 + i) = (Elf64_Phdr){
            .p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X,
            .p_offset = LOAD_OFFSET, .p_vaddr = VIRT_BASE + paddr,
            .p_paddr = paddr, .p_filesz = LOAD_FILESZ,
            .p_memsz = LOAD_MEMSZ, .p_align = 0x1000,
        };
    }
    /* The loaded bytes run to the very end of the file, so cutting off
     * even the last byte must be noticed. */
    memset(im->b + LOAD_OFFSET, 0xcc, LOAD_FILESZ);
    im->size = LOAD_OFFSET + LOAD_FILESZ;
}

static void build(struct image *im, const struct notes *n)
{
    build_loads(im, n, 1);
}

static void build_usual(struct image *im, unsigned omit)
{
    struct notes n;

    notes_init(&n, 4);
    usual_notes(&n, omit);
    build(im, &n);
}

/* Move the notes from the PT_NOTE segment to a SHT_NOTE section, with a
 * section header table appended to the file. */
static void move_notes_to_section(struct image *im)
{
    Elf64_Shdr sh[3] = {
        [1] = { .sh_type = SHT_PROGBITS, .sh_offset = LOAD_OFFSET,
                .sh_size = LOAD_FILESZ, .sh_addralign = 16 },
        [2] = { .sh_type = SHT_NOTE, .sh_offset = im->notes_off,
                .sh_size = im->notes_len, .sh_addralign = 4 },
    };

    phdr(im, 0)->p_type = PT_NULL;
    ehdr(im)->e_shoff = im->size;
    ehdr(im)->e_shnum = 3;
    ehdr(im)->e_shentsize = sizeof(Elf64_Shdr);
    memcpy(im->b + im->size, sh, sizeof(sh));
    im->size += sizeof(sh);
}

/* ---- Parsing ---- */

static struct pv_image img;
static struct error err;
static uint8_t *heap_copy;      /* what img.file points into */

static int parse_bytes(const void *bytes, size_t size)
{
    free(heap_copy);
    heap_copy = malloc(size ? size : 1);
    if (!heap_copy)
        abort();
    memcpy(heap_copy, bytes, size);
    memset(&err, 0, sizeof(err));
    return pv_image_parse(heap_copy, size, &img, &err);
}

static int parse(const struct image *im)
{
    return parse_bytes(im->b, im->size);
}

/* A failure must come with exactly one line of explanation. */
#define CHECK_FAILS(im, text)                                              \
    do {                                                                   \
        CHECK(parse(im) == -1);                                            \
        CHECK(err.msg[0] != '\0' && !strchr(err.msg, '\n'));               \
        CHECK_CONTAINS(err.msg, text);                                     \
    } while (0)

/* Helpers that CHECK return early on failure; their callers stop too, so
 * that a case prints at most one FAIL line. */
#define STOP_IF_FAILED()                                                   \
    do {                                                                   \
        if (check_case_failed)                                             \
            return;                                                        \
    } while (0)

#define CHECK_PARSES(im)                                                   \
    do {                                                                   \
        int rc_ = parse(im);                                               \
        if (rc_ != 0)                                                      \
            printf("  (%s)\n", err.msg);                                   \
        CHECK(rc_ == 0);                                                   \
    } while (0)

/* ---- Well-formed images ---- */

static void valid_image_all_fields(void)
{
    struct image im;

    build_usual(&im, 0);
    CHECK_PARSES(&im);
    CHECK(img.file == heap_copy);
    CHECK(img.file_size == LOAD_OFFSET + LOAD_FILESZ);
    CHECK(img.nr_segments == 1);
    CHECK(img.segments[0].paddr == LOAD_PADDR);
    CHECK(img.segments[0].file_offset == LOAD_OFFSET);
    CHECK(img.segments[0].filesz == LOAD_FILESZ);
    CHECK(img.segments[0].memsz == LOAD_MEMSZ);
    CHECK(img.entry == ENTRY);
    CHECK(img.virt_base == VIRT_BASE);
    CHECK(img.paddr_offset == 0);
    CHECK(img.hypercall_page == HYPERCALL_PAGE);
    CHECK(img.init_p2m == INIT_P2M);
    CHECK(img.hv_start_low == HV_START_LOW);
    CHECK(img.mod_start_pfn);
    CHECK(strcmp(img.xen_version, "xen-3.0") == 0);
    CHECK(strcmp(img.guest_os, "linux") == 0);
    CHECK(strcmp(img.loader, "generic") == 0);
    CHECK(strcmp(img.features, FEATURES) == 0);
    CHECK(img.features_required == 1u << XENFEAT_writable_page_tables);
    CHECK(img.virt_kstart == KSTART);
    CHECK(img.virt_kend == KEND);
}

static void et_dyn_accepted(void)
{
    struct image im;

    build_usual(&im, 0);
    ehdr(&im)->e_type = ET_DYN;
    CHECK_PARSES(&im);
}

static void entry_from_e_entry_without_entry_note(void)
{
    struct image im;

    build_usual(&im, NO_ENTRY);
    ehdr(&im)->e_entry = KSTART + 0x200;
    CHECK_PARSES(&im);
    CHECK(img.entry == KSTART + 0x200);

    /* With the note, the note wins over e_entry. */
    build_usual(&im, 0);
    ehdr(&im)->e_entry = KSTART + 0x200;
    CHECK_PARSES(&im);
    CHECK(img.entry == ENTRY);
}

static void hypercall_page_present(void)
{
    struct image im;

    build_usual(&im, 0);
    CHECK_PARSES(&im);
    CHECK(img.hypercall_page == HYPERCALL_PAGE);
}

static void hypercall_page_absent(void)
{
    struct image im;

    build_usual(&im, NO_HYPERCALL_PAGE);
    CHECK_PARSES(&im);
    CHECK(img.hypercall_page == 0);
}

static void paddr_offset_absent_defaults_to_zero(void)
{
    struct image im;

    build_usual(&im, NO_PADDR_OFFSET);
    CHECK_PARSES(&im);
    CHECK(img.paddr_offset == 0);
    CHECK(img.virt_kstart == KSTART);
}

static void paddr_offset_applied(void)
{
    struct notes n;
    struct image im;

    /* Old kernels: p_paddr held the virtual address and PADDR_OFFSET the
     * virtual base, so va = p_paddr - PADDR_OFFSET + VIRT_BASE. */
    notes_init(&n, 4);
    usual_notes(&n, NO_PADDR_OFFSET | NO_ENTRY | NO_HYPERCALL_PAGE);
    note_u64(&n, XEN_ELFNOTE_PADDR_OFFSET, 0x800000);
    note_u64(&n, XEN_ELFNOTE_ENTRY, ENTRY - 0x800000);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(img.entry == ENTRY - 0x800000);
    CHECK(img.paddr_offset == 0x800000);
    CHECK(img.virt_kstart == KSTART - 0x800000);
    CHECK(img.virt_kend == KEND - 0x800000);
}

static void paddr_offset_above_segments(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_u64(&n, XEN_ELFNOTE_PADDR_OFFSET, LOAD_PADDR + 1);
    build(&im, &n);
    CHECK_FAILS(&im, "PADDR_OFFSET");
}

static void mod_start_pfn_values(void)
{
    struct notes n;
    struct image im;

    build_usual(&im, NO_MOD_START_PFN);
    CHECK_PARSES(&im);
    CHECK(!img.mod_start_pfn);

    notes_init(&n, 4);
    usual_notes(&n, NO_MOD_START_PFN);
    note_u32(&n, XEN_ELFNOTE_MOD_START_PFN, 0);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(!img.mod_start_pfn);

    notes_init(&n, 4);
    usual_notes(&n, NO_MOD_START_PFN);
    note_u64(&n, XEN_ELFNOTE_MOD_START_PFN, 1ull << 40);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(img.mod_start_pfn);
}

static void features_required_bits(void)
{
    static const char list[] =
        "writable_descriptor_tables|!auto_translated_physmap|no_such_feature"
        "||!dom0|!no_such_required|!|!hvm_callback_vector|"
        "!mmu_pt_update_preserve_ad|hvm_pirqs|!hvm_safe_pvclock";
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_FEATURES, list);    /* replaces the first */
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(strcmp(img.features, list) == 0);
    CHECK(img.features_required ==
          ((1u << XENFEAT_auto_translated_physmap) |
           (1u << XENFEAT_dom0) |
           (1u << XENFEAT_hvm_callback_vector) |
           (1u << XENFEAT_mmu_pt_update_preserve_ad) |
           (1u << XENFEAT_hvm_safe_pvclock)));
}

static void features_prefix_is_not_a_match(void)
{
    struct notes n;
    struct image im;

    /* "!dom" and "!dom0x" are not "dom0". */
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_FEATURES, "!dom|!dom0x|!writable_page_table");
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(img.features_required == 0);
}

static void features_too_long(void)
{
    char list[300];
    struct notes n;
    struct image im;

    memset(list, 'a', sizeof(list) - 1);
    list[sizeof(list) - 1] = '\0';
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_FEATURES, list);
    build(&im, &n);
    CHECK_FAILS(&im, "FEATURES");
}

static void numeric_notes_4_and_8_bytes(void)
{
    struct notes n;
    struct image im;

    /* A kernel below 4 GiB can give its addresses as 4-byte notes. */
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_u32(&n, XEN_ELFNOTE_VIRT_BASE, 0x80000000u);
    note_u32(&n, XEN_ELFNOTE_ENTRY, 0x81000100u);
    note_u32(&n, XEN_ELFNOTE_HYPERCALL_PAGE, 0x81001000u);
    note_u32(&n, XEN_ELFNOTE_INIT_P2M, 0x40000000u);
    note_u32(&n, XEN_ELFNOTE_HV_START_LOW, 0xf5800000u);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(img.virt_base == 0x80000000u);
    CHECK(img.entry == 0x81000100u);
    CHECK(img.hypercall_page == 0x81001000u);
    CHECK(img.init_p2m == 0x40000000u);
    CHECK(img.hv_start_low == 0xf5800000u);
    CHECK(img.virt_kstart == 0x81000000u);
    CHECK(img.virt_kend == 0x81003000u);

    /* 8-byte notes keep all 64 bits (the usual notes are 8-byte). */
    build_usual(&im, 0);
    CHECK_PARSES(&im);
    CHECK(img.hv_start_low == HV_START_LOW);
    CHECK(img.entry == ENTRY);
}

static void numeric_note_bad_size(void)
{
    static const uint8_t three[3] = { 1, 2, 3 };
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_add(&n, "Xen", XEN_ELFNOTE_HYPERCALL_PAGE, three, sizeof(three));
    build(&im, &n);
    CHECK_FAILS(&im, "HYPERCALL_PAGE");

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_add(&n, "Xen", XEN_ELFNOTE_ENTRY, "", 0);
    build(&im, &n);
    CHECK_FAILS(&im, "ENTRY");
}

static void string_note_without_nul(void)
{
    struct notes n;
    struct image im;

    /* The string ends with the descriptor when no NUL comes first. */
    notes_init(&n, 4);
    usual_notes(&n, NO_XEN_VERSION);
    note_add(&n, "Xen", XEN_ELFNOTE_XEN_VERSION, "xen-3.0", 7);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(strcmp(img.xen_version, "xen-3.0") == 0);
}

static void string_note_too_long(void)
{
    char s[PV_NOTE_STRING_MAX + 1];
    struct notes n;
    struct image im;

    memset(s, 'x', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_GUEST_OS, s);
    build(&im, &n);
    CHECK_FAILS(&im, "GUEST_OS");

    /* One byte shorter fits exactly. */
    s[sizeof(s) - 2] = '\0';
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_LOADER, s);
    build(&im, &n);
    CHECK_PARSES(&im);    /* GUEST_OS is still "linux" */
    CHECK(strlen(img.loader) == PV_NOTE_STRING_MAX - 1);
}

static void loader_or_guest_os(void)
{
    struct notes n;
    struct image im;

    /* GUEST_OS "linux" alone is enough... */
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_LOADER, "elfloader");
    build(&im, &n);
    CHECK_PARSES(&im);

    /* ...and so is LOADER "generic" alone... */
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_GUEST_OS, "Mini-OS");
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(strcmp(img.guest_os, "Mini-OS") == 0);

    /* ...but one of them is needed. */
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_GUEST_OS, "Mini-OS");
    note_str(&n, XEN_ELFNOTE_LOADER, "elfloader");
    build(&im, &n);
    CHECK_FAILS(&im, "LOADER must be generic");
}

static void notes_from_sections_when_no_note_segment(void)
{
    struct image im;

    build_usual(&im, 0);
    move_notes_to_section(&im);
    CHECK_PARSES(&im);
    CHECK(img.entry == ENTRY);
    CHECK(img.virt_base == VIRT_BASE);
    CHECK(strcmp(img.xen_version, "xen-3.0") == 0);
}

static void note_section_past_eof(void)
{
    struct image im;
    Elf64_Shdr sh;
    uint8_t *at;

    build_usual(&im, 0);
    move_notes_to_section(&im);
    at = im.b + ehdr(&im)->e_shoff + 2 * sizeof(sh);
    memcpy(&sh, at, sizeof(sh));
    sh.sh_offset = UINT64_MAX - 8;        /* offset + size wraps */
    memcpy(at, &sh, sizeof(sh));
    CHECK_FAILS(&im, "note section 2 extends past end of file");

    build_usual(&im, 0);
    move_notes_to_section(&im);
    ehdr(&im)->e_shoff = UINT64_MAX - 100;
    CHECK_FAILS(&im, "section header table");
}

static void notes_padded_to_8(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 8);
    usual_notes(&n, 0);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(img.entry == ENTRY);
    CHECK(img.mod_start_pfn);
    CHECK(strcmp(img.loader, "generic") == 0);
}

/* The note segment of Debian's grub-x86_64-xen.bin (GRUB 2.06), byte for
 * byte: aligned to 8, no ENTRY, VIRT_BASE 0, HYPERCALL_PAGE 0. */
static void grub_pv_image_notes(void)
{
    static const uint8_t grub_notes[] = {
        0x04, 0, 0, 0, 0x05, 0, 0, 0, 0x06, 0, 0, 0, 'X', 'e', 'n', 0,
        'G', 'R', 'U', 'B', 0, 0, 0, 0,
        0x04, 0, 0, 0, 0x08, 0, 0, 0, 0x08, 0, 0, 0, 'X', 'e', 'n', 0,
        'g', 'e', 'n', 'e', 'r', 'i', 'c', 0,
        0x04, 0, 0, 0, 0x08, 0, 0, 0, 0x05, 0, 0, 0, 'X', 'e', 'n', 0,
        'x', 'e', 'n', '-', '3', '.', '0', 0,
        0x04, 0, 0, 0, 0x08, 0, 0, 0, 0x02, 0, 0, 0, 'X', 'e', 'n', 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0x04, 0, 0, 0, 0x08, 0, 0, 0, 0x03, 0, 0, 0, 'X', 'e', 'n', 0,
        0, 0, 0, 0, 0, 0, 0, 0,
    };
    struct notes n;
    struct image im;

    notes_init(&n, 8);
    memcpy(n.b, grub_notes, sizeof(grub_notes));
    n.len = sizeof(grub_notes);
    build(&im, &n);
    CHECK_PARSES(&im);
    CHECK(strcmp(img.guest_os, "GRUB") == 0);
    CHECK(strcmp(img.loader, "generic") == 0);
    CHECK(strcmp(img.xen_version, "xen-3.0") == 0);
    CHECK(img.virt_base == 0);
    CHECK(img.hypercall_page == 0);
    CHECK(img.entry == LOAD_PADDR);     /* e_entry */
    CHECK(img.virt_kstart == LOAD_PADDR);
}

static void zero_size_load_segment_skipped(void)
{
    struct image im;
    struct notes n;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    build_loads(&im, &n, 2);
    phdr(&im, 2)->p_memsz = 0;
    phdr(&im, 2)->p_filesz = 0;
    phdr(&im, 2)->p_paddr = 0;        /* would lower virt_kstart if counted */
    CHECK_PARSES(&im);
    CHECK(img.nr_segments == 1);
    CHECK(img.segments[0].paddr == LOAD_PADDR);
    CHECK(img.virt_kstart == KSTART);
}

static void sixteen_segments_accepted(void)
{
    struct image im;
    struct notes n;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    build_loads(&im, &n, PV_IMAGE_MAX_SEGMENTS);
    CHECK_PARSES(&im);
    CHECK(img.nr_segments == PV_IMAGE_MAX_SEGMENTS);
    CHECK(img.segments[15].paddr == LOAD_PADDR + 15 * LOAD_STRIDE);
    CHECK(img.virt_kend == KSTART + 15 * LOAD_STRIDE + LOAD_MEMSZ);
}

/* ---- Malformed headers ---- */

static void empty_buffer(void)
{
    CHECK(pv_image_parse(NULL, 0, &img, &err) == -1);
    CHECK_CONTAINS(err.msg, "not an ELF file");
    CHECK(parse_bytes("", 0) == -1);
    CHECK_CONTAINS(err.msg, "not an ELF file");
}

static void short_header(void)
{
    struct image im;

    build_usual(&im, 0);
    CHECK(parse_bytes(im.b, 40) == -1);
    CHECK_CONTAINS(err.msg, "truncated ELF header");
    CHECK(parse_bytes(im.b, 10) == -1);
    CHECK_CONTAINS(err.msg, "truncated ELF header");
    CHECK(parse_bytes(im.b, 3) == -1);
    CHECK_CONTAINS(err.msg, "not an ELF file");
}

static void bad_magic(void)
{
    struct image im;

    build_usual(&im, 0);
    im.b[1] = 'F';
    CHECK_FAILS(&im, "not an ELF file");
    CHECK(parse_bytes("#!/bin/sh\necho hi\n", 19) == -1);
    CHECK_CONTAINS(err.msg, "not an ELF file");
}

static void class_32_bit(void)
{
    struct image im;

    build_usual(&im, 0);
    im.b[EI_CLASS] = ELFCLASS32;
    CHECK_FAILS(&im, "not a 64-bit ELF");
}

static void big_endian(void)
{
    struct image im;

    build_usual(&im, 0);
    im.b[EI_DATA] = ELFDATA2MSB;
    CHECK_FAILS(&im, "little-endian");
}

static void wrong_machine(void)
{
    struct image im;

    build_usual(&im, 0);
    ehdr(&im)->e_machine = EM_386;
    CHECK_FAILS(&im, "not an x86-64 ELF");
    ehdr(&im)->e_machine = EM_AARCH64;
    CHECK_FAILS(&im, "not an x86-64 ELF");
}

static void wrong_type(void)
{
    struct image im;

    build_usual(&im, 0);
    ehdr(&im)->e_type = ET_REL;
    CHECK_FAILS(&im, "not an executable");
    ehdr(&im)->e_type = ET_CORE;
    CHECK_FAILS(&im, "not an executable");
}

static void phdr_table_past_eof(void)
{
    struct image im;

    build_usual(&im, 0);
    ehdr(&im)->e_phoff = im.size - sizeof(Elf64_Phdr);   /* 1 of 2 fits */
    CHECK_FAILS(&im, "program header table");

    build_usual(&im, 0);
    ehdr(&im)->e_phnum = 0xffff;
    CHECK_FAILS(&im, "program header table");
}

static void phdr_table_offset_wraps(void)
{
    struct image im;

    /* A naive e_phoff + e_phnum * e_phentsize wraps around to 40. */
    build_usual(&im, 0);
    ehdr(&im)->e_phoff = UINT64_MAX - 2 * sizeof(Elf64_Phdr) + 41;
    CHECK_FAILS(&im, "program header table");
    ehdr(&im)->e_phoff = UINT64_MAX;
    CHECK_FAILS(&im, "program header table");
}

static void phentsize_wrong(void)
{
    struct image im;

    build_usual(&im, 0);
    ehdr(&im)->e_phentsize = sizeof(Elf32_Phdr);
    CHECK_FAILS(&im, "program header size");
    /* A huge count times a huge size must be refused, not multiplied. */
    ehdr(&im)->e_phentsize = 0xffff;
    ehdr(&im)->e_phnum = 0xffff;
    CHECK_FAILS(&im, "program header size");
}

static void no_program_headers(void)
{
    struct image im;

    build_usual(&im, 0);
    ehdr(&im)->e_phnum = 0;
    CHECK_FAILS(&im, "no loadable segments");

    build_usual(&im, 0);
    phdr(&im, 1)->p_type = PT_NULL;
    CHECK_FAILS(&im, "no loadable segments");
}

/* ---- Malformed segments ---- */

static void segment_past_eof(void)
{
    struct image im;

    build_usual(&im, 0);
    phdr(&im, 1)->p_offset = im.size - LOAD_FILESZ + 1;
    CHECK_FAILS(&im, "segment 1 extends past end of file");

    build_usual(&im, 0);
    phdr(&im, 1)->p_offset = im.size + 0x1000;
    CHECK_FAILS(&im, "segment 1 extends past end of file");
}

/* The one rule on where file bytes lie (domain.c trusts it): a segment
 * with none (a bss) needs no valid offset, as in Xen's libelf. */
static void segment_without_file_bytes_needs_no_offset(void)
{
    struct image im;

    build_usual(&im, 0);
    phdr(&im, 1)->p_filesz = 0;
    phdr(&im, 1)->p_offset = im.size + 0x10000;
    CHECK_PARSES(&im);
    CHECK(img.segments[0].filesz == 0 && img.segments[0].memsz == LOAD_MEMSZ);
}

static void segment_offset_wraps(void)
{
    struct image im;

    /* offset + filesz wraps to 0x100, which would look in bounds. */
    build_usual(&im, 0);
    phdr(&im, 1)->p_offset = UINT64_MAX - LOAD_FILESZ + 0x101;
    CHECK_FAILS(&im, "segment 1 extends past end of file");

    build_usual(&im, 0);
    phdr(&im, 1)->p_filesz = UINT64_MAX;
    phdr(&im, 1)->p_memsz = UINT64_MAX;
    CHECK_FAILS(&im, "segment 1 extends past end of file");
}

static void filesz_above_memsz(void)
{
    struct image im;

    build_usual(&im, 0);
    phdr(&im, 1)->p_memsz = LOAD_FILESZ - 1;
    CHECK_FAILS(&im, "exceeds memory size");
}

static void segment_paddr_wraps(void)
{
    struct image im;

    build_usual(&im, 0);
    phdr(&im, 1)->p_paddr = UINT64_MAX - 0x1000;
    CHECK_FAILS(&im, "wraps");
}

static void too_many_segments(void)
{
    struct image im;
    struct notes n;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    build_loads(&im, &n, PV_IMAGE_MAX_SEGMENTS + 1);
    CHECK_FAILS(&im, "more than 16 loadable segments");
}

/* ---- Malformed notes ---- */

static void note_segment_past_eof(void)
{
    struct image im;

    build_usual(&im, 0);
    phdr(&im, 0)->p_filesz = im.size;     /* starts well inside the file */
    CHECK_FAILS(&im, "note segment 0 extends past end of file");

    build_usual(&im, 0);
    phdr(&im, 0)->p_filesz = UINT64_MAX - 0x80;   /* offset + size wraps */
    CHECK_FAILS(&im, "note segment 0 extends past end of file");
}

/* A note whose header claims sizes; what follows it is "Xen\0". */
static void check_bad_note(uint32_t namesz, uint32_t descsz)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_raw(&n, namesz, descsz, XEN_ELFNOTE_ENTRY, "Xen", 4);
    build(&im, &n);
    CHECK_FAILS(&im, "runs past its end");
}

static void note_sizes_past_segment(void)
{
    check_bad_note(5, 0);             /* name padded to 8, only 4 there */
    STOP_IF_FAILED();
    check_bad_note(4, 1);             /* descriptor missing */
    STOP_IF_FAILED();
    check_bad_note(4, 100);
    STOP_IF_FAILED();
    check_bad_note(100, 8);
    STOP_IF_FAILED();
    check_bad_note(0xffffffffu, 0);   /* rounding up must not wrap */
    STOP_IF_FAILED();
    check_bad_note(0xfffffffdu, 8);
    STOP_IF_FAILED();
    check_bad_note(4, 0xffffffffu);
    STOP_IF_FAILED();
    check_bad_note(4, 0xfffffffdu);   /* rounds to 2^32: 0 if in 32 bits */
    STOP_IF_FAILED();
    check_bad_note(0xffffffffu, 0xffffffffu);
    STOP_IF_FAILED();
}

static void note_header_truncated(void)
{
    struct image im;

    /* 8 bytes after the last note: less than a note header. */
    build_usual(&im, 0);
    phdr(&im, 0)->p_filesz += 8;
    CHECK_FAILS(&im, "truncated note header");
}

static void no_xen_notes(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    note_add(&n, "GNU", NT_GNU_BUILD_ID, "0123456789abcdef0123", 20);
    /* Owners that only look like "Xen" do not count. */
    note_add(&n, "XenX", XEN_ELFNOTE_XEN_VERSION, "xen-3.0", 8);
    note_add(&n, "xen", XEN_ELFNOTE_XEN_VERSION, "xen-3.0", 8);
    note_raw(&n, 3, 0, XEN_ELFNOTE_XEN_VERSION, "Xen\0", 4);
    build(&im, &n);
    CHECK_FAILS(&im, "no Xen ELF notes: not a Xen PV kernel");

    notes_init(&n, 4);
    build(&im, &n);
    CHECK_FAILS(&im, "no Xen ELF notes");

    /* No note segment and no sections at all. */
    build_usual(&im, 0);
    phdr(&im, 0)->p_type = PT_NULL;
    CHECK_FAILS(&im, "no Xen ELF notes");
}

static void xen_version_wrong(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_XEN_VERSION, "xen-2.0");
    build(&im, &n);
    CHECK_FAILS(&im, "XEN_VERSION missing or not xen-3.0");
    CHECK_CONTAINS(err.msg, "xen-2.0");

    build_usual(&im, NO_XEN_VERSION);
    CHECK_FAILS(&im, "XEN_VERSION missing or not xen-3.0");

    /* Only the prefix matters, as in libelf. */
    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_str(&n, XEN_ELFNOTE_XEN_VERSION, "xen-3.0-x86_64");
    build(&im, &n);
    CHECK_PARSES(&im);
}

static void missing_virt_base(void)
{
    struct image im;

    build_usual(&im, NO_VIRT_BASE);
    CHECK_FAILS(&im, "no VIRT_BASE note");
}

static void kernel_range_wraps(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_u64(&n, XEN_ELFNOTE_VIRT_BASE, UINT64_MAX - LOAD_PADDR - 0x1000);
    build(&im, &n);
    CHECK_FAILS(&im, "wraps");
}

static void check_entry(uint64_t entry, int expect_rc)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, NO_ENTRY);
    note_u64(&n, XEN_ELFNOTE_ENTRY, entry);
    build(&im, &n);
    CHECK(parse(&im) == expect_rc);
    if (expect_rc)
        CHECK_CONTAINS(err.msg, "entry point");
}

static void entry_outside_kernel(void)
{
    struct image im;

    check_entry(KSTART, 0);
    STOP_IF_FAILED();
    check_entry(KEND - 1, 0);
    STOP_IF_FAILED();
    check_entry(KSTART - 1, -1);
    STOP_IF_FAILED();
    check_entry(KEND, -1);
    STOP_IF_FAILED();
    check_entry(0, -1);
    STOP_IF_FAILED();

    /* e_entry of a vmlinux is physical: not usable without ENTRY. */
    build_usual(&im, NO_ENTRY);
    CHECK_FAILS(&im, "entry point 0x1000000 lies outside the kernel");
}

static void hypercall_page_outside_kernel(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_u64(&n, XEN_ELFNOTE_HYPERCALL_PAGE, KEND);
    build(&im, &n);
    CHECK_FAILS(&im, "HYPERCALL_PAGE");
}

static void init_p2m_inside_kernel(void)
{
    struct notes n;
    struct image im;

    notes_init(&n, 4);
    usual_notes(&n, 0);
    note_u64(&n, XEN_ELFNOTE_INIT_P2M, KSTART);
    build(&im, &n);
    CHECK_FAILS(&im, "INIT_P2M");
}

/* ---- Robustness ---- */

static void check_every_truncation(const struct image *im)
{
    CHECK(parse(im) == 0);
    for (size_t len = 0; len < im->size; len++) {
        CHECK(parse_bytes(im->b, len) == -1);
        CHECK(err.msg[0] != '\0' && !strchr(err.msg, '\n'));
    }
}

static void truncated_at_every_length(void)
{
    struct image im;

    build_usual(&im, 0);
    check_every_truncation(&im);
    STOP_IF_FAILED();
    move_notes_to_section(&im);
    check_every_truncation(&im);
}

/* Overwrite each header, program header and note byte in turn with a few
 * values: the parse may succeed or fail but must stay in bounds. */
static void corrupt_each_header_byte(void)
{
    static const uint8_t values[] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };
    struct image im, bad;
    size_t end;

    build_usual(&im, 0);
    end = im.notes_off + im.notes_len;
    for (size_t at = 0; at < end; at++) {
        for (size_t v = 0; v < sizeof(values); v++) {
            bad = im;
            bad.b[at] = values[v];
            if (parse(&bad) != 0)
                CHECK(err.msg[0] != '\0' && !strchr(err.msg, '\n'));
        }
    }
}

int main(void)
{
    RUN(valid_image_all_fields);
    RUN(et_dyn_accepted);
    RUN(entry_from_e_entry_without_entry_note);
    RUN(hypercall_page_present);
    RUN(hypercall_page_absent);
    RUN(paddr_offset_absent_defaults_to_zero);
    RUN(paddr_offset_applied);
    RUN(paddr_offset_above_segments);
    RUN(mod_start_pfn_values);
    RUN(features_required_bits);
    RUN(features_prefix_is_not_a_match);
    RUN(features_too_long);
    RUN(numeric_notes_4_and_8_bytes);
    RUN(numeric_note_bad_size);
    RUN(string_note_without_nul);
    RUN(string_note_too_long);
    RUN(loader_or_guest_os);
    RUN(notes_from_sections_when_no_note_segment);
    RUN(note_section_past_eof);
    RUN(notes_padded_to_8);
    RUN(grub_pv_image_notes);
    RUN(zero_size_load_segment_skipped);
    RUN(sixteen_segments_accepted);

    RUN(empty_buffer);
    RUN(short_header);
    RUN(bad_magic);
    RUN(class_32_bit);
    RUN(big_endian);
    RUN(wrong_machine);
    RUN(wrong_type);
    RUN(phdr_table_past_eof);
    RUN(phdr_table_offset_wraps);
    RUN(phentsize_wrong);
    RUN(no_program_headers);
    RUN(segment_past_eof);
    RUN(segment_without_file_bytes_needs_no_offset);
    RUN(segment_offset_wraps);
    RUN(filesz_above_memsz);
    RUN(segment_paddr_wraps);
    RUN(too_many_segments);
    RUN(note_segment_past_eof);
    RUN(note_sizes_past_segment);
    RUN(note_header_truncated);
    RUN(no_xen_notes);
    RUN(xen_version_wrong);
    RUN(missing_virt_base);
    RUN(kernel_range_wraps);
    RUN(entry_outside_kernel);
    RUN(hypercall_page_outside_kernel);
    RUN(init_p2m_inside_kernel);

    RUN(truncated_at_every_length);
    RUN(corrupt_each_header_byte);

    free(heap_copy);
    return check_exit_status();
}
