/*
 * Parse an ELF64 x86-64 Xen PV kernel: its loadable segments and its Xen ELF
 * notes, following the rules of Xen's libelf (xen/common/libelf/) and the
 * note numbers of xen/include/public/elfnote.h.
 *
 * The file is untrusted. Every range is checked with in_bounds() before it
 * is read, and every header is copied out with memcpy so that a misaligned
 * buffer is never dereferenced through a struct pointer.
 */
#include "pv_image.h"

#include <elf.h>
#include <inttypes.h>
#include <string.h>

#include "../../abi/xen/elfnote.h"
#include "../../abi/xen/features.h"
#include "../../abi/xen/xen.h"

/* Fields are read in host order; ELFDATA2LSB is required below, so the host
 * must be little-endian too (the Launcher only runs on x86-64). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "pv_image reads little-endian ELF fields in host order");

/* What the parse has seen so far, beyond what struct pv_image records. */
struct parse {
    struct pv_image *img;
    Elf64_Ehdr eh;
    unsigned xen_notes;        /* notes owned by "Xen" */
    bool have_entry;
    bool have_virt_base;
};

/* True when [off, off + len) lies inside a buffer of `size` bytes. Written
 * as two comparisons so that no sum can wrap around. */
static bool in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

/* Round a note length up to the note alignment (4 or 8). Lengths come from
 * 32-bit fields plus at most a header, so this cannot overflow. */
static uint64_t note_round_up(uint64_t len, uint64_t align)
{
    return (len + align - 1) & ~(align - 1);
}

/* ---- ELF header and program headers ---- */

static int check_ident(const uint8_t *f, size_t size, struct error *e)
{
    if (size < SELFMAG || memcmp(f, ELFMAG, SELFMAG) != 0)
        return fail(e, "not an ELF file");
    if (size < EI_NIDENT)
        return fail(e, "truncated ELF header (%zu bytes)", size);
    if (f[EI_CLASS] != ELFCLASS64)
        return fail(e, "not a 64-bit ELF (class %u)", f[EI_CLASS]);
    if (f[EI_DATA] != ELFDATA2LSB)
        return fail(e, "not a little-endian ELF");
    return 0;
}

static int read_ehdr(struct parse *p, struct error *e)
{
    const struct pv_image *img = p->img;
    Elf64_Ehdr *eh = &p->eh;

    if (check_ident(img->file, img->file_size, e))
        return -1;
    if (img->file_size < sizeof(*eh))
        return fail(e, "truncated ELF header (%zu bytes)", img->file_size);
    memcpy(eh, img->file, sizeof(*eh));
    if (eh->e_machine != EM_X86_64)
        return fail(e, "not an x86-64 ELF (e_machine %u)", eh->e_machine);
    if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
        return fail(e, "not an executable ELF (e_type %u)", eh->e_type);
    return 0;
}

static int check_phdr_table(const struct parse *p, struct error *e)
{
    const Elf64_Ehdr *eh = &p->eh;

    if (eh->e_phnum == 0)
        return 0;
    if (eh->e_phentsize != sizeof(Elf64_Phdr))
        return fail(e, "bad program header size %u (expected %zu)",
                    eh->e_phentsize, sizeof(Elf64_Phdr));
    /* phnum and phentsize are 16-bit, so their product cannot overflow. */
    if (!in_bounds(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr),
                   p->img->file_size))
        return fail(e, "truncated: program header table extends past end "
                       "of file");
    return 0;
}

static Elf64_Phdr get_phdr(const struct parse *p, unsigned i)
{
    Elf64_Phdr ph;

    memcpy(&ph, p->img->file + p->eh.e_phoff + (uint64_t)i * sizeof(ph),
           sizeof(ph));
    return ph;
}

static int add_segment(struct pv_image *img, unsigned i, const Elf64_Phdr *ph,
                       struct error *e)
{
    struct pv_segment *s;

    if (ph->p_filesz > ph->p_memsz)
        return fail(e, "segment %u: file size %#" PRIx64
                       " exceeds memory size %#" PRIx64,
                    i, ph->p_filesz, ph->p_memsz);
    /* A segment with nothing in the file needs no valid file offset. */
    if (ph->p_filesz > 0 &&
        !in_bounds(ph->p_offset, ph->p_filesz, img->file_size))
        return fail(e, "segment %u extends past end of file", i);
    if (ph->p_memsz > UINT64_MAX - ph->p_paddr)
        return fail(e, "segment %u wraps around the address space", i);
    if (img->nr_segments == PV_IMAGE_MAX_SEGMENTS)
        return fail(e, "more than %d loadable segments",
                    PV_IMAGE_MAX_SEGMENTS);

