/*
 * Unit tests of lib/fmt.c, the formatter of the Host's fatal messages and
 * of the test guests' output: each conversion against what C's snprintf
 * makes of it, truncation, and the returned length.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../lib/fmt.h"

/* fmt_snprintf() into a roomy buffer equals `want` and returns its length. */
#define FMT_IS(want, ...)                                                  \
    do {                                                                   \
        char buf_[256];                                                    \
        int n_;                                                            \
        memset(buf_, 0x7f, sizeof(buf_));                                  \
        n_ = fmt_snprintf(buf_, sizeof(buf_), __VA_ARGS__);                \
        if (strcmp(buf_, (want)) != 0 || n_ != (int)strlen(want)) {        \
            printf("FAIL %s: got \"%s\" (%d), want \"%s\" at %s:%d\n",     \
                   check_case_name, buf_, n_, (want), __FILE__, __LINE__); \
            check_case_failed = 1;                                         \
            return;                                                        \
        }                                                                  \
    } while (0)

static void plain_text_and_percent(void)
{
    FMT_IS("", "%s", "");
    FMT_IS("hello", "hello");
    FMT_IS("100%", "100%%");
    FMT_IS("%%", "%%%%");
    FMT_IS("a%b", "a%%b");
}

static const char *volatile null_string;

static void strings_and_chars(void)
{
    FMT_IS("[perch]", "[%s]", "perch");
    FMT_IS("a b", "%s %s", "a", "b");
    FMT_IS("(null)", "%s", null_string);
    FMT_IS("xyz", "%c%c%c", 'x', 'y', 'z');
    FMT_IS("<%>", "<%c>", '%');
}

static void signed_decimal(void)
{
    FMT_IS("0", "%d", 0);
    FMT_IS("42", "%d", 42);
    FMT_IS("-42", "%d", -42);
    FMT_IS("-1", "%i", -1);
    FMT_IS("-2147483648", "%d", INT_MIN);
    FMT_IS("2147483647", "%d", INT_MAX);
    FMT_IS("-9223372036854775808", "%ld", LONG_MIN);
    FMT_IS("9223372036854775807", "%ld", LONG_MAX);
    FMT_IS("-5", "%lld", -5ll);
    FMT_IS("-7", "%zd", (ssize_t)-7);
    /* An int's -1 is not sign-extended garbage when read as int. */
    FMT_IS("-1 2", "%d %d", -1, 2);
}

static void unsigned_and_hex(void)
{
    FMT_IS("0", "%u", 0u);
    FMT_IS("4294967295", "%u", UINT_MAX);
    FMT_IS("18446744073709551615", "%lu", ULONG_MAX);
    FMT_IS("123", "%zu", (size_t)123);
    FMT_IS("0", "%x", 0u);
    FMT_IS("deadbeef", "%x", 0xdeadbeefu);
    FMT_IS("ffffffff", "%x", -1);
    FMT_IS("ffffffffffffffff", "%lx", ~0ul);
    FMT_IS("ffff800000000000", "%lx", 0xffff800000000000ul);
    FMT_IS("abc", "%llx", 0xabcull);
}

static void width_and_zero_padding(void)
{
    FMT_IS("0000000000000000", "%016lx", 0ul);
    FMT_IS("00000000000abcde", "%016lx", 0xabcdeul);
    FMT_IS("ffffffff81234567", "%016lx", 0xffffffff81234567ul);
    FMT_IS("  42", "%4d", 42);
    FMT_IS("0042", "%04u", 42u);
    FMT_IS("12345", "%3d", 12345);
    FMT_IS("   ff", "%5x", 0xffu);
    FMT_IS("  -7", "%4d", -7);
}

/* C puts the sign before the zeros: "-042", not "0-42". */
static void zero_padding_negative(void)
{
    FMT_IS("-042", "%04d", -42);
    FMT_IS("-0000001", "%08ld", -1l);
}

static void pointers(void)
{
    FMT_IS("0x1000", "%p", (void *)0x1000);
    FMT_IS("0xffff808000000000", "%p", (void *)0xffff808000000000ul);
    FMT_IS("0x0", "%p", (void *)0);
}

