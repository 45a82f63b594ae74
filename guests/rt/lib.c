/* printk: format with lib/fmt.c and write with one console_io call. */
#include "lib.h"

#include "hypercall.h"

int vprintk(const char *fmt, va_list ap)
{
    char buf[PRINTK_MAX];
    size_t len = (size_t)fmt_vsnprintf(buf, sizeof(buf), fmt, ap);

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
