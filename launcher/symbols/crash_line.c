/* Where the guest stopped, appended to the line that reports it (crash_line.h). */
#include "crash_line.h"

#include <stdio.h>
#include <string.h>

void crash_line_from_shared(struct guest_where *w,
                            const volatile struct perch_shared *sh, int status,
                            bool clause)
{
    uint32_t n = sh->request.where.nr_stack;

    memset(w, 0, sizeof(*w));
    w->known = sh->request.where.known != 0;
    if (!w->known)
        return;
    w->user = sh->request.where.kernel == 0;
    w->clause = clause;
    w->status = status;
    w->rip = sh->request.where.rip;
    /* Read the count once and bound it: the guest can write it too. */
    w->nr_stack = n < PERCH_WHERE_STACK_WORDS ? n : PERCH_WHERE_STACK_WORDS;
    for (uint32_t i = 0; i < w->nr_stack; i++)
        w->stack[i] = sh->request.where.stack[i];
}

void crash_line_from_vcpu(struct guest_where *w, uint64_t rip, int status)
{
    memset(w, 0, sizeof(*w));
    w->known = true;
    w->status = status;
    w->rip = rip;
}

/* Append piece if it fits whole; returns whether it did. */
static bool append(struct error *e, const char *piece)
{
    size_t have = strlen(e->msg), n = strlen(piece);

    if (have + n >= sizeof(e->msg))
        return false;
    memcpy(e->msg + have, piece, n + 1);
    return true;
}

/* "name+0xoff" of addr into out; false if the symbols do not name it. A
 * name from the kernel image is shown printable, as every message is. */
static bool symbol(const struct kernel_symbols *syms, uint64_t addr, char *out,
                   size_t size)
{
    const char *name;
    uint64_t off;
    int n;

    if (!syms || !kernel_symbols_lookup(syms, addr, &name, &off))
        return false;
    n = snprintf(out, size, "%s+0x%lx", name, (unsigned long)off);
    for (int i = 0; i < n && (size_t)i < size; i++)
        if (out[i] < 0x20 || out[i] > 0x7e)
            out[i] = '?';
    return true;
}

/* A stack word worth naming: in the text, not the rip again, and not a
 * function's first byte (a return address never is: a call comes first). */
static bool return_address(const struct kernel_symbols *syms, uint64_t word,
                           uint64_t rip)
{
    const char *name;
    uint64_t off;

    return word != rip && kernel_symbols_lookup(syms, word, &name, &off) &&
           off != 0;
}

static void append_stack(struct error *e, const struct guest_where *w,
                         const struct kernel_symbols *syms)
{
    char piece[KERNEL_SYMBOL_NAME_MAX + 32];
    unsigned shown = 0;

    for (uint32_t i = 0; i < w->nr_stack && shown < CRASH_LINE_FRAMES; i++) {
        if (!return_address(syms, w->stack[i], w->rip))
            continue;
        snprintf(piece, sizeof(piece), "%s", shown ? " " : "; stack: ");
        symbol(syms, w->stack[i], piece + strlen(piece),
               sizeof(piece) - strlen(piece));
        if (!append(e, piece))
            return;
        shown++;
    }
}

void crash_line_append(struct error *e, const struct guest_where *w,
                       const struct kernel_symbols *syms)
{
    char piece[KERNEL_SYMBOL_NAME_MAX + 64], name[KERNEL_SYMBOL_NAME_MAX + 32];

    if (!w->known)
        return;
    snprintf(piece, sizeof(piece), "%s at rip %#lx%s", w->clause ? "; guest" : "",
             (unsigned long)w->rip, w->user ? " in guest user" : "");
    if (!append(e, piece) || !syms)
        return;
    if (symbol(syms, w->rip, name, sizeof(name))) {
        snprintf(piece, sizeof(piece), " (%s)", name);
        if (!append(e, piece))
            return;
    }
    if (!w->user)
        append_stack(e, w, syms);
}
