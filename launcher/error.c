#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int fail(struct error *e, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}
