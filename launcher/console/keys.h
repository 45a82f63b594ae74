/*
 * perch's commands at the terminal, typed as in QEMU's -nographic:
 *
 *     Ctrl-A x        quit perch (the guest is stopped; status 0)
 *     Ctrl-A Ctrl-A   send one Ctrl-A to the guest
 *     Ctrl-A h or ?   list these on stderr
 *
 * Ctrl-A followed by any other key sends nothing. Only input from a
 * terminal goes through here: piped input reaches the guest byte for byte.
 * The Ctrl-A may come in one read and its key in the next.
 */
#ifndef PERCH_KEYS_H
#define PERCH_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEYS_ESCAPE 0x01      /* Ctrl-A */

enum keys_command {
    KEYS_NONE = 0,
    KEYS_HELP = 1,            /* bits: a read may hold several */
    KEYS_QUIT = 2,
};

struct keys {
    bool escaped;             /* the last byte was an unpaired Ctrl-A */
};

/* Filter n typed bytes into out (room for n): the bytes for the guest.
 * Returns their count; *commands gets the KEYS_ bits typed. Bytes after a
 * quit are dropped. */
size_t keys_filter(struct keys *k, const uint8_t *in, size_t n, uint8_t *out,
                   unsigned *commands);

/* What Ctrl-A h prints. */
extern const char keys_help[];

#endif
