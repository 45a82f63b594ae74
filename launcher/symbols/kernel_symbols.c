/* A kernel's text symbols, sorted for name+offset look-ups (kernel_symbols.h). */
#include "kernel_symbols.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/hex.h"

void kernel_symbols_init(struct kernel_symbols *s)
{
    memset(s, 0, sizeof(*s));
}

void kernel_symbols_release(struct kernel_symbols *s)
{
    free(s->syms);
    free(s->names);
    kernel_symbols_init(s);
}

static bool is_text_type(char type)
{
    return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Room for one more entry and `bytes` more name bytes. */
static int reserve(struct kernel_symbols *s, size_t bytes)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        struct kernel_symbol *p = realloc(s->syms, cap * sizeof(*p));

        if (!p)
            return -1;
        s->syms = p;
        s->cap = cap;
    }
    if (s->names_len + bytes > s->names_cap) {
        size_t cap = s->names_cap ? s->names_cap * 2 : 65536;
        char *p;

        while (cap < s->names_len + bytes)
            cap *= 2;
        p = realloc(s->names, cap);
        if (!p)
            return -1;
        s->names = p;
        s->names_cap = cap;
    }
    return 0;
}

static bool named(const char *name, size_t len, const char *want)
{
    return len == strlen(want) && !memcmp(name, want, len);
}

int kernel_symbols_add(struct kernel_symbols *s, uint64_t addr, char type,
                       const char *name, size_t len)
{
    struct kernel_symbol *k;

    if (named(name, len, "__start___jump_table"))
        s->jump_table_start = addr;
    if (named(name, len, "__stop___jump_table"))
        s->jump_table_end = addr;
    if (!is_text_type(type) || len == 0 || len > KERNEL_SYMBOL_NAME_MAX ||
        memchr(name, '\0', len))
        return 0;
    /* Offsets are 32-bit: a table past 4 GiB of names is no kernel's. */
    if (s->n >= UINT32_MAX || s->names_len + len + 1 > UINT32_MAX)
        return 0;
    if (reserve(s, len + 1))
        return -1;
    k = &s->syms[s->n];
    k->addr = addr;
    k->name = (uint32_t)s->names_len;
    k->order = (uint32_t)s->n;
    memcpy(s->names + s->names_len, name, len);
    s->names[s->names_len + len] = '\0';
    s->names_len += len + 1;
    s->n++;
    s->sorted = false;
    return 0;
}

static int by_address(const void *a, const void *b)
{
    const struct kernel_symbol *x = a, *y = b;

    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

bool kernel_symbols_find(const struct kernel_symbols *s, const char *name,
                         uint64_t *addr)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->names + s->syms[i].name, name)) {
            *addr = s->syms[i].addr;
            return true;
        }
    return false;
}

/* [start, end) from the two marker symbols, if both are there in order. */
static void marker_range(const struct kernel_symbols *s, const char *first,
                         const char *last, uint64_t *start, uint64_t *end)
{
    uint64_t a, b;

    *start = *end = 0;
    if (kernel_symbols_find(s, first, &a) && kernel_symbols_find(s, last, &b) &&
        a < b) {
        *start = a;
        *end = b;
    }
}

void kernel_symbols_sort(struct kernel_symbols *s)
{
    if (s->n)
        qsort(s->syms, s->n, sizeof(s->syms[0]), by_address);
    s->sorted = true;
    marker_range(s, "_stext", "_etext", &s->text_start, &s->text_end);
    marker_range(s, "_sinittext", "_einittext", &s->init_start, &s->init_end);
    /* Without the markers: from the first text symbol to the last. */
    if (!s->text_end && s->n) {
        s->text_start = s->syms[0].addr;
        s->text_end = s->syms[s->n - 1].addr + 1;
        if (s->text_end == 0)
            s->text_end = UINT64_MAX;
    }
}

bool kernel_symbols_in_text(const struct kernel_symbols *s, uint64_t addr)
{
    return (addr >= s->text_start && addr < s->text_end) ||
           (addr >= s->init_start && addr < s->init_end);
}

bool kernel_symbols_lookup(const struct kernel_symbols *s, uint64_t addr,
                           const char **name, uint64_t *offset)
{
    size_t lo = 0, hi = s->n;

    if (!s->sorted || !kernel_symbols_in_text(s, addr))
        return false;
    /* The first entry above addr; the one before it names addr. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return false;
    /* Of aliases (one address, several names), the first added. */
    while (lo > 1 && s->syms[lo - 2].addr == s->syms[lo - 1].addr)
        lo--;
    *name = s->names + s->syms[lo - 1].name;
    *offset = addr - s->syms[lo - 1].addr;
    return true;
}

/* --- System.map ---------------------------------------------------------- */

/* "ADDR TYPE NAME": ADDR 1-16 hex digits, TYPE one letter, NAME printable
 * and without spaces, single spaces between. Returns whether it is. */
static bool parse_map_line(const char *p, size_t len, uint64_t *addr,
                           char *type, const char **name, size_t *name_len)
{
    size_t i = 0;

    *addr = 0;
    for (; i < len && hex_digit(p[i]) >= 0; i++) {
        if (i == 16)
            return false;
        *addr = *addr << 4 | (uint64_t)hex_digit(p[i]);
    }
    if (i == 0 || i + 4 > len || p[i] != ' ' || p[i + 2] != ' ')
        return false;
    *type = p[i + 1];
    *name = p + i + 3;
    *name_len = len - (i + 3);
    for (size_t k = 0; k < *name_len; k++)
        if ((*name)[k] <= ' ' || (*name)[k] > '~')
            return false;
    return (*type >= 'a' && *type <= 'z') || (*type >= 'A' && *type <= 'Z');
}

int kernel_symbols_parse_map(struct kernel_symbols *s, const char *text,
                             size_t len, unsigned *malformed)
{
    const char *end = text + len;

    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = (size_t)((nl ? nl : end) - line), name_len;
        const char *name;
        uint64_t addr;
        char type;

        if (n && line[n - 1] == '\r')
            n--;
        if (n && parse_map_line(line, n, &addr, &type, &name, &name_len)) {
            if (kernel_symbols_add(s, addr, type, name, name_len))
                return -1;
        } else if (n && malformed) {
            (*malformed)++;
        }
        line = nl ? nl + 1 : end;
    }
    return 0;
}
