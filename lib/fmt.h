/*
 * printf-style formatting for freestanding code (the Host, the test
 * guests): %s %c %d %i %u %x %p %%, the l/ll/z length modifiers, a field
 * width, '0' padding and '#' (0x before %x). Always NUL-terminates; returns the length it
 * would have written, like vsnprintf.
 */
#ifndef PERCH_FMT_H
#define PERCH_FMT_H

#include <stdarg.h>
#include <stddef.h>

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
