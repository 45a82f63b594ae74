/* Linux's kallsyms tables, found in the kernel image by their shape (kallsyms.h). */
#include "kallsyms.h"

#include <stdbool.h>
#include <string.h>

#define TOKENS 256
#define DIGIT_TOKEN '0'   /* token 48 is "0", through 57, "9" */
#define SYMBOLS_PER_MARKER 256
/* Entries read over the whole search for the names, at most: a real
 * table costs its own count once and the rest of the image little, but
 * bytes made to look like endless entries would cost the square. */
#define SEARCH_BUDGET (1u << 25)

struct tokens {
    size_t at;                  /* token_table's offset in the image */
    uint16_t start[TOKENS];     /* token i at at + start[i] */
    char first[TOKENS];         /* each token's first character */
};

struct names {
    size_t base_at;             /* relative_base; num_syms follows */
    uint32_t n;
    size_t at;                  /* the first entry */
};

static size_t align8(size_t x)
{
    return (x + 7) & ~(size_t)7;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* --- the token table ----------------------------------------------------- */

/* 256 NUL-ended strings from at, then (8-aligned) an index naming where
 * each starts: both must agree. */
static bool tokens_at(const uint8_t *img, size_t size, size_t at, struct tokens *t)
{
    size_t p = at, index;

    for (int i = 0; i < TOKENS; i++) {
        const uint8_t *nul = p < size ? memchr(img + p, 0, size - p) : NULL;

        if (!nul || p - at > UINT16_MAX)
            return false;
        t->start[i] = (uint16_t)(p - at);
        t->first[i] = (char)img[p];
        p = (size_t)(nul - img) + 1;
    }
    index = align8(p);
    if (index > size || size - index < TOKENS * 2)
        return false;
    for (int i = 0; i < TOKENS; i++)
        if (le16(img + index + 2 * i) != t->start[i])
            return false;
    t->at = at;
    return true;
}

/* From token 48 (at `digits`) back to token 0: 48 NUL-ended strings. */
static bool token_table_start(const uint8_t *img, size_t digits, size_t *at)
{
    size_t p = digits;

    for (int k = 0; k < DIGIT_TOKEN; k++) {
        if (p == 0 || img[p - 1] != 0)
            return false;
        p--;
        while (p > 0 && img[p - 1] != 0)
            p--;
    }
    *at = p;
    return true;
}

static bool find_tokens(const uint8_t *img, size_t size, struct tokens *t)
{
    static const char digits[] = "0\0" "1\0" "2\0" "3\0" "4\0"
                                 "5\0" "6\0" "7\0" "8\0" "9";
    const size_t len = sizeof(digits);   /* with the last NUL */
    size_t from = 0, at;

    while (from < size) {
        const uint8_t *hit = memmem(img + from, size - from, digits, len);

        if (!hit)
            return false;
        from = (size_t)(hit - img);
        if (token_table_start(img, from, &at) && tokens_at(img, size, at, t))
            return true;
        from++;
    }
    return false;
}

/* --- the names ------------------------------------------------------------- */

/* One entry's length at *p (1 or 2 bytes), *p moved past it. */
static bool entry_length(const uint8_t *img, size_t limit, size_t *p, size_t *len)
{
    if (*p >= limit)
        return false;
    *len = img[*p] & 0x7f;
    if (img[(*p)++] & 0x80) {
        if (*p >= limit)
            return false;
        *len |= (size_t)(img[(*p)++] & 0x7f) << 7;
    }
    return *len > 0 && *len <= limit - *p;
}

static bool is_type_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* n entries from at, each inside limit and starting with a type letter:
 * where they end, or 0 (also once the search's budget is spent). */
static size_t names_end(const uint8_t *img, size_t limit, size_t at, uint32_t n,
                        const struct tokens *t, size_t *budget)
{
    size_t p = at, len;

    for (uint32_t i = 0; i < n; i++) {
        if (*budget == 0)
            return 0;
        --*budget;
        if (!entry_length(img, limit, &p, &len) || !is_type_letter(t->first[img[p]]))
            return 0;
        p += len;
    }
    return p;
}

/* The markers after the names: entry 256 * k starts at markers[k]. */
static bool markers_match(const uint8_t *img, size_t limit, size_t at,
                          uint32_t n, size_t end)
{
    size_t markers = align8(end), p = at, len;
    uint32_t count = (n + SYMBOLS_PER_MARKER - 1) / SYMBOLS_PER_MARKER;

    if (markers > limit || (limit - markers) / 4 < count)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (i % SYMBOLS_PER_MARKER == 0 &&
            le32(img + markers + 4 * (i / SYMBOLS_PER_MARKER)) != p - at)
            return false;
        entry_length(img, limit, &p, &len);
        p += len;
    }
    return true;
}

/* relative_base at base_at, num_syms after it, the names 8 bytes later,
 * all before the token table (limit). */
static bool names_at(const uint8_t *img, size_t limit, size_t base_at,
                     const struct tokens *t, struct names *out, size_t *budget)
{
    uint32_t n = le32(img + base_at + 8);
    size_t at = base_at + 16, end;

    if (n < KALLSYMS_MIN_SYMBOLS || n > KALLSYMS_MAX_SYMBOLS ||
        le32(img + base_at + 12) != 0 || img[at] == 0)
        return false;
    /* The offsets (4n bytes) come before relative_base; each entry takes
     * two bytes at least. */
    if (base_at < align8((size_t)4 * n) || (limit - at) / 2 < n)
        return false;
    end = names_end(img, limit, at, n, t, budget);
    if (!end || !markers_match(img, limit, at, n, end))
        return false;
    *out = (struct names){ .base_at = base_at, .n = n, .at = at };
    return true;
}

static bool find_names(const uint8_t *img, const struct tokens *t,
                       struct names *out)
{
    size_t budget = SEARCH_BUDGET;

    for (size_t p = 0; p + 24 <= t->at && budget; p += 8)
        if (names_at(img, t->at, p, t, out, &budget))
            return true;
    return false;
}

/* --- the addresses --------------------------------------------------------- */

static uint64_t address(int32_t offset, uint64_t base, bool absolute_percpu)
{
    if (!absolute_percpu)
        return base + (uint32_t)offset;
    return offset >= 0 ? (uint64_t)offset : base - 1 - (uint64_t)(int64_t)offset;
}

static int32_t offset_of(const uint8_t *img, const struct names *nm, uint32_t i)
{
    size_t offsets = nm->base_at - align8((size_t)4 * nm->n);

    return (int32_t)le32(img + offsets + 4 * (size_t)i);
}

/* The kernel sorts its table by address: the right encoding does too. */
static bool sorted_as(const uint8_t *img, const struct names *nm, bool percpu)
{
    uint64_t base = le64(img + nm->base_at), last = 0;

    for (uint32_t i = 0; i < nm->n; i++) {
        uint64_t a = address(offset_of(img, nm, i), base, percpu);

        if (a < last)
            return false;
        last = a;
    }
    return true;
}

/* ABSOLUTE_PERCPU stores kernel addresses as negative offsets. */
static bool pick_encoding(const uint8_t *img, const struct names *nm, bool *percpu)
{
    bool negative = false;

    for (uint32_t i = 0; i < nm->n && !negative; i++)
        negative = offset_of(img, nm, i) < 0;
    *percpu = negative;
    if (sorted_as(img, nm, *percpu))
        return true;
    *percpu = !*percpu;
    return sorted_as(img, nm, *percpu);
}

/* --- decoding -------------------------------------------------------------- */

/* The entry's tokens spelled out into buf (NUL-ended); false if longer
 * than the name perch keeps. */
static bool expand(const uint8_t *img, const uint8_t *entry, size_t len,
                   const struct tokens *t, char *buf, size_t size, size_t *out_len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        const char *tok = (const char *)img + t->at + t->start[entry[i]];
        size_t k = strlen(tok);

        if (k >= size - n)
            return false;
        memcpy(buf + n, tok, k);
        n += k;
    }
    buf[n] = '\0';
    *out_len = n;
    return true;
}

