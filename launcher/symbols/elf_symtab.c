/* An ELF's own symbol table into kernel_symbols (elf_symtab.h). */
#include "elf_symtab.h"

#include <elf.h>
#include <string.h>

static bool in_file(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* Section i's header, if the table holds it. */
/* The header table lies within the file (checked once, before any call). */
static bool section(const uint8_t *elf, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *out)
{
    if (i >= eh->e_shnum)
        return false;
    memcpy(out, elf + eh->e_shoff + (uint64_t)i * sizeof(*out), sizeof(*out));
    return true;
}

/* System.map's letter for a symbol: text if its section executes. */
static char type_of(const uint8_t *elf, const Elf64_Ehdr *eh, const Elf64_Sym *sym)
{
    Elf64_Shdr sh;
    bool global = ELF64_ST_BIND(sym->st_info) != STB_LOCAL;

    if (sym->st_shndx != SHN_ABS && section(elf, eh, sym->st_shndx, &sh) &&
        (sh.sh_flags & SHF_EXECINSTR) && ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
        return global ? 'T' : 't';
    return global ? 'D' : 'd';
}

/* Each named symbol of the table at symtab, its names in strtab. */
static int add_all(const uint8_t *elf, const Elf64_Ehdr *eh,
                   const Elf64_Shdr *symtab, const Elf64_Shdr *strtab,
                   struct kernel_symbols *s, struct error *e)
{
    const char *names = (const char *)elf + strtab->sh_offset;

    for (uint64_t i = 1; i < symtab->sh_size / sizeof(Elf64_Sym); i++) {
        Elf64_Sym sym;
        size_t len;

        memcpy(&sym, elf + symtab->sh_offset + i * sizeof(sym), sizeof(sym));
        if (sym.st_name == 0 || sym.st_name >= strtab->sh_size ||
            sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) == STT_SECTION ||
            ELF64_ST_TYPE(sym.st_info) == STT_FILE)
            continue;
        len = strnlen(names + sym.st_name, strtab->sh_size - sym.st_name);
        if (len == strtab->sh_size - sym.st_name)
            return fail(e, "symbol %lu's name runs past its string table", (unsigned long)i);
        if (kernel_symbols_add(s, sym.st_value, type_of(elf, eh, &sym),
                               names + sym.st_name, len))
            return fail(e, "out of memory for the symbols");
    }
    return 0;
}

/* Where the text lies when the table does not say (_stext and _etext,
 * which Linux's has and a test guest's lacks): its executable sections'
 * span. Added after the table's own, so those win. */
static int add_text_bounds(const uint8_t *elf, const Elf64_Ehdr *eh, struct kernel_symbols *s)
{
    uint64_t start = UINT64_MAX, end = 0;
    Elf64_Shdr sh;

    for (unsigned i = 1; section(elf, eh, i, &sh); i++)
        if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR) &&
            sh.sh_addr + sh.sh_size >= sh.sh_addr) {
            start = sh.sh_addr < start ? sh.sh_addr : start;
            end = sh.sh_addr + sh.sh_size > end ? sh.sh_addr + sh.sh_size : end;
        }
    if (start >= end)
        return 0;
    return kernel_symbols_add(s, start, 'T', "_stext", 6) ||
           kernel_symbols_add(s, end, 'T', "_etext", 6);
}

int elf_symtab_load(const uint8_t *elf, size_t size, struct kernel_symbols *s,
                    struct error *e)
{
    Elf64_Ehdr eh;
    Elf64_Shdr symtab, strtab;

    if (size < sizeof(eh))
        return fail(e, "too short for an ELF header");
    memcpy(&eh, elf, sizeof(eh));
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
        return fail(e, "not an ELF64 file");
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
        return fail(e, "no section headers within the file");
    for (unsigned i = 1; i < eh.e_shnum; i++) {
        if (!section(elf, &eh, i, &symtab) || symtab.sh_type != SHT_SYMTAB)
            continue;
        if (!section(elf, &eh, symtab.sh_link, &strtab) || strtab.sh_type != SHT_STRTAB ||
            !in_file(symtab.sh_offset, symtab.sh_size, size) ||
            !in_file(strtab.sh_offset, strtab.sh_size, size) || strtab.sh_size == 0)
            return fail(e, "the symbol table (section %u) or its names lie outside the file", i);
        if (add_all(elf, &eh, &symtab, &strtab, s, e))
            return -1;
        if (add_text_bounds(elf, &eh, s))
            return fail(e, "out of memory for the symbols");
        return 0;
    }
    return fail(e, "no symbol table (a stripped image)");
}
