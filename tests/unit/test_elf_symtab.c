/*
 * Unit tests of an ELF's own symbol table as a symbol source
 * (launcher/symbols/elf_symtab.c): functions in an executable section are
 * text, objects are data, the text spans the executable sections; a
 * stripped file, and tables, names or sections
 * that run outside the file, are refused with one line.
 */
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../launcher/symbols/elf_symtab.h"

#define TEXT_VA 0xffffffff81000000ull

/* ELF header, then sections: null, .text (exec), .data, .symtab, .strtab. */
struct image {
    Elf64_Ehdr eh;
    Elf64_Shdr sh[5];
    Elf64_Sym sym[5];
    char str[64];
};

static const char names[] = "\0xen_hypercall_pv\0xen_iret\0some_data\0local_fn";

static void build(struct image *im)
{
    memset(im, 0, sizeof(*im));
    memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
    im->eh.e_ident[EI_CLASS] = ELFCLASS64;
    im->eh.e_shoff = offsetof(struct image, sh);
    im->eh.e_shentsize = sizeof(Elf64_Shdr);
    im->eh.e_shnum = 5;
    im->sh[1] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
                              .sh_addr = TEXT_VA, .sh_size = 0x1000 };
    im->sh[2] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_WRITE };
    im->sh[3] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_link = 4,
                              .sh_offset = offsetof(struct image, sym),
                              .sh_size = sizeof(im->sym), .sh_entsize = sizeof(Elf64_Sym) };
    im->sh[4] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = offsetof(struct image, str),
                              .sh_size = sizeof(names) };
    memcpy(im->str, names, sizeof(names));
    im->sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                              .st_shndx = 1, .st_value = TEXT_VA + 0x100 };
    im->sym[2] = (Elf64_Sym){ .st_name = 18, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
                              .st_shndx = 1, .st_value = TEXT_VA + 0x200 };
    im->sym[3] = (Elf64_Sym){ .st_name = 27, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
                              .st_shndx = 2, .st_value = TEXT_VA + 0x180 };
    im->sym[4] = (Elf64_Sym){ .st_name = 37, .st_info = ELF64_ST_INFO(STB_LOCAL, STT_NOTYPE),
                              .st_shndx = 1, .st_value = TEXT_VA + 0x300 };
}

static int load(const struct image *im, size_t size, struct kernel_symbols *s, struct error *e)
{
    int rc;

    kernel_symbols_init(s);
    rc = elf_symtab_load((const uint8_t *)im, size, s, e);
    kernel_symbols_sort(s);
    return rc;
}

static void functions_are_found_and_named(void)
{
    struct image im;
    struct kernel_symbols s;
    struct error e;
    uint64_t addr;
    const char *name;
    uint64_t off;

    build(&im);
    CHECK(load(&im, sizeof(im), &s, &e) == 0);
    CHECK(kernel_symbols_find(&s, "xen_hypercall_pv", &addr) && addr == TEXT_VA + 0x100);
    CHECK(kernel_symbols_find(&s, "xen_iret", &addr) && addr == TEXT_VA + 0x200);
    CHECK(kernel_symbols_find(&s, "local_fn", &addr) && addr == TEXT_VA + 0x300);
    /* data is no function: 0x1a0 is still xen_hypercall_pv's */
    CHECK(!kernel_symbols_find(&s, "some_data", &addr));
    CHECK(kernel_symbols_lookup(&s, TEXT_VA + 0x1a0, &name, &off) &&
          !strcmp(name, "xen_hypercall_pv") && off == 0xa0);
    /* the text is .text's span: past the last function but inside it is
     * still named, past .text is not */
    CHECK(kernel_symbols_lookup(&s, TEXT_VA + 0x400, &name, &off) &&
          !strcmp(name, "local_fn") && off == 0x100);
    CHECK(!kernel_symbols_lookup(&s, TEXT_VA + 0x1000, &name, &off));
    kernel_symbols_release(&s);
}

static void refused(struct image *im, size_t size, const char *why)
{
    struct kernel_symbols s;
    struct error e = { "" };

    CHECK(load(im, size, &s, &e) == -1);
    CHECK_CONTAINS(e.msg, why);
    CHECK(!strchr(e.msg, '\n'));
    kernel_symbols_release(&s);
}

static void hostile_files_are_refused(void)
{
    struct image im;

    build(&im);
    im.sh[3].sh_type = SHT_PROGBITS;
    refused(&im, sizeof(im), "stripped");
    build(&im);
    refused(&im, offsetof(struct image, sym) + 8, "outside the file");
    build(&im);
    im.sh[4].sh_size = 1ull << 40;
    refused(&im, sizeof(im), "outside the file");
    build(&im);
    im.sh[3].sh_link = 9;
    refused(&im, sizeof(im), "outside the file");
    build(&im);
    im.eh.e_shoff = sizeof(im) - 8;
    refused(&im, sizeof(im), "no section headers");
    build(&im);
    im.str[sizeof(names) - 1] = 'x';   /* the last name runs off the table */
    refused(&im, sizeof(im), "runs past its string table");
    build(&im);
    refused(&im, 10, "too short");
}

static void bad_names_and_sections_are_skipped(void)
{
    struct image im;
    struct kernel_symbols s;
    struct error e;
    uint64_t addr;

    build(&im);
    im.sym[1].st_name = 4000;            /* past the string table: skipped */
    im.sym[2].st_shndx = 77;             /* no such section: data, not text */
    CHECK(load(&im, sizeof(im), &s, &e) == 0);
    CHECK(!kernel_symbols_find(&s, "xen_hypercall_pv", &addr));
    CHECK(!kernel_symbols_find(&s, "xen_iret", &addr));
    CHECK(kernel_symbols_find(&s, "local_fn", &addr));
    kernel_symbols_release(&s);
}

int main(void)
{
    RUN(functions_are_found_and_named);
    RUN(hostile_files_are_refused);
    RUN(bad_names_and_sections_are_skipped);
    return check_exit_status();
}