    s = &img->segments[img->nr_segments++];
    s->paddr = ph->p_paddr;
    s->file_offset = ph->p_offset;
    s->filesz = ph->p_filesz;
    s->memsz = ph->p_memsz;
    s->text = (ph->p_flags & (PF_X | PF_W)) == PF_X;
    return 0;
}

static int collect_segments(struct parse *p, struct error *e)
{
    for (unsigned i = 0; i < p->eh.e_phnum; i++) {
        Elf64_Phdr ph = get_phdr(p, i);

        if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
            continue;
        if (add_segment(p->img, i, &ph, e))
            return -1;
    }
    if (p->img->nr_segments == 0)
        return fail(e, "no loadable segments");
    return 0;
}

/* ---- Xen notes ---- */

enum note_kind { NOTE_UNKNOWN, NOTE_NUMBER, NOTE_STRING };

static const struct {
    const char *name;
    enum note_kind kind;
} xen_note_info[XEN_ELFNOTE_MAX + 1] = {
    [XEN_ELFNOTE_ENTRY]              = { "ENTRY", NOTE_NUMBER },
    [XEN_ELFNOTE_HYPERCALL_PAGE]     = { "HYPERCALL_PAGE", NOTE_NUMBER },
    [XEN_ELFNOTE_VIRT_BASE]          = { "VIRT_BASE", NOTE_NUMBER },
    [XEN_ELFNOTE_PADDR_OFFSET]       = { "PADDR_OFFSET", NOTE_NUMBER },
    [XEN_ELFNOTE_XEN_VERSION]        = { "XEN_VERSION", NOTE_STRING },
    [XEN_ELFNOTE_GUEST_OS]           = { "GUEST_OS", NOTE_STRING },
    [XEN_ELFNOTE_GUEST_VERSION]      = { "GUEST_VERSION", NOTE_STRING },
    [XEN_ELFNOTE_LOADER]             = { "LOADER", NOTE_STRING },
    [XEN_ELFNOTE_PAE_MODE]           = { "PAE_MODE", NOTE_STRING },
    [XEN_ELFNOTE_FEATURES]           = { "FEATURES", NOTE_STRING },
    [XEN_ELFNOTE_BSD_SYMTAB]         = { "BSD_SYMTAB", NOTE_STRING },
    [XEN_ELFNOTE_HV_START_LOW]       = { "HV_START_LOW", NOTE_NUMBER },
    [XEN_ELFNOTE_SUSPEND_CANCEL]     = { "SUSPEND_CANCEL", NOTE_NUMBER },
    [XEN_ELFNOTE_INIT_P2M]           = { "INIT_P2M", NOTE_NUMBER },
    [XEN_ELFNOTE_MOD_START_PFN]      = { "MOD_START_PFN", NOTE_NUMBER },
    [XEN_ELFNOTE_SUPPORTED_FEATURES] = { "SUPPORTED_FEATURES", NOTE_NUMBER },
    [XEN_ELFNOTE_PHYS32_ENTRY]       = { "PHYS32_ENTRY", NOTE_NUMBER },
    /* INFO (legacy __xen_guest text) and L1_MFN_VALID (an array of
     * numbers) mean nothing to perch and are skipped. */
};

/* XENFEAT names as they appear in the FEATURES note, by bit number. */
static const char *const xen_feature_names[] = {
    [XENFEAT_writable_page_tables]       = "writable_page_tables",
    [XENFEAT_writable_descriptor_tables] = "writable_descriptor_tables",
    [XENFEAT_auto_translated_physmap]    = "auto_translated_physmap",
    [XENFEAT_supervisor_mode_kernel]     = "supervisor_mode_kernel",
    [XENFEAT_pae_pgdir_above_4gb]        = "pae_pgdir_above_4gb",
    [XENFEAT_mmu_pt_update_preserve_ad]  = "mmu_pt_update_preserve_ad",
    [XENFEAT_highmem_assist]             = "highmem_assist",
    [XENFEAT_gnttab_map_avail_bits]      = "gnttab_map_avail_bits",
    [XENFEAT_hvm_callback_vector]        = "hvm_callback_vector",
    [XENFEAT_hvm_safe_pvclock]           = "hvm_safe_pvclock",
    [XENFEAT_hvm_pirqs]                  = "hvm_pirqs",
    [XENFEAT_dom0]                       = "dom0",
    [XENFEAT_grant_map_identity]         = "grant_map_identity",
    [XENFEAT_memory_op_vnode_supported]  = "memory_op_vnode_supported",
    [XENFEAT_ARM_SMCCC_supported]        = "ARM_SMCCC_supported",
    [XENFEAT_linux_rsdp_unrestricted]    = "linux_rsdp_unrestricted",
};