static int add_all(const uint8_t *img, const struct names *nm,
                   const struct tokens *t, bool percpu,
                   struct kernel_symbols *out)
{
    char buf[KERNEL_SYMBOL_NAME_MAX + 2];   /* type, name, NUL */
    uint64_t base = le64(img + nm->base_at);
    size_t p = nm->at, len, n;

    for (uint32_t i = 0; i < nm->n; i++) {
        entry_length(img, t->at, &p, &len);
        if (expand(img, img + p, len, t, buf, sizeof(buf), &n) && n > 1 &&
            kernel_symbols_add(out, address(offset_of(img, nm, i), base, percpu),
                               buf[0], buf + 1, n - 1))
            return -1;
        p += len;
    }
    return 0;
}

int kallsyms_load(const uint8_t *image, size_t size, struct kernel_symbols *out,
                  struct error *e)
{
    struct tokens t;
    struct names nm;
    bool percpu;

    if (!find_tokens(image, size, &t))
        return fail(e, "no kallsyms token table in the kernel image");
    if (!find_names(image, &t, &nm))
        return fail(e, "no kallsyms names before its token table");
    if (!pick_encoding(image, &nm, &percpu))
        return fail(e, "the kallsyms addresses are not sorted");
    if (add_all(image, &nm, &t, percpu, out))
        return fail(e, "out of memory for the kernel's symbols");
    return 0;
}
