#include "fmt.h"

#include <stdint.h>

struct out {
    char *buf;
    size_t size;
    size_t len;
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void put_number(struct out *o, uint64_t v, unsigned base, int width,
                       char pad, int negative)
{
    char digits[24];
    int n = 0;

    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (negative && pad == '0')   /* the sign goes before zero padding */
        put(o, '-'), width--;
    else if (negative)
        digits[n++] = '-';
    while (width-- > n)
        put(o, pad);
    while (n)
        put(o, digits[--n]);
}

/* Reads one argument of the size the length modifier says. */
static uint64_t take_unsigned(va_list *ap, int longs)
{
    return longs ? va_arg(*ap, unsigned long) : va_arg(*ap, unsigned int);
}

static int64_t take_signed(va_list *ap, int longs)
{
    return longs ? va_arg(*ap, long) : va_arg(*ap, int);
}

static void put_conversion(struct out *o, char conv, int longs, int width,
                           char pad, int alt, va_list *ap)
{
    const char *s;
    int64_t sv;

    switch (conv) {
    case 'd':
    case 'i':
        sv = take_signed(ap, longs);
        put_number(o, sv < 0 ? -(uint64_t)sv : (uint64_t)sv, 10, width, pad, sv < 0);
        break;
    case 'u':
        put_number(o, take_unsigned(ap, longs), 10, width, pad, 0);
        break;
    case 'x':
        if (alt) {
            put(o, '0');
            put(o, 'x');
        }
        put_number(o, take_unsigned(ap, longs), 16, width, pad, 0);
        break;
    case 'p':
        put(o, '0');
        put(o, 'x');
        put_number(o, (uintptr_t)va_arg(*ap, void *), 16, width, pad, 0);
        break;
    case 'c':
        put(o, (char)va_arg(*ap, int));
        break;
    case 's':
        s = va_arg(*ap, const char *);
        for (s = s ? s : "(null)"; *s; s++)
            put(o, *s);
        break;
    default:
        put(o, '%');
        put(o, conv);
    }
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };
    va_list args;

    va_copy(args, ap);
    for (; *fmt; fmt++) {
        int width = 0, longs = 0, alt = 0;
        char pad = ' ';

        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        if (*++fmt == '%') {
            put(&o, '%');
            continue;
        }
        if (*fmt == '#')
            alt = 1, fmt++;
        if (*fmt == '0')
            pad = '0';
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        while (*fmt == 'l' || *fmt == 'z')
            longs++, fmt++;
        if (!*fmt)
            break;
        put_conversion(&o, *fmt, longs, width, pad, alt, &args);
    }
    va_end(args);
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = fmt_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