static void mixed(void)
{
    FMT_IS("guest took #PF (vector 14) at rip ffffffff81000000, error 2",
           "guest took %s (vector %lu) at rip %lx, error %lx", "#PF", 14ul,
           0xffffffff81000000ul, 2ul);
    FMT_IS("x=-3 y=ff z=q 50%", "x=%d y=%x z=%c %d%%", -3, 255u, 'q', 50);
}

/* fmt_snprintf without gcc's format checking, for formats it would refuse. */
static int fmt_unchecked(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = fmt_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

/* A trailing '%' ends the output; an unknown conversion is shown as is. */
static void odd_formats(void)
{
    char buf[32];

    CHECK(fmt_unchecked(buf, sizeof(buf), "a%") == 1);
    CHECK(strcmp(buf, "a") == 0);
    CHECK(fmt_unchecked(buf, sizeof(buf), "a%qb") == 4);
    CHECK(strcmp(buf, "a%qb") == 0);
}

/*
 * '#' puts 0x before %x (guests/rt/test.c prints "%ld (%#lx)"): the flag
 * consumes no argument, so the conversions after it take the right ones.
 * Unlike C, "%#x" of 0 is "0x0" (fmt.h: "0x before %x").
 */
static void alternate_form_hex(void)
{
    FMT_IS("got 5 (0x5), want 7 (0x7)", "got %ld (%#lx), want %ld (%#lx)",
           5l, 5l, 7l, 7l);
    FMT_IS("0xffff808000000000", "%#lx", 0xffff808000000000ul);
    FMT_IS("0x0", "%#x", 0u);
}

static void truncation_terminates_and_returns_full_length(void)
{
    char buf[8];
    int n;

    memset(buf, 'Q', sizeof(buf));
    n = fmt_snprintf(buf, sizeof(buf), "%s-%d", "abcdefgh", -12345);
    CHECK(n == 15);
    CHECK(strcmp(buf, "abcdefg") == 0);

    memset(buf, 'Q', sizeof(buf));
    n = fmt_snprintf(buf, 1, "%lx", 0xfffful);
    CHECK(n == 4);
    CHECK(buf[0] == '\0' && buf[1] == 'Q');

    memset(buf, 'Q', sizeof(buf));
    n = fmt_snprintf(buf, 0, "%s", "nothing written");
    CHECK(n == 15);
    CHECK(buf[0] == 'Q');

    memset(buf, 'Q', sizeof(buf));
    n = fmt_snprintf(buf, 5, "%016lx", 1ul);
    CHECK(n == 16);
    CHECK(strcmp(buf, "0000") == 0);
    CHECK(buf[5] == 'Q');

    /* Exactly fitting, and one short. */
    n = fmt_snprintf(buf, 8, "%s", "1234567");
    CHECK(n == 7 && strcmp(buf, "1234567") == 0);
    n = fmt_snprintf(buf, 7, "%s", "1234567");
    CHECK(n == 7 && strcmp(buf, "123456") == 0);
}

/* Against the C library, over many values. */
static void agrees_with_libc(void)
{
    static const long vals[] = {
        0, 1, -1, 9, 10, -10, 255, 256, 65535, 1l << 31, -(1l << 31),
        1l << 32, 0x123456789abcdefl, LONG_MAX, LONG_MIN,
    };
    static const char *const fmts[] = { "%ld", "%lu", "%lx", "%016lx", "%20ld" };

    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
            char want[64], got[64];

            snprintf(want, sizeof(want), fmts[f], vals[i]);
            fmt_snprintf(got, sizeof(got), fmts[f], vals[i]);
            CHECK(strcmp(want, got) == 0);
        }
}

int main(void)
{
    RUN(plain_text_and_percent);
    RUN(strings_and_chars);
    RUN(signed_decimal);
    RUN(unsigned_and_hex);
    RUN(width_and_zero_padding);
    RUN(zero_padding_negative);
    RUN(pointers);
    RUN(mixed);
    RUN(odd_formats);
    RUN(alternate_form_hex);
    RUN(truncation_terminates_and_returns_full_length);
    RUN(agrees_with_libc);
    return check_exit_status();
}
