/*
 * Test reporting: one "PASS guest/name" or "FAIL guest/name: reason" line
 * per result, each written with a single console_io call.
 */
#include "rt.h"

unsigned int tests_passed, tests_failed;

void test_pass(const char *name)
{
    tests_passed++;
    printk("PASS %s/%s\n", guest_name, name);
}

static void vfail(const char *name, const char *fmt, va_list ap)
{
    char reason[PRINTK_MAX / 2];

    fmt_vsnprintf(reason, sizeof(reason), fmt, ap);
    for (char *p = reason; *p; p++)   /* the result must stay one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    tests_failed++;
    printk("FAIL %s/%s: %s\n", guest_name, name, reason);
}

void test_fail(const char *name, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail(name, fmt, ap);
    va_end(ap);
}

bool check(const char *name, bool cond, const char *fmt, ...)
{
    va_list ap;

    if (cond) {
        test_pass(name);
        return true;
    }
    va_start(ap, fmt);
    vfail(name, fmt, ap);
    va_end(ap);
    return false;
}

bool check_eq(const char *name, long got, long want)
{
    return check(name, got == want, "got %ld (%#lx), want %ld (%#lx)",
                 got, got, want, want);
}

bool expect_eq(const char *name, const char *what, long got, long want)
{
    if (got == want)
        return true;
    test_fail(name, "%s: got %ld (%#lx), want %ld (%#lx)",
              what, got, got, want, want);
    return false;
}

bool expect(const char *name, bool cond, const char *fmt, ...)
{
    va_list ap;

    if (cond)
        return true;
    va_start(ap, fmt);
    vfail(name, fmt, ap);
    va_end(ap);
    return false;
}
