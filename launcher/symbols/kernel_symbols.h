/*
 * A kernel's function symbols, to name the addresses of a crash as
 * name+offset (panic+0x118). They come from the kernel's own kallsyms
 * tables (kallsyms.h) or from a System.map ("ffffffff81000000 T _stext"
 * a line); either way only text symbols are kept, sorted by address.
 *
 * The text is where a return address can be: _stext to _etext and
 * _sinittext to _einittext when the table has those (Linux's does), else
 * from the first text symbol to the last.
 */
#ifndef PERCH_KERNEL_SYMBOLS_H
#define PERCH_KERNEL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_SYMBOL_NAME_MAX 255   /* longer names are not kept */

struct kernel_symbol {
    uint64_t addr;
    uint32_t name;    /* offset into names */
    uint32_t order;   /* when it was added: the first alias wins */
};

struct kernel_symbols {
    struct kernel_symbol *syms;
    size_t n, cap;
    char *names;
    size_t names_len, names_cap;
    /* The text ranges, [start, end); found by kernel_symbols_sort(). */
    uint64_t text_start, text_end, init_start, init_end;
    bool sorted;
    /* The one table of data symbols kept, by name: the bounds of Linux's
     * jump-label table (__start___jump_table, __stop___jump_table); 0 if
     * absent. */
    uint64_t jump_table_start, jump_table_end;
};

void kernel_symbols_init(struct kernel_symbols *s);
void kernel_symbols_release(struct kernel_symbols *s);

/* Keep symbol `name` (len bytes, not NUL-ended) of System.map type `type`
 * if it is text (t, T, w, W), or note it if it bounds the jump-label table. Returns 0, or -1 when out of memory. */
int kernel_symbols_add(struct kernel_symbols *s, uint64_t addr, char type,
                       const char *name, size_t len);

/* Sort by address and find the text ranges; call once all are added. */
void kernel_symbols_sort(struct kernel_symbols *s);

/* Add a System.map's lines ("ADDR TYPE NAME", ADDR in hex). A line that
 * is not exactly that is skipped and counted in *malformed (may be NULL).
 * Returns 0, or -1 when out of memory. Call kernel_symbols_sort() after. */
int kernel_symbols_parse_map(struct kernel_symbols *s, const char *text,
                             size_t len, unsigned *malformed);

/* Whether addr lies in the kernel's text. */
bool kernel_symbols_in_text(const struct kernel_symbols *s, uint64_t addr);

/* The nearest symbol at or below addr, and how far past it addr is. false
 * when addr is outside the text or below the first symbol. */
bool kernel_symbols_lookup(const struct kernel_symbols *s, uint64_t addr,
                           const char **name, uint64_t *offset);

/* The address of the symbol called name; false if there is none. */
bool kernel_symbols_find(const struct kernel_symbols *s, const char *name,
                         uint64_t *addr);

#endif
