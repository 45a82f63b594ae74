/*
 * The guest's exit status, told through its console: the bytes
 *
 *     ESC ] p e r c h - e x i t ; N BEL      ("\033]perch-exit;N\007")
 *
 * with N one to three decimal digits, 0-255 (an OSC sequence, which a
 * terminal would swallow anyway). perch's /init writes it before powering
 * off; the Launcher takes it out of the output and, when the guest then
 * powers off, exits with N.
 *
 * The filter sees the output in whatever pieces the rings hand over, so a
 * sequence may be split anywhere: it holds back a possible beginning of
 * one until the bytes after it complete it (it is dropped, N remembered) or
 * rule it out (the held bytes go out unchanged, in order). Anything that
 * is not exactly the sequence passes through byte for byte.
 */
#ifndef PERCH_EXIT_SEQ_H
#define PERCH_EXIT_SEQ_H

#include <stddef.h>
#include <stdint.h>

#define EXIT_SEQ_PREFIX     "\033]perch-exit;"
#define EXIT_SEQ_PREFIX_LEN (sizeof(EXIT_SEQ_PREFIX) - 1)
#define EXIT_SEQ_DIGITS     3
#define EXIT_SEQ_END        '\007'
/* The most bytes a filter holds back: the prefix and the digits. */
#define EXIT_SEQ_HELD_MAX   (EXIT_SEQ_PREFIX_LEN + EXIT_SEQ_DIGITS)

struct exit_seq {
    uint8_t held[EXIT_SEQ_HELD_MAX];
    size_t nheld;
    int status;               /* the last N seen; -1: none yet */
};

void exit_seq_init(struct exit_seq *s);

/* Pass n bytes through the filter into out, which needs room for
 * n + EXIT_SEQ_HELD_MAX bytes. Returns the bytes put into out. */
size_t exit_seq_filter(struct exit_seq *s, const uint8_t *in, size_t n,
                       uint8_t *out);

/* The output ended: give back what is held (a beginning that never got
 * its end) into out (room for EXIT_SEQ_HELD_MAX). Returns its length. */
size_t exit_seq_flush(struct exit_seq *s, uint8_t *out);

#endif
