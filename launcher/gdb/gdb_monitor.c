/* gdb's `monitor` commands: the guest kernel's symbols (gdb_monitor.h). */
#include "gdb_monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "perch monitor commands:\n"
    "  sym [ADDR]   ADDR (default: rip) as the guest kernel's symbol+offset\n"
    "  addr NAME    the address of the guest kernel's function NAME\n";

/* A whole number, hex with or without 0x (as gdb users write addresses). */
static bool parse_address(const char *s, uint64_t *v)
{
    char *end;

    if (!*s)
        return false;
    *v = strtoull(s, &end, 16);
    return *end == '\0';
}

static void sym(const struct gdb_target *t, const char *arg, char *out, size_t size)
{
    uint64_t addr = t->vcpu[t->cpu].regs.rip, offset;
    const char *name;

    if (*arg && !parse_address(arg, &addr)) {
        snprintf(out, size, "sym: '%.64s' is not an address\n", arg);
        return;
    }
    if (!t->syms || !kernel_symbols_lookup(t->syms, addr, &name, &offset))
        snprintf(out, size, "%#llx: not in the guest kernel's text%s\n",
                 (unsigned long long)addr, t->syms ? "" : " (no symbols)");
    else
        snprintf(out, size, "%#llx: %s+%#llx\n", (unsigned long long)addr, name,
                 (unsigned long long)offset);
}

static void addr(const struct gdb_target *t, const char *arg, char *out, size_t size)
{
    uint64_t a;

    if (!*arg)
        snprintf(out, size, "addr: which function? (monitor addr NAME)\n");
    else if (!t->syms || !kernel_symbols_find(t->syms, arg, &a))
        snprintf(out, size, "%.64s: no such function in the guest kernel%s\n", arg,
                 t->syms ? "" : " (no symbols)");
    else
        snprintf(out, size, "%s = %#llx\n", arg, (unsigned long long)a);
}

/* The command's word and its argument, blanks around them trimmed. */
static void split(const char *cmd, char *word, size_t wsize, char *arg, size_t asize)
{
    size_t n;

    cmd += strspn(cmd, " \t");
    n = strcspn(cmd, " \t");
    snprintf(word, wsize, "%.*s", (int)n, cmd);
    cmd += n;
    cmd += strspn(cmd, " \t");
    snprintf(arg, asize, "%s", cmd);
    for (n = strlen(arg); n && (arg[n - 1] == ' ' || arg[n - 1] == '\t'); n--)
        arg[n - 1] = '\0';
}

void gdb_monitor(const struct gdb_target *t, const char *cmd, char *out, size_t size)
{
    char word[16], arg[KERNEL_SYMBOL_NAME_MAX + 1];

    split(cmd, word, sizeof(word), arg, sizeof(arg));
    if (!strcmp(word, "sym"))
        sym(t, arg, out, size);
    else if (!strcmp(word, "addr"))
        addr(t, arg, out, size);
    else if (!strcmp(word, "help") || !word[0])
        snprintf(out, size, "%s", help);
    else
        snprintf(out, size, "unknown monitor command '%.32s'\n%s", word, help);
}
