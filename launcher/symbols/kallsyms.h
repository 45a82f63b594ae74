/*
 * Linux's own symbol table, inside the kernel image (CONFIG_KALLSYMS): the
 * one /proc/kallsyms and the kernel's own backtraces read. Debian's
 * packages ship no usable System.map (docs/design.md, "Naming a crash"),
 * so this is how perch names the addresses of a crash in Debian's kernel.
 *
 * The tables sit in .rodata with no symbol pointing at them, and the
 * image is untrusted: they are found by their shape and every length,
 * offset and marker is checked before use. The layout is Linux 6.1's
 * with CONFIG_KALLSYMS_BASE_RELATIVE (x86-64's default), each table
 * 8-byte aligned:
 *
 *   offsets[N]       s32: with ABSOLUTE_PERCPU, >= 0 is an absolute
 *                    address, < 0 is relative_base - 1 - offset; without
 *                    it relative_base + (u32)offset
 *   relative_base    u64
 *   num_syms         u32 (N)
 *   names            N entries: a length (1 byte, or 2 if its top bit is
 *                    set: 7 bits and then 7 more), then that many bytes,
 *                    each an index into the token table; the expansion's
 *                    first character is the System.map type
 *   markers          u32 for every 256th entry: its offset in names
 *   (seqs_of_names)  3 bytes an entry, in later kernels (and Debian's 6.1)
 *   token_table      256 NUL-ended strings, token i for byte i
 *   token_index      256 u16: where each token starts in token_table
 *
 * The token table is found by its run "0\0" .. "9\0" (digits stand for
 * themselves, tokens 48-57) and checked against the index that follows;
 * then the names by num_syms and the markers after them; the addresses
 * must come out sorted, as the kernel sorts them.
 */
#ifndef PERCH_KALLSYMS_H
#define PERCH_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "kernel_symbols.h"

/* Fewer entries than this is not a kernel's table (Debian's has 87,000). */
#define KALLSYMS_MIN_SYMBOLS 256
#define KALLSYMS_MAX_SYMBOLS (1u << 22)

/* Add the text symbols of the kallsyms tables in image (an ELF vmlinux, or
 * any bytes) to out, unsorted. Returns 0, or -1 with e saying why not
 * (none found, out of memory). */
int kallsyms_load(const uint8_t *image, size_t size, struct kernel_symbols *out,
                  struct error *e);

#endif
