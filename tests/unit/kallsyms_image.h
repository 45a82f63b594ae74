/*
 * A kernel image's kallsyms tables made by hand, in the layout
 * launcher/symbols/kallsyms.h describes (Linux 6.1's, with or without the
 * seqs_of_names block), for the unit tests and the fuzz harness's seeds.
 * Names are given with their type letter first ("Tpanic") and spelled
 * with the builder's own tokens: printable bytes stand for themselves,
 * and a few bytes for longer strings, so expansion is exercised.
 */
#ifndef PERCH_TEST_KALLSYMS_IMAGE_H
#define PERCH_TEST_KALLSYMS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ks_symbol {
    uint64_t addr;
    const char *name;          /* type letter, then the name */
};

struct ks_layout {
    uint64_t relative_base;
    bool absolute_percpu;      /* Debian's: kernel addresses as negatives */
    bool seqs_of_names;        /* Debian's 6.1 has the block */
};

/* Where the builder put each table, for tests that corrupt one. */
struct ks_offsets {
    size_t offsets, relative_base, num_syms, names, markers, token_table,
           token_index, end;
};

/* Write the tables for syms (sorted by address) into out (cap bytes,
 * 8-aligned), after a decoy "0\0".."9\0" run that is no token table.
 * Returns the bytes written, 0 if cap is too small or a name cannot be
 * spelled. */
size_t ks_build(uint8_t *out, size_t cap, const struct ks_symbol *syms,
                uint32_t n, const struct ks_layout *layout,
                struct ks_offsets *where);

#endif
