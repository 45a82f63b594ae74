/*
 * The symbols of an unstripped kernel ELF (a vmlinux built with them, a
 * test guest): its SHT_SYMTAB section and the string table it links.
 * Functions (in an executable section) are kept as text symbols, the rest
 * as data, so the jump-label bounds are found too. The file is untrusted:
 * every section, symbol and name is checked against its size.
 */
#ifndef PERCH_ELF_SYMTAB_H
#define PERCH_ELF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "kernel_symbols.h"

/* Add elf[size]'s symbols to s (kernel_symbols_sort() after). Returns 0,
 * or -1 with e set when there is no symbol table or it is malformed. */
int elf_symtab_load(const uint8_t *elf, size_t size, struct kernel_symbols *s,
                    struct error *e);

#endif
