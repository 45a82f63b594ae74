/*
 * Unit tests of the kernel's symbol table (launcher/symbols/kernel_symbols.c):
 * System.map lines in and out of shape, which symbols are kept, the text
 * ranges, and name+offset look-ups at, inside, before and beyond them.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../launcher/symbols/kernel_symbols.h"

static const char map[] =
    "0000000000000000 A fixed_percpu_data\n"
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t early_helper\n"
    "ffffffff81000200 T panic\n"
    "ffffffff81000300 W weak_function\n"
    "ffffffff81000400 D some_data\n"
    "ffffffff81000500 T xen_reboot\r\n"
    "ffffffff81001000 T _etext\n"
    "ffffffff82000000 T _sinittext\n"
    "ffffffff82000040 T start_kernel\n"
    "ffffffff82000100 T _einittext\n";

static void load(struct kernel_symbols *s, const char *text, unsigned *bad)
{
    kernel_symbols_init(s);
    *bad = 0;
    kernel_symbols_parse_map(s, text, strlen(text), bad);
    kernel_symbols_sort(s);
}

/* addr named "name+0xOFF"? */
static int names(const struct kernel_symbols *s, uint64_t addr,
                 const char *name, uint64_t off)
{
    const char *n;
    uint64_t o;

    return kernel_symbols_lookup(s, addr, &n, &o) && !strcmp(n, name) && o == off;
}

static int unnamed(const struct kernel_symbols *s, uint64_t addr)
{
    const char *n;
    uint64_t o;

    return !kernel_symbols_lookup(s, addr, &n, &o);
}

static void lookup_and_offsets(void)
{
    struct kernel_symbols s;
    unsigned bad;

    load(&s, map, &bad);
    CHECK(bad == 0);
    CHECK(names(&s, 0xffffffff81000200ull, "panic", 0));
    CHECK(names(&s, 0xffffffff81000286ull, "panic", 0x86));
    CHECK(names(&s, 0xffffffff810002ffull, "panic", 0xff));
    CHECK(names(&s, 0xffffffff81000105ull, "early_helper", 5));   /* t: local */
    CHECK(names(&s, 0xffffffff81000310ull, "weak_function", 0x10));
    /* Data is not kept: past xen_reboot's start, xen_reboot names it. */
    CHECK(names(&s, 0xffffffff81000460ull, "weak_function", 0x160));
    CHECK(names(&s, 0xffffffff81000560ull, "xen_reboot", 0x60));   /* CRLF line */
    CHECK(names(&s, 0xffffffff82000050ull, "start_kernel", 0x10)); /* init text */
    kernel_symbols_release(&s);
}

/* _stext and startup_64 share an address: the first in the map wins. */
static void alias_first_wins(void)
{
    struct kernel_symbols s;
    unsigned bad;

    load(&s, map, &bad);
    CHECK(names(&s, 0xffffffff81000000ull, "_stext", 0));
    CHECK(names(&s, 0xffffffff81000010ull, "_stext", 0x10));
    kernel_symbols_release(&s);
}

static void outside_the_text(void)
{
    struct kernel_symbols s;
    unsigned bad;

    load(&s, map, &bad);
    CHECK(s.text_start == 0xffffffff81000000ull && s.text_end == 0xffffffff81001000ull);
    CHECK(s.init_start == 0xffffffff82000000ull && s.init_end == 0xffffffff82000100ull);
    CHECK(unnamed(&s, 0xffffffff80ffffffull));   /* before the first symbol */
    CHECK(unnamed(&s, 0xffffffff81001000ull));   /* _etext itself: past the text */
    CHECK(unnamed(&s, 0xffffffff82000100ull));
    CHECK(unnamed(&s, 0));
    CHECK(unnamed(&s, 0x47b7a0));                /* a user address */
    CHECK(unnamed(&s, 0xffffffffc0001000ull));   /* a module's */
    CHECK(kernel_symbols_in_text(&s, 0xffffffff81000fffull));
    CHECK(!kernel_symbols_in_text(&s, 0xffffffff81001000ull));
    kernel_symbols_release(&s);
}

/* No _stext/_etext: the text runs from the first text symbol to the last,
 * and below the first nothing is named. */
static void before_the_first_symbol(void)
{
    struct kernel_symbols s;
    unsigned bad;

    load(&s, "1000 T first\n2000 T second\n3000 T last\n", &bad);
    CHECK(s.n == 3);
    CHECK(unnamed(&s, 0xfff));
    CHECK(names(&s, 0x1000, "first", 0));
    CHECK(names(&s, 0x2abc, "second", 0xabc));
    CHECK(names(&s, 0x3000, "last", 0));
    CHECK(unnamed(&s, 0x3001));
    kernel_symbols_release(&s);
}

