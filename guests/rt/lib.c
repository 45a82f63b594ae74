/*
 * String and memory functions, and the formatter behind printk.
 */
#include <stdbool.h>
#include <stdint.h>

#include "hypercall.h"
#include "lib.h"

/* rep movsb/stosb rather than C loops, which gcc could turn back into calls
 * to these very functions. */
void *memset(void *s, int c, size_t n)
{
    void *d = s;

    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return s;
}

void *memcpy(void *dst, const void *src, size_t n)
{
    void *d = dst;

    __asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    if ((uintptr_t)dst - (uintptr_t)src >= n)   /* no harmful overlap */
        return memcpy(dst, src, n);
    if (n) {                                    /* copy backwards */
        char *d = (char *)dst + n - 1;
        const char *s = (const char *)src + n - 1;

        __asm__ volatile("std; rep movsb; cld"
                         : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;

    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            break;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}

char *strstr(const char *haystack, const char *needle)
{
    size_t n = strlen(needle);

    for (; *haystack; haystack++)
        if (!strncmp(haystack, needle, n))
            return (char *)haystack;
    return n ? NULL : (char *)haystack;
}

/* ---- Formatting ---- */

struct out {
    char *buf;
    size_t size;
    size_t len;    /* what the full output would take */
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void pad(struct out *o, char c, int n)
{
    while (n-- > 0)
        put(o, c);
}

struct spec {
    bool left, zero, alt;
    int width;
    int prec;      /* -1: none */
};

static void put_str(struct out *o, const char *s, const struct spec *sp)
{
    size_t n;

    if (!s)
        s = "(null)";
    n = sp->prec >= 0 ? strnlen(s, (size_t)sp->prec) : strlen(s);
    if (!sp->left)
        pad(o, ' ', sp->width - (int)n);
    for (size_t i = 0; i < n; i++)
        put(o, s[i]);
    if (sp->left)
        pad(o, ' ', sp->width - (int)n);
}

static void put_num(struct out *o, unsigned long long v, unsigned int base,
                    bool neg, bool upper, const char *prefix,
                    const struct spec *sp)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[24];
    int n = 0, plen = (int)strlen(prefix) + neg, fill;

    do {
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v);

    fill = sp->width - n - plen;
    if (!sp->left && !sp->zero)
        pad(o, ' ', fill);
    if (neg)
        put(o, '-');
    while (*prefix)
        put(o, *prefix++);
    if (!sp->left && sp->zero)
        pad(o, '0', fill);
    while (n)
        put(o, tmp[--n]);
    if (sp->left)
        pad(o, ' ', fill);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };

    for (; *fmt; fmt++) {
        struct spec sp = { .prec = -1 };
        int lng = 0;
        unsigned long long u;
        long long s;

        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        for (;; fmt++) {                        /* flags */
            if (fmt[1] == '-')
                sp.left = true;
            else if (fmt[1] == '0')
                sp.zero = true;
            else if (fmt[1] == '#')
                sp.alt = true;
            else
                break;
        }
        fmt++;
        if (*fmt == '*') {                      /* width */
            sp.width = va_arg(ap, int);
            if (sp.width < 0) {
                sp.left = true;
                sp.width = -sp.width;
            }
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                sp.width = sp.width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {                      /* precision */
            fmt++;
            sp.prec = 0;
            if (*fmt == '*') {
                sp.prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    sp.prec = sp.prec * 10 + (*fmt++ - '0');
            }
        }
        while (*fmt == 'l' || *fmt == 'z') {    /* length */
            lng++;
            fmt++;
        }

        switch (*fmt) {
        case 'd':
        case 'i':
            s = lng ? va_arg(ap, long long) : va_arg(ap, int);
            u = s < 0 ? -(unsigned long long)s : (unsigned long long)s;
            put_num(&o, u, 10, s < 0, false, "", &sp);
            break;
        case 'u':
        case 'x':
        case 'X':
            u = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
            if (*fmt == 'u')
                put_num(&o, u, 10, false, false, "", &sp);
            else
                put_num(&o, u, 16, false, *fmt == 'X',
                        sp.alt ? (*fmt == 'X' ? "0X" : "0x") : "", &sp);
            break;
        case 'p':
            u = (uintptr_t)va_arg(ap, void *);
            sp.zero = true;
            if (sp.width < 18)
                sp.width = 18;
            put_num(&o, u, 16, false, false, "0x", &sp);
            break;
        case 'c':
            put(&o, (char)va_arg(ap, int));
            break;
        case 's':
            put_str(&o, va_arg(ap, const char *), &sp);
            break;
        case '%':
            put(&o, '%');
            break;
        case '\0':                              /* lone '%' at the end */
            put(&o, '%');
            fmt--;
            break;
        default:                                /* unknown: print it as is */
            put(&o, '%');
            put(&o, *fmt);
            break;
        }
    }
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

int vprintk(const char *fmt, va_list ap)
{
    char buf[PRINTK_MAX];
    size_t len = (size_t)vsnprintf(buf, sizeof(buf), fmt, ap);

    if (len >= sizeof(buf)) {                   /* cut: end the line anyway */
        len = sizeof(buf) - 1;
        buf[len - 1] = '\n';
    }
    if (len)
        hc_console_write(buf, len);
    return (int)len;
}

int printk(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vprintk(fmt, ap);
    va_end(ap);
    return n;
}
