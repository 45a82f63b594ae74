/*
 * Which symbols name a crash's addresses. First the kernel image's own
 * kallsyms tables (kallsyms.h): they are the booted kernel's by
 * construction, and Debian's kernel has them. Else the ELF's own symbol
 * table, which an unstripped vmlinux or a test guest carries (the same
 * build by construction too). Else a System.map beside the KERNEL file: DIR/System.map-VERSION when
 * the file is DIR/vmlinuz-VERSION or DIR/vmlinux-VERSION (as /boot names
 * them), then DIR/System.map (as a kernel build tree has it). A map is
 * used only if its startup_xen is the kernel's Xen entry point: the same
 * build. Looked up once the guest has stopped, never while it runs.
 */
#ifndef PERCH_SYMBOL_SOURCE_H
#define PERCH_SYMBOL_SOURCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_symbols.h"

#define SYMBOL_SOURCE_MAPS 2

/* Fill s (initialized here; release it either way) for the kernel whose
 * ELF is elf[size], read from kernel_path, entered at entry. Returns
 * whether any symbols were found. */
bool symbol_source_load(struct kernel_symbols *s, const uint8_t *elf,
                        size_t size, const char *kernel_path, uint64_t entry);

/* The System.map paths tried for kernel_path, in order, into paths;
 * returns how many (a path too long is left out). */
unsigned symbol_source_map_paths(const char *kernel_path,
                                 char paths[SYMBOL_SOURCE_MAPS][PATH_MAX]);

#endif
