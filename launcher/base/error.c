/* fail(): one line of what went wrong, safe to print whatever it quotes. */
#include "error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * Messages quote bytes perch does not control (a kernel's note strings,
 * file names, words of the command line), and none of them may move the
 * cursor, clear the screen or start a second line: every byte outside
 * printable ASCII becomes \xNN. Printable text comes out unchanged, so a
 * message that quotes another message is not escaped twice. Cut, if need
 * be, at a whole character.
 */
static void printable(char *dst, size_t size, const char *src)
{
    size_t n = 0;

    for (; *src; src++) {
        unsigned char c = *src;
        bool plain = c >= 0x20 && c < 0x7f;

        if (n + (plain ? 1 : 4) >= size)
            break;
        if (plain)
            dst[n++] = c;
        else
            n += snprintf(dst + n, size - n, "\\x%02x", c);
    }
    dst[n] = '\0';
}

int fail(struct error *e, const char *fmt, ...)
{
    char raw[sizeof(e->msg)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    printable(e->msg, sizeof(e->msg), raw);
    return -1;
}
