/*
 * Counter brackets, told through the guest's console: the bytes
 *
 *     ESC ] p e r c h - m a r k ; NAME ; begin BEL
 *     ESC ] p e r c h - m a r k ; NAME ; end BEL
 *
 * ("\033]perch-mark;pipe;begin\007"), with NAME 1 to MARK_SEQ_NAME_MAX of
 * [A-Za-z0-9_.-]. perchbench --marks writes them around each benchmark;
 * the Launcher takes them out of the output and, for `perch bench`,
 * snapshots its counters at each one (bench.h).
 *
 * Like the exit-status filter (exit_seq.h), and after it, this filter sees
 * the output in any pieces: it holds back a possible beginning of a mark
 * until the bytes after it complete it (dropped, reported to on_mark) or
 * rule it out (the held bytes go out unchanged, in order).
 */
#ifndef PERCH_MARK_SEQ_H
#define PERCH_MARK_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MARK_SEQ_PREFIX     "\033]perch-mark;"
#define MARK_SEQ_PREFIX_LEN (sizeof(MARK_SEQ_PREFIX) - 1)
#define MARK_SEQ_NAME_MAX   32
#define MARK_SEQ_END        '\007'
/* The most bytes a filter holds back: prefix, NAME, ";begin". */
#define MARK_SEQ_HELD_MAX   (MARK_SEQ_PREFIX_LEN + MARK_SEQ_NAME_MAX + 6)

/* A complete mark: name is NUL-ended; end is false for "begin". */
typedef void mark_seq_fn(void *arg, const char *name, bool end);

struct mark_seq {
    uint8_t held[MARK_SEQ_HELD_MAX];
    size_t nheld;
    mark_seq_fn *on_mark;     /* may be NULL: marks are dropped all the same */
    void *arg;
};

void mark_seq_init(struct mark_seq *s, mark_seq_fn *on_mark, void *arg);

/* Pass n bytes through into out, which needs room for n +
 * MARK_SEQ_HELD_MAX bytes. Returns the bytes put into out. */
size_t mark_seq_filter(struct mark_seq *s, const uint8_t *in, size_t n,
                       uint8_t *out);

/* The output ended: give back what is held into out (room for
 * MARK_SEQ_HELD_MAX). Returns its length. */
size_t mark_seq_flush(struct mark_seq *s, uint8_t *out);

#endif