/* Each of these lines is malformed: skipped, counted, and the good lines
 * around them still count. Empty lines are not counted. */
static void malformed_lines(void)
{
    static const char text[] =
        "ffffffff81000000 T good_one\n"
        "\n"
        "T no_address\n"
        "ffffffff81000010 no_type\n"
        "ffffffff81000020 T\n"                      /* no name */
        "ffffffff81000030 T \n"                     /* empty name */
        "ffffffff81000040  T two_spaces\n"
        "ffffffff81000050\tT tab\n"
        "ffffffff81000060 T name with spaces\n"
        "ffffffff81000070 T trailing \n"
        "ffffffff81000080 1 digit_type\n"
        "1ffffffff81000090 T seventeen_digits\n"
        "ffffffff8100g0a0 T bad_hex\n"
        "ffffffff810000b0 T ctrl\x01name\n"
        "ffffffff810000c0 T high\xc3\xa9name\n"
        "ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n"
        "ffffffff81000100 T good_two";              /* no final newline */
    struct kernel_symbols s;
    unsigned bad;

    load(&s, text, &bad);
    CHECK(bad == 14);
    CHECK(s.n == 2);
    CHECK(names(&s, 0xffffffff81000000ull, "good_one", 0));
    CHECK(names(&s, 0xffffffff81000100ull, "good_two", 0));
    kernel_symbols_release(&s);
}

/* Debian's linux-image packages ship this one line as System.map. */
static void debian_placeholder_has_no_symbols(void)
{
    struct kernel_symbols s;
    unsigned bad;

    load(&s, "ffffffffffffffff B The real System.map is in the "
             "linux-image-<version>-dbg package\n", &bad);
    CHECK(bad == 1);
    CHECK(s.n == 0);
    CHECK(unnamed(&s, 0xffffffff81000000ull));
    kernel_symbols_release(&s);
}

static void find_by_name(void)
{
    struct kernel_symbols s;
    unsigned bad;
    uint64_t a;

    load(&s, map, &bad);
    CHECK(kernel_symbols_find(&s, "xen_reboot", &a) && a == 0xffffffff81000500ull);
    CHECK(!kernel_symbols_find(&s, "some_data", &a));   /* data: not kept */
    CHECK(!kernel_symbols_find(&s, "xen_rebo", &a));
    kernel_symbols_release(&s);
}

/* Names beyond KERNEL_SYMBOL_NAME_MAX, or holding a NUL, are not kept;
 * nothing is named before the table is sorted. */
static void add_limits(void)
{
    struct kernel_symbols s;
    char longname[KERNEL_SYMBOL_NAME_MAX + 1];

    kernel_symbols_init(&s);
    memset(longname, 'x', sizeof(longname));
    CHECK(kernel_symbols_add(&s, 0x1000, 'T', longname, sizeof(longname)) == 0);
    CHECK(kernel_symbols_add(&s, 0x1000, 'T', "a\0b", 3) == 0);
    CHECK(kernel_symbols_add(&s, 0x1000, 'T', "", 0) == 0);
    CHECK(s.n == 0);
    CHECK(kernel_symbols_add(&s, 0x1000, 'T', longname, sizeof(longname) - 1) == 0);
    CHECK(s.n == 1);
    CHECK(unnamed(&s, 0x1000));
    kernel_symbols_sort(&s);
    CHECK(!unnamed(&s, 0x1000));
    kernel_symbols_release(&s);
}

/* Many symbols, added in reverse: sorted, each one named. */
static void many_symbols(void)
{
    struct kernel_symbols s;
    char name[32];

    kernel_symbols_init(&s);
    for (int i = 9999; i >= 0; i--) {
        int n = snprintf(name, sizeof(name), "fn%d", i);

        CHECK(kernel_symbols_add(&s, 0xffffffff81000000ull + 0x40ull * i, 'T',
                                 name, (size_t)n) == 0);
    }
    kernel_symbols_sort(&s);
    CHECK(s.n == 10000);
    CHECK(names(&s, 0xffffffff81000000ull + 0x40 * 1234 + 7, "fn1234", 7));
    CHECK(names(&s, 0xffffffff81000000ull, "fn0", 0));
    CHECK(names(&s, 0xffffffff81000000ull + 0x40 * 9999, "fn9999", 0));
    kernel_symbols_release(&s);
}

int main(void)
{
    RUN(lookup_and_offsets);
    RUN(alias_first_wins);
    RUN(outside_the_text);
    RUN(before_the_first_symbol);
    RUN(malformed_lines);
    RUN(debian_placeholder_has_no_symbols);
    RUN(find_by_name);
    RUN(add_limits);
    RUN(many_symbols);
    return check_exit_status();
}
