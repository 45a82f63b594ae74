/*
 * The little C library of the test guests: string and memory functions
 * (gcc may emit calls to memset/memcpy/memmove/memcmp even when
 * freestanding) and printf-style formatting.
 */
#ifndef PERCH_RT_LIB_H
#define PERCH_RT_LIB_H

#include <stdarg.h>
#include <stddef.h>

#define RT_PRINTF(f, a) __attribute__((format(printf, f, a)))

void *memset(void *s, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

/*
 * Formatting: %s %c %d %i %u %x %X %p %% with the length modifiers l, ll, z
 * and the flags '-' and '0', a field width and (for %s) a precision, each
 * possibly '*'. Return the length the full output would have; at most
 * size - 1 characters are stored, always NUL-terminated when size > 0.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) RT_PRINTF(3, 4);

/* Format into a buffer and write it with one console_io call (output longer
 * than PRINTK_MAX - 1 bytes is cut and ends in a newline). Returns the
 * number of bytes written. */
#define PRINTK_MAX 512
int vprintk(const char *fmt, va_list ap);
int printk(const char *fmt, ...) RT_PRINTF(1, 2);

#endif
