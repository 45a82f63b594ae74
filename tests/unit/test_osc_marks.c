/*
 * Unit tests of the sequence filter's "mark" kind (launcher/console/osc_filter.c):
 * perchbench's "\033]perch-mark;NAME;begin\007" and ";end\007" are taken
 * out of the guest's output and reported in order, however the output is
 * split; anything else passes through byte for byte. Then both of the
 * console's kinds in one filter.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "../../launcher/console/osc_filter.h"

#define MARK(n, w) "\033]perch-mark;" n ";" w "\007"

static uint8_t out[4096];
static size_t out_len;
static char seen[512];   /* "+pipe -pipe =7 ": + begin, - end, = exit */

static bool take_mark(void *arg, const char *payload)
{
    char name[OSC_MARK_NAME_MAX + 1];
    bool end;

    (void)arg;
    if (!osc_mark(payload, name, &end))
        return false;
    strcat(seen, end ? "-" : "+");
    strcat(seen, name);
    strcat(seen, " ");
    return true;
}

static bool take_exit(void *arg, const char *payload)
{
    int n = osc_exit_status(payload);

    (void)arg;
    if (n >= 0)
        sprintf(seen + strlen(seen), "=%d ", n);
    return n >= 0;
}

static const struct osc_kind kinds[] = {
    { "mark", OSC_MARK_PAYLOAD_MAX, take_mark },
    { "exit", OSC_EXIT_PAYLOAD_MAX, take_exit },
};

/* Feed text in pieces of `step` bytes through a filter of the first
 * nkinds kinds, then flush. */
static void feed_kinds(const char *text, size_t step, size_t nkinds)
{
    struct osc_filter s;
    size_t len = strlen(text);

    osc_filter_init(&s, kinds, nkinds, NULL);
    out_len = 0;
    seen[0] = '\0';
    for (size_t from = 0; from < len; from += step) {
        size_t n = len - from < step ? len - from : step;

        out_len += osc_filter_feed(&s, (const uint8_t *)text + from, n,
                                   out + out_len);
    }
    out_len += osc_filter_flush(&s, out + out_len);
}

/* The mark kind alone. */
static void feed_step(const char *text, size_t step)
{
    feed_kinds(text, step, 1);
}

static bool out_is(const char *want)
{
    return out_len == strlen(want) && !memcmp(out, want, out_len);
}

static void marks_are_taken_out(void)
{
    feed_step("a" MARK("pipe", "begin") "b" MARK("pipe", "end") "c\r\n", 4096);
    CHECK(out_is("abc\r\n"));
    CHECK(!strcmp(seen, "+pipe -pipe "));
}

static void split_anywhere(void)
{
    const char *text = "x" MARK("page-fault_2", "begin") "y" MARK("page-fault_2", "end");

    for (size_t step = 1; step < strlen(text); step++) {
        feed_step(text, step);
        CHECK(out_is("xy"));
        CHECK(!strcmp(seen, "+page-fault_2 -page-fault_2 "));
    }
}

static void near_misses_pass_unchanged(void)
{
    static const char *const misses[] = {
        "\033]perch-mark;pipe;middle\007",
        "\033]perch-mark;;begin\007",
        "\033]perch-mark;pipe\007",
        "\033]perch-mark;a;b;end\007",
        "\033]perch-mark;pi pe;end\007",
        "\033]perch-marx;pipe;end\007",
        "\033]perch-mark;pipe;end",
        "\033[1m\033]perch-exit;3\007",
    };

    for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
        for (size_t step = 1; step <= 3; step++) {
            feed_step(misses[i], step);
            CHECK(out_is(misses[i]));
            CHECK(seen[0] == '\0');
        }
    }
}

static void miss_then_mark(void)
{
    feed_step("\033\033]perch-mark;syscall;end\007!", 2);
    CHECK(out_is("\033!"));
    CHECK(!strcmp(seen, "-syscall "));
}

static void long_name_is_not_a_mark(void)
{
    char text[128] = "\033]perch-mark;";

    memset(text + strlen(text), 'n', OSC_MARK_NAME_MAX + 1);
    strcat(text, ";end\007");
    feed_step(text, 5);
    CHECK(out_is(text));
    CHECK(seen[0] == '\0');
}

/* The console's two kinds in one filter, cut into pieces of every size:
 * each sequence is taken out in order, a near miss of either passes. */
static void both_kinds_in_one_filter(void)
{
    const char *text = "a" MARK("pipe", "begin") "\033]perch-exi" "b"
                       "\033]perch-exit;300\007" MARK("pipe", "end")
                       "\033]perch-ma\033]perch-exit;7\007c";

    for (size_t step = 1; step <= strlen(text); step++) {
        feed_kinds(text, step, 2);
        CHECK(out_is("a\033]perch-exib\033]perch-exit;300\007\033]perch-mac"));
        CHECK(!strcmp(seen, "+pipe -pipe =7 "));
    }
}

int main(void)
{
    RUN(marks_are_taken_out);
    RUN(split_anywhere);
    RUN(near_misses_pass_unchanged);
    RUN(miss_then_mark);
    RUN(long_name_is_not_a_mark);
    RUN(both_kinds_in_one_filter);
    return check_exit_status();
}