static int feature_bit(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(xen_feature_names) / sizeof(char *); i++) {
        const char *known = xen_feature_names[i];

        if (known && strlen(known) == len && memcmp(known, name, len) == 0)
            return (int)i;
    }
    return -1;
}

/* Record the features marked required ('!name') in a '|'-separated list.
 * Names perch does not know are skipped, as are empty entries. */
static void parse_features(struct pv_image *img)
{
    const char *s = img->features;

    while (*s) {
        size_t len = strcspn(s, "|");
        bool required = s[0] == '!';
        int bit = required ? feature_bit(s + 1, len - 1) : -1;

        if (bit >= 0)
            img->features_required |= 1u << bit;
        s += len;
        if (*s == '|')
            s++;
    }
}

static int note_number(const char *name, const uint8_t *desc, uint32_t descsz,
                       uint64_t *out, struct error *e)
{
    uint32_t v32;

    if (descsz == 8) {
        memcpy(out, desc, 8);
    } else if (descsz == 4) {
        memcpy(&v32, desc, 4);
        *out = v32;
    } else {
        return fail(e, "Xen note %s has size %u (expected 4 or 8)", name,
                    descsz);
    }
    return 0;
}

/* Copy a string note into a fixed buffer. The string ends at its NUL or at
 * the end of the descriptor, whichever comes first; one that does not fit
 * is refused rather than cut, since a cut value could pass a prefix check
 * or lose a required feature. */
static int note_string(const char *name, const uint8_t *desc, uint32_t descsz,
                       char *out, size_t out_size, struct error *e)
{
    size_t len = strnlen((const char *)desc, descsz);

    if (len >= out_size)
        return fail(e, "Xen note %s is too long (%zu bytes, at most %zu)",
                    name, len, out_size - 1);
    memcpy(out, desc, len);
    out[len] = '\0';
    return 0;
}

static void store_number(struct parse *p, uint32_t type, uint64_t v)
{
    struct pv_image *img = p->img;

    switch (type) {
    case XEN_ELFNOTE_ENTRY:
        img->entry = v;
        p->have_entry = true;
        break;
    case XEN_ELFNOTE_VIRT_BASE:
        img->virt_base = v;
        p->have_virt_base = true;
        break;
    case XEN_ELFNOTE_HYPERCALL_PAGE:
        img->hypercall_page = v;
        break;
    case XEN_ELFNOTE_PADDR_OFFSET:
        img->paddr_offset = v;
        break;
    case XEN_ELFNOTE_HV_START_LOW:
        img->hv_start_low = v;
        break;
    case XEN_ELFNOTE_INIT_P2M:
        img->init_p2m = v;
        break;
    case XEN_ELFNOTE_MOD_START_PFN:
        img->mod_start_pfn = v != 0;
        break;
    default:
        break;   /* size checked; perch has no use for the value */
    }
}

static int store_string(struct parse *p, uint32_t type, const uint8_t *desc,
                        uint32_t descsz, struct error *e)
{
    struct pv_image *img = p->img;
    const char *name = xen_note_info[type].name;

    switch (type) {
    case XEN_ELFNOTE_XEN_VERSION:
        return note_string(name, desc, descsz, img->xen_version,
                           sizeof(img->xen_version), e);
    case XEN_ELFNOTE_GUEST_OS:
        return note_string(name, desc, descsz, img->guest_os,
                           sizeof(img->guest_os), e);
    case XEN_ELFNOTE_LOADER:
        return note_string(name, desc, descsz, img->loader,
                           sizeof(img->loader), e);
    case XEN_ELFNOTE_FEATURES:
        if (note_string(name, desc, descsz, img->features,
                        sizeof(img->features), e))
            return -1;
        /* A later FEATURES note replaces an earlier one entirely. */
        img->features_required = 0;
        parse_features(img);
        return 0;
    default:
        return 0;   /* GUEST_VERSION, PAE_MODE, BSD_SYMTAB: not needed */
    }
}

