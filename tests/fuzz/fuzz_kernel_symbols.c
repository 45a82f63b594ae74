/*
 * libFuzzer harness of what names a crash's addresses: the kallsyms finder
 * (launcher/symbols/kallsyms.c) on any bytes, the System.map parser
 * (launcher/symbols/kernel_symbols.c) on any text, and the crash line
 * (launcher/symbols/crash_line.c) made from either with stack words from the
 * input, and an ELF's symbol table (launcher/symbols/elf_symtab.c) on any
 * bytes. The first byte picks the mode; a third mode builds kallsyms
 * tables from the input's names and addresses (tests/unit/kallsyms_image.c)
 * and checks that every text symbol reads back at its address.
 */
#include "fuzz.h"

#include "../../launcher/symbols/crash_line.h"
#include "../../launcher/symbols/elf_symtab.h"
#include "../../launcher/symbols/kallsyms.h"
#include "../unit/kallsyms_image.h"

#define ROUND_TRIP_SYMBOLS (KALLSYMS_MIN_SYMBOLS + 64)

/* What a sorted table promises the look-ups. */
static void check_table(const struct kernel_symbols *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const char *name = s->names + s->syms[i].name;
        size_t len = strnlen(name, s->names_len - s->syms[i].name);

        FUZZ_ASSERT(s->syms[i].name < s->names_len);
        FUZZ_ASSERT(len > 0 && len <= KERNEL_SYMBOL_NAME_MAX &&
                    s->syms[i].name + len < s->names_len);
        FUZZ_ASSERT(i == 0 || s->syms[i - 1].addr <= s->syms[i].addr);
    }
}

/* Each symbol in the text names its own address, at offset 0. */
static void check_lookups(const struct kernel_symbols *s)
{
    const char *name;
    uint64_t off;

    for (size_t i = 0; i < s->n; i++)
        if (kernel_symbols_in_text(s, s->syms[i].addr)) {
            FUZZ_ASSERT(kernel_symbols_lookup(s, s->syms[i].addr, &name, &off));
            FUZZ_ASSERT(off == 0);
        }
}

/* The line, from input words: one printable line inside the message. */
static void check_line(const struct kernel_symbols *s, struct fuzz_in *in)
{
    struct guest_where w = { .known = true, .status = 4 };
    struct error e;

    w.rip = fuzz_uint(in, 8);
    w.user = fuzz_uint(in, 1) & 1;
    w.clause = fuzz_uint(in, 1) & 1;
    while (w.nr_stack < PERCH_WHERE_STACK_WORDS && in->n)
        w.stack[w.nr_stack++] = fuzz_uint(in, 8);
    fail(&e, "guest crashed (SHUTDOWN_crash)");
    crash_line_append(&e, &w, s);
    FUZZ_ASSERT(strlen(e.msg) < sizeof(e.msg));
    FUZZ_ASSERT(fuzz_one_line(e.msg));
}

static void raw_kallsyms(const uint8_t *data, size_t size)
{
    struct kernel_symbols s;
    struct error e = { "" };
    struct fuzz_in in = { data, size < 520 ? size : 520 };

    kernel_symbols_init(&s);
    if (kallsyms_load(data, size, &s, &e) == 0) {
        kernel_symbols_sort(&s);
        check_table(&s);
        check_lookups(&s);
        check_line(&s, &in);
    } else {
        FUZZ_ASSERT(fuzz_one_line(e.msg));
        FUZZ_ASSERT(s.n == 0);
    }
    kernel_symbols_release(&s);
}

static void raw_elf(const uint8_t *data, size_t size)
{
    struct kernel_symbols s;
    struct error e = { "" };

    kernel_symbols_init(&s);
    if (elf_symtab_load(data, size, &s, &e) == 0) {
        kernel_symbols_sort(&s);
        check_table(&s);
        check_lookups(&s);
    } else {
        FUZZ_ASSERT(fuzz_one_line(e.msg));
    }
    kernel_symbols_release(&s);
}

static void system_map(const uint8_t *data, size_t size)
{
    struct kernel_symbols s;
    struct fuzz_in in = { data, size < 520 ? size : 520 };
    unsigned bad = 0;

    kernel_symbols_init(&s);
    FUZZ_ASSERT(kernel_symbols_parse_map(&s, (const char *)data, size, &bad) == 0);
    kernel_symbols_sort(&s);
    check_table(&s);
    check_lookups(&s);
    check_line(&s, &in);
    kernel_symbols_release(&s);
}

/* Names of [a-z_0-9], types T t W D, addresses rising by input steps. */
static void make_symbols(struct fuzz_in *in, struct ks_symbol *syms,
                         char (*names)[24], bool *text)
{
    static const char types[] = "TtWD";
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
    uint64_t addr = 0xffffffff81000000ull;

    for (uint32_t i = 0; i < ROUND_TRIP_SYMBOLS; i++) {
        size_t len = 1 + fuzz_uint(in, 1) % 20;

        names[i][0] = types[fuzz_uint(in, 1) % 4];
        for (size_t k = 1; k <= len; k++)
            names[i][k] = chars[fuzz_uint(in, 1) % (sizeof(chars) - 1)];
        names[i][len + 1] = '\0';
        addr += fuzz_uint(in, 2);
        syms[i] = (struct ks_symbol){ addr, names[i] };
        text[i] = names[i][0] != 'D';
    }
}

static void round_trip(const uint8_t *data, size_t size)
{
    static struct ks_symbol syms[ROUND_TRIP_SYMBOLS];
    static char names[ROUND_TRIP_SYMBOLS][24];
    static bool text[ROUND_TRIP_SYMBOLS];
    static uint8_t image[1 << 16] __attribute__((aligned(8)));
    struct fuzz_in in = { data, size };
    struct ks_layout layout = { 0xffffffff81000000ull, true, false };
    struct kernel_symbols s;
    struct error e;
    const char *name;
    uint64_t off;
    size_t bytes;

    layout.absolute_percpu = fuzz_uint(&in, 1) & 1;
    layout.seqs_of_names = fuzz_uint(&in, 1) & 1;
    make_symbols(&in, syms, names, text);
    bytes = ks_build(image, sizeof(image), syms, ROUND_TRIP_SYMBOLS, &layout, NULL);
    FUZZ_ASSERT(bytes);
    kernel_symbols_init(&s);
    FUZZ_ASSERT(kallsyms_load(image, bytes, &s, &e) == 0);
    kernel_symbols_sort(&s);
    check_table(&s);
    for (uint32_t i = 0; i < ROUND_TRIP_SYMBOLS; i++)
        if (text[i] && kernel_symbols_in_text(&s, syms[i].addr)) {
            FUZZ_ASSERT(kernel_symbols_lookup(&s, syms[i].addr, &name, &off));
            FUZZ_ASSERT(off == 0);
        }
    kernel_symbols_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch (data[0] % 4) {
    case 0:
        raw_kallsyms(data + 1, size - 1);
        break;
    case 1:
        system_map(data + 1, size - 1);
        break;
    case 3:
        raw_elf(data + 1, size - 1);
        break;
    default:
        round_trip(data + 1, size - 1);
        break;
    }
    return 0;
}
