/*
 * The test guests' little C library: perch's freestanding string and
 * formatting code (lib/) plus printk, which writes through console_io.
 */
#ifndef PERCH_RT_LIB_H
#define PERCH_RT_LIB_H

#include <stdarg.h>
#include <stddef.h>

#include "../../lib/fmt.h"
#include "../../lib/str.h"

#define RT_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Format into a buffer and write it with one console_io call (output longer
 * than PRINTK_MAX - 1 bytes is cut and ends in a newline). Returns the
 * number of bytes written. */
#define PRINTK_MAX 512
int vprintk(const char *fmt, va_list ap);
int printk(const char *fmt, ...) RT_PRINTF(1, 2);

#endif