static int parse_xen_note(struct parse *p, uint32_t type, const uint8_t *desc,
                          uint32_t descsz, struct error *e)
{
    uint64_t v = 0;

    p->xen_notes++;
    if (type > XEN_ELFNOTE_MAX)
        return 0;   /* newer than perch: ignore, as libelf does */
    switch (xen_note_info[type].kind) {
    case NOTE_NUMBER:
        if (note_number(xen_note_info[type].name, desc, descsz, &v, e))
            return -1;
        store_number(p, type, v);
        return 0;
    case NOTE_STRING:
        return store_string(p, type, desc, descsz, e);
    default:
        return 0;
    }
}

static bool is_xen_owner(const uint8_t *name, uint32_t namesz)
{
    return namesz == 4 && memcmp(name, "Xen", 4) == 0;
}

/* Walk the notes in [off, off + len) of the file. Each note is a header,
 * its name and its descriptor; the descriptor starts, and the next note
 * begins, at a multiple of 4 from the note's start, or of 8 in an area
 * aligned to 8 (as GRUB's PV image has; libelf does the same). */
static int walk_notes(struct parse *p, const char *what, unsigned idx,
                      uint64_t off, uint64_t len, uint64_t align,
                      struct error *e)
{
    const uint8_t *at;
    uint64_t left = len;

    if (!in_bounds(off, len, p->img->file_size))
        return fail(e, "truncated: %s %u extends past end of file", what, idx);
    align = align == 8 ? 8 : 4;
    at = p->img->file + off;
    while (left > 0) {
        Elf64_Nhdr nh;
        uint64_t name_room, desc_room;

        if (left < sizeof(nh))
            return fail(e, "truncated note header in %s %u", what, idx);
        memcpy(&nh, at, sizeof(nh));
        at += sizeof(nh);
        left -= sizeof(nh);

        /* The header is 12 bytes: the name's padding depends on it. */
        name_room = note_round_up(sizeof(nh) + (uint64_t)nh.n_namesz, align)
                    - sizeof(nh);
        desc_room = note_round_up(nh.n_descsz, align);
        if (name_room > left || nh.n_descsz > left - name_room)
            return fail(e, "note in %s %u runs past its end (namesz %u, "
                           "descsz %u)", what, idx, nh.n_namesz, nh.n_descsz);
        if (is_xen_owner(at, nh.n_namesz) &&
            parse_xen_note(p, nh.n_type, at + name_room, nh.n_descsz, e))
            return -1;
        /* The padding after the last descriptor may be cut off by the end. */
        if (desc_room > left - name_room)
            desc_room = left - name_room;
        at += name_room + desc_room;
        left -= name_room + desc_room;
    }
    return 0;
}

static int notes_from_segments(struct parse *p, struct error *e)
{
    for (unsigned i = 0; i < p->eh.e_phnum; i++) {
        Elf64_Phdr ph = get_phdr(p, i);

        /* Old binutils left p_offset 0 in note segments; libelf skips them. */
        if (ph.p_type != PT_NOTE || ph.p_offset == 0)
            continue;
        if (walk_notes(p, "note segment", i, ph.p_offset, ph.p_filesz,
                       ph.p_align, e))
            return -1;
    }
    return 0;
}

/* Used only when the segments hold no Xen note, as libelf does. */
static int notes_from_sections(struct parse *p, struct error *e)
{
    const Elf64_Ehdr *eh = &p->eh;

    if (eh->e_shnum == 0)
        return 0;
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
        return fail(e, "bad section header size %u (expected %zu)",
                    eh->e_shentsize, sizeof(Elf64_Shdr));
    if (!in_bounds(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr),
                   p->img->file_size))
        return fail(e, "truncated: section header table extends past end "
                       "of file");
    /* Section 0 is the reserved null section. */
    for (unsigned i = 1; i < eh->e_shnum; i++) {
        Elf64_Shdr sh;

        memcpy(&sh, p->img->file + eh->e_shoff + (uint64_t)i * sizeof(sh),
               sizeof(sh));
        if (sh.sh_type != SHT_NOTE)
            continue;
        if (walk_notes(p, "note section", i, sh.sh_offset, sh.sh_size,
                       sh.sh_addralign, e))
            return -1;
    }
    return 0;
}

