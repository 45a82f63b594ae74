/* Hand-made kallsyms tables (kallsyms_image.h). */
#include "kallsyms_image.h"

#include <string.h>

/* Bytes that stand for longer strings; every other byte for itself
 * (non-printable ones for "#", which no name here uses). */
static const struct { uint8_t byte; const char *text; } long_tokens[] = {
    { 0x01, "Tpan" }, { 0x02, "ic" }, { 0x80, "xen_" }, { 0x81, "_handle_" },
};

static const char *token(unsigned b, char *one)
{
    for (size_t i = 0; i < sizeof(long_tokens) / sizeof(long_tokens[0]); i++)
        if (long_tokens[i].byte == b)
            return long_tokens[i].text;
    one[0] = b > 0x20 && b < 0x7f ? (char)b : '#';
    one[1] = '\0';
    return one;
}

struct writer {
    uint8_t *out;
    size_t cap, pos;
    bool full;
};

static void put(struct writer *w, const void *bytes, size_t n)
{
    if (w->full || n > w->cap - w->pos) {
        w->full = true;
        return;
    }
    memcpy(w->out + w->pos, bytes, n);
    w->pos += n;
}

static void put_le(struct writer *w, uint64_t v, unsigned bytes)
{
    uint8_t b[8];

    for (unsigned i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, bytes);
}

static void align8(struct writer *w)
{
    while (w->pos % 8 && !w->full)
        put_le(w, 0, 1);
}

/* The name spelled in tokens, longest first; 0 if a character has none. */
static size_t spell(const char *name, uint8_t *out, size_t cap)
{
    size_t n = 0;

    while (*name) {
        size_t k = 0;
        unsigned byte = (unsigned char)*name;

        for (size_t i = 0; i < sizeof(long_tokens) / sizeof(long_tokens[0]); i++) {
            size_t len = strlen(long_tokens[i].text);

            if (len > k && !strncmp(name, long_tokens[i].text, len)) {
                k = len;
                byte = long_tokens[i].byte;
            }
        }
        if (!k) {
            if (byte <= 0x20 || byte >= 0x7f)
                return 0;
            k = 1;
        }
        if (n == cap)
            return 0;
        out[n++] = (uint8_t)byte;
        name += k;
    }
    return n;
}

static int32_t offset_for(uint64_t addr, const struct ks_layout *l)
{
    if (!l->absolute_percpu)
        return (int32_t)(uint32_t)(addr - l->relative_base);
    if (addr < l->relative_base)
        return (int32_t)addr;   /* a per-CPU symbol: absolute */
    return (int32_t)-(int64_t)(addr - l->relative_base + 1);
}

static bool put_names(struct writer *w, const struct ks_symbol *syms, uint32_t n,
                      uint32_t *markers)
{
    size_t start = w->pos;
    uint8_t spelled[1024];

    for (uint32_t i = 0; i < n; i++) {
        size_t len = spell(syms[i].name, spelled, sizeof(spelled));

        if (!len)
            return false;
        if (i % 256 == 0)
            markers[i / 256] = (uint32_t)(w->pos - start);
        if (len > 0x7f) {
            put_le(w, (len & 0x7f) | 0x80, 1);
            put_le(w, len >> 7, 1);
        } else {
            put_le(w, len, 1);
        }
        put(w, spelled, len);
    }
    return true;
}

static void put_tokens(struct writer *w, struct ks_offsets *o)
{
    uint16_t index[256];
    char one[2];

    align8(w);
    o->token_table = w->pos;
    for (unsigned b = 0; b < 256; b++) {
        const char *t = token(b, one);

        index[b] = (uint16_t)(w->pos - o->token_table);
        put(w, t, strlen(t) + 1);
    }
    align8(w);
    o->token_index = w->pos;
    for (unsigned b = 0; b < 256; b++)
        put_le(w, index[b], 2);
}

size_t ks_build(uint8_t *out, size_t cap, const struct ks_symbol *syms,
                uint32_t n, const struct ks_layout *layout,
                struct ks_offsets *where)
{
    static const char decoy[] = "0\0" "1\0" "2\0" "3\0" "4\0"
                                "5\0" "6\0" "7\0" "8\0" "9";
    struct writer w = { .out = out, .cap = cap };
    struct ks_offsets o;
    uint32_t markers[1u << 12];

    if (n > 256u * (sizeof(markers) / sizeof(markers[0])))
        return 0;
    put(&w, "kernel text and data ...", 24);
    put(&w, decoy, sizeof(decoy));
    align8(&w);
    o.offsets = w.pos;
    for (uint32_t i = 0; i < n; i++)
        put_le(&w, (uint32_t)offset_for(syms[i].addr, layout), 4);
    align8(&w);
    o.relative_base = w.pos;
    put_le(&w, layout->relative_base, 8);
    o.num_syms = w.pos;
    put_le(&w, n, 4);
    align8(&w);
    o.names = w.pos;
    if (!put_names(&w, syms, n, markers))
        return 0;
    align8(&w);
    o.markers = w.pos;
    for (uint32_t i = 0; i < (n + 255) / 256; i++)
        put_le(&w, markers[i], 4);
    if (layout->seqs_of_names) {
        align8(&w);
        for (uint32_t i = 0; i < n; i++)
            put_le(&w, n - 1 - i, 3);   /* any order: perch does not read it */
    }
    put_tokens(&w, &o);
    put(&w, "more rodata", 11);
    o.end = w.pos;
    if (where)
        *where = o;
    return w.full ? 0 : w.pos;
}
