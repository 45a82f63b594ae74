/*
 * Unit tests of the kallsyms reader (launcher/symbols/kallsyms.c) on tables made
 * by hand (kallsyms_image.c): both address encodings, with and without the
 * seqs_of_names block, names spelled with multi-byte tokens and a 2-byte
 * length; and tables broken one way at a time, which must be refused
 * (ASan checks that nothing is read out of bounds on the way).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kallsyms_image.h"
#include "../../launcher/symbols/kallsyms.h"

#define BASE  0xffffffff81000000ull
#define NSYMS 700
#define CAP   (1u << 20)

static struct ks_symbol syms[NSYMS];
static char names[NSYMS][300];
static uint8_t *image;
static struct ks_offsets at;

/* Per-CPU symbols, _stext, func_K at BASE + 0x100 * K (every 7th data,
 * every 3rd else local), panic, xen_reboot, one 200-character name,
 * _etext. Sorted. */
static uint32_t make_symbols(bool percpu)
{
    uint32_t n = 0;
    uint64_t a = BASE;

    if (percpu)
        for (int i = 0; i < 4; i++) {
            snprintf(names[n], sizeof(names[n]), "Apercpu_%d", i);
            syms[n] = (struct ks_symbol){ 0x1000ull * i, names[n] };
            n++;
        }
    syms[n++] = (struct ks_symbol){ a, "T_stext" };
    for (unsigned k = 0; n < NSYMS - 4; k++) {
        char type = k % 7 == 0 && k ? 'D' : k % 3 == 0 ? 't' : 'T';

        snprintf(names[n], sizeof(names[n]), "%cfunc_%u", type, k);
        syms[n] = (struct ks_symbol){ a, names[n] };
        a += 0x100;
        n++;
    }
    syms[n++] = (struct ks_symbol){ a, "Tpanic" };
    syms[n++] = (struct ks_symbol){ a + 0x400, "Txen_reboot" };
    memset(names[n], 'L', 201);
    names[n][0] = 'T';
    names[n][201] = '\0';
    syms[n++] = (struct ks_symbol){ a + 0x800, names[n - 1] };
    syms[n++] = (struct ks_symbol){ a + 0x1000, "T_etext" };
    return n;
}

static size_t build(bool percpu, bool seqs)
{
    struct ks_layout layout = { BASE, percpu, seqs };
    uint32_t n = make_symbols(percpu);

    if (!image)
        image = aligned_alloc(8, CAP);
    memset(image, 0, CAP);
    return ks_build(image, CAP, syms, n, &layout, &at);
}

static int load(size_t size, struct kernel_symbols *s, struct error *e)
{
    kernel_symbols_init(s);
    e->msg[0] = '\0';
    if (kallsyms_load(image, size, s, e))
        return -1;
    kernel_symbols_sort(s);
    return 0;
}

static int names_as(const struct kernel_symbols *s, uint64_t addr,
                    const char *name, uint64_t off)
{
    const char *n;
    uint64_t o;

    return kernel_symbols_lookup(s, addr, &n, &o) && !strcmp(n, name) && o == off;
}

/* The whole table read: every function named, data and per-CPU not. */
static int check_all(const struct kernel_symbols *s)
{
    const char *n;
    uint64_t o;

    if (!names_as(s, BASE + 8, "_stext", 8) ||   /* func_0's alias, added first */
        !names_as(s, BASE + 0x100 * 10 + 4, "func_10", 4) ||
        !names_as(s, BASE + 0x100 * 12 + 0x20, "func_12", 0x20) ||  /* t */
        !names_as(s, BASE + 0x100 * 14 + 8, "func_13", 0x108))      /* D: not kept */
        return 0;
    if (!kernel_symbols_find(s, "panic", &o) ||
        !names_as(s, o + 0x286, "panic", 0x286) ||
        !names_as(s, o + 0x460, "xen_reboot", 0x60))
        return 0;
    if (!kernel_symbols_lookup(s, o + 0x800, &n, &o) || strlen(n) != 200)
        return 0;
    return s->text_start == BASE && kernel_symbols_find(s, "_etext", &o) &&
           s->text_end == o && !kernel_symbols_find(s, "percpu_0", &o);
}