/* ---- What libelf insists on before it builds a PV domain ---- */

static int check_notes(const struct parse *p, struct error *e)
{
    const struct pv_image *img = p->img;

    if (p->xen_notes == 0)
        return fail(e, "no Xen ELF notes: not a Xen PV kernel");
    if (strncmp(img->xen_version, "xen-3.0", 7) != 0)
        return fail(e, "Xen note XEN_VERSION missing or not xen-3.0 "
                       "(got '%s')", img->xen_version);
    if (strncmp(img->loader, "generic", 7) != 0 &&
        strncmp(img->guest_os, "linux", 5) != 0)
        return fail(e, "Xen note LOADER must be generic or GUEST_OS linux "
                       "(got LOADER '%s', GUEST_OS '%s')",
                    img->loader, img->guest_os);
    if (!p->have_virt_base)
        return fail(e, "no VIRT_BASE note");
    return 0;
}

/* Translate the segments' physical span into the kernel's virtual span:
 * va = paddr - PADDR_OFFSET + VIRT_BASE, refusing any wraparound. */
static int compute_kernel_range(struct pv_image *img, struct error *e)
{
    uint64_t pstart = UINT64_MAX, pend = 0;

    for (unsigned i = 0; i < img->nr_segments; i++) {
        const struct pv_segment *s = &img->segments[i];

        if (s->paddr < pstart)
            pstart = s->paddr;
        if (s->paddr + s->memsz > pend)
            pend = s->paddr + s->memsz;
    }
    if (pstart < img->paddr_offset)
        return fail(e, "kernel segments start at %#" PRIx64
                       ", below PADDR_OFFSET %#" PRIx64,
                    pstart, img->paddr_offset);
    if (pend - img->paddr_offset > UINT64_MAX - img->virt_base)
        return fail(e, "kernel virtual range wraps around (VIRT_BASE %#"
                       PRIx64 ", PADDR_OFFSET %#" PRIx64 ")",
                    img->virt_base, img->paddr_offset);
    img->virt_kstart = pstart - img->paddr_offset + img->virt_base;
    img->virt_kend = pend - img->paddr_offset + img->virt_base;
    for (unsigned i = 0; i < img->nr_segments; i++) {
        const struct pv_segment *s = &img->segments[i];

        if (s->text) {
            img->virt_text_start = s->paddr - img->paddr_offset + img->virt_base;
            img->virt_text_end = img->virt_text_start + s->memsz;
            break;
        }
    }
    return 0;
}

static bool in_kernel(const struct pv_image *img, uint64_t va)
{
    return va >= img->virt_kstart && va < img->virt_kend;
}

static int check_addresses(const struct pv_image *img, struct error *e)
{
    if (!in_kernel(img, img->entry))
        return fail(e, "entry point %#" PRIx64 " lies outside the kernel "
                       "[%#" PRIx64 ", %#" PRIx64 ")",
                    img->entry, img->virt_kstart, img->virt_kend);
    /* The builder writes the hypercall page into the loaded kernel. */
    if (img->hypercall_page && !in_kernel(img, img->hypercall_page))
        return fail(e, "HYPERCALL_PAGE %#" PRIx64 " lies outside the kernel "
                       "[%#" PRIx64 ", %#" PRIx64 ")",
                    img->hypercall_page, img->virt_kstart, img->virt_kend);
    /* The p2m list placed at INIT_P2M must not overlap the kernel. */
    if (img->init_p2m && in_kernel(img, img->init_p2m))
        return fail(e, "INIT_P2M %#" PRIx64 " lies inside the kernel "
                       "[%#" PRIx64 ", %#" PRIx64 ")",
                    img->init_p2m, img->virt_kstart, img->virt_kend);
    return 0;
}

int pv_image_parse(const void *file, size_t size, struct pv_image *img,
                   struct error *e)
{
    struct parse p = { .img = img };

    memset(img, 0, sizeof(*img));
    img->file = file;
    img->file_size = size;

    if (read_ehdr(&p, e) || check_phdr_table(&p, e) ||
        collect_segments(&p, e) || notes_from_segments(&p, e))
        return -1;
    if (p.xen_notes == 0 && notes_from_sections(&p, e))
        return -1;
    if (check_notes(&p, e))
        return -1;
    if (!p.have_entry)
        img->entry = p.eh.e_entry;
    if (compute_kernel_range(img, e) || check_addresses(img, e))
        return -1;
    return 0;
}
