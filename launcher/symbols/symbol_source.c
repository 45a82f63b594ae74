/* The kernel image's kallsyms, else its ELF symbol table, else a System.map
 * beside the kernel file (symbol_source.h). */
#include "symbol_source.h"

#include <stdio.h>
#include <string.h>

#include "../base/file.h"
#include "elf_symtab.h"
#include "kallsyms.h"

unsigned symbol_source_map_paths(const char *kernel_path,
                                 char paths[SYMBOL_SOURCE_MAPS][PATH_MAX])
{
    const char *slash = strrchr(kernel_path, '/');
    const char *base = slash ? slash + 1 : kernel_path;
    int dir = slash ? (int)(slash - kernel_path + 1) : 0;   /* with the '/' */
    unsigned n = 0;

    if ((!strncmp(base, "vmlinuz-", 8) || !strncmp(base, "vmlinux-", 8)) &&
        base[8] &&
        snprintf(paths[n], PATH_MAX, "%.*sSystem.map-%s", dir, kernel_path,
                 base + 8) < PATH_MAX)
        n++;
    if (snprintf(paths[n], PATH_MAX, "%.*sSystem.map", dir, kernel_path) < PATH_MAX)
        n++;
    return n;
}

/* A readable map of this very build: its startup_xen is the entry. */
static bool load_map(struct kernel_symbols *s, const char *path, uint64_t entry)
{
    struct file_data f;
    struct error e;
    uint64_t startup;
    bool ok;

    if (file_read_all(path, &f, &e))
        return false;
    ok = !kernel_symbols_parse_map(s, (const char *)f.bytes, f.size, NULL);
    file_release(&f);
    kernel_symbols_sort(s);
    if (ok && s->n && kernel_symbols_find(s, "startup_xen", &startup) &&
        startup == entry)
        return true;
    kernel_symbols_release(s);
    return false;
}

bool symbol_source_load(struct kernel_symbols *s, const uint8_t *elf,
                        size_t size, const char *kernel_path, uint64_t entry)
{
    char paths[SYMBOL_SOURCE_MAPS][PATH_MAX];
    unsigned n;
    struct error e;

    kernel_symbols_init(s);
    if (!kallsyms_load(elf, size, s, &e) && s->n) {
        kernel_symbols_sort(s);
        return true;
    }
    kernel_symbols_release(s);
    if (!elf_symtab_load(elf, size, s, &e) && s->n) {
        kernel_symbols_sort(s);
        return true;
    }
    kernel_symbols_release(s);
    n = kernel_path ? symbol_source_map_paths(kernel_path, paths) : 0;
    for (unsigned i = 0; i < n; i++)
        if (load_map(s, paths[i], entry))
            return true;
    return false;
}