static void debian_layout(void)
{
    struct kernel_symbols s;
    struct error e;
    size_t size = build(true, true);

    CHECK(size);
    CHECK(load(size, &s, &e) == 0);
    CHECK(check_all(&s));
    kernel_symbols_release(&s);
}

static void without_seqs_of_names(void)
{
    struct kernel_symbols s;
    struct error e;
    size_t size = build(true, false);

    CHECK(size);
    CHECK(load(size, &s, &e) == 0);
    CHECK(check_all(&s));
    kernel_symbols_release(&s);
}

/* Without ABSOLUTE_PERCPU: every address is relative_base + (u32)offset. */
static void relative_encoding(void)
{
    struct kernel_symbols s;
    struct error e;
    size_t size = build(false, true);

    CHECK(size);
    CHECK(load(size, &s, &e) == 0);
    CHECK(check_all(&s));
    kernel_symbols_release(&s);
}

/* The table in a larger image, text and data around it. */
static void inside_an_image(void)
{
    struct kernel_symbols s;
    struct error e;
    size_t size = build(true, true);

    memmove(image + 4096, image, size);
    memset(image, 0x90, 4096);
    CHECK(load(size + 4096 + 1000, &s, &e) == 0);
    CHECK(check_all(&s));
    kernel_symbols_release(&s);
}

/* Each break, on a fresh copy: refused with a message, nothing added. */
static int refused(size_t size, const char *why)
{
    struct kernel_symbols s;
    struct error e;
    int ok = load(size, &s, &e) == -1 && strstr(e.msg, why) && s.n == 0;

    if (!ok)
        printf("# got: \"%s\", %zu symbols\n", e.msg, s.n);
    kernel_symbols_release(&s);
    return ok;
}

static void broken_token_index(void)
{
    size_t size = build(true, true);

    image[at.token_index + 2 * 65] ^= 1;
    CHECK(refused(size, "token table"));
}

static void broken_marker(void)
{
    size_t size = build(true, true);

    image[at.markers + 4 * 2] ^= 4;
    CHECK(refused(size, "names"));
}

static void broken_num_syms(void)
{
    size_t size = build(true, true);

    image[at.num_syms] ^= 1;   /* one symbol more or fewer */
    CHECK(refused(size, "names"));
}

/* A name whose first token is no type letter. */
static void broken_type(void)
{
    size_t size = build(true, true);

    image[at.names + 1] = 0x05;   /* "#" */
    CHECK(refused(size, "names"));
}

static void unsorted_addresses(void)
{
    size_t size = build(true, true);
    uint8_t tmp[4];

    memcpy(tmp, image + at.offsets + 4 * 100, 4);
    memcpy(image + at.offsets + 4 * 100, image + at.offsets + 4 * 101, 4);
    memcpy(image + at.offsets + 4 * 101, tmp, 4);
    CHECK(refused(size, "not sorted"));
}

/* Fewer than KALLSYMS_MIN_SYMBOLS entries is no kernel's table. */
static void too_few_symbols(void)
{
    struct ks_layout layout = { BASE, true, true };
    size_t size;

    make_symbols(true);
    memset(image, 0, CAP);
    size = ks_build(image, CAP, syms, KALLSYMS_MIN_SYMBOLS - 1, &layout, &at);
    CHECK(size);
    CHECK(refused(size, "names"));
}

/* Cut anywhere: refused, never read past the end. */
static void truncated(void)
{
    size_t size = build(true, true);
    const size_t cuts[] = { 0, 1, at.names + 100, at.markers, at.token_table + 10,
                            at.token_index + 511 };

    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        uint8_t *copy = malloc(cuts[i] ? cuts[i] : 1);
        struct kernel_symbols s;
        struct error e;

        memcpy(copy, image, cuts[i]);
        kernel_symbols_init(&s);
        CHECK(kallsyms_load(copy, cuts[i], &s, &e) == -1);
        kernel_symbols_release(&s);
        free(copy);
    }
    CHECK(size == at.end);
}

int main(void)
{
    RUN(debian_layout);
    RUN(without_seqs_of_names);
    RUN(relative_encoding);
    RUN(inside_an_image);
    RUN(broken_token_index);
    RUN(broken_marker);
    RUN(broken_num_syms);
    RUN(broken_type);
    RUN(unsorted_addresses);
    RUN(too_few_symbols);
    RUN(truncated);
    free(image);
    return check_exit_status();
}
