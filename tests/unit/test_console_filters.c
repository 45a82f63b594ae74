/*
 * Unit tests of the console's two filters: the guest's exit-status
 * sequence "\033]perch-exit;N\007" taken out of its output by the
 * sequence filter (launcher/console/osc_filter.c, kind "exit"), however the output
 * is split, and the Ctrl-A commands taken out of typed input
 * (launcher/console/keys.c).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"

#include "../../launcher/console/keys.h"
#include "../../launcher/console/osc_filter.h"

#define SEQ(n) "\033]perch-exit;" n "\007"
/* The most an exit sequence holds back: its prefix and three digits. */
#define EXIT_HELD_MAX (sizeof("\033]perch-exit;") - 1 + OSC_EXIT_PAYLOAD_MAX)

/* ---- the exit kind ---- */

static uint8_t out[4096];
static size_t out_len;
static int status;        /* the last N taken; -1: none */

static bool take_exit(void *arg, const char *payload)
{
    int n = osc_exit_status(payload);

    (void)arg;
    if (n >= 0)
        status = n;
    return n >= 0;
}

static const struct osc_kind exit_kind[] = {
    { "exit", OSC_EXIT_PAYLOAD_MAX, take_exit },
};

static void start(struct osc_filter *s)
{
    osc_filter_init(s, exit_kind, 1, NULL);
    status = -1;
}

/* Feed `text` in pieces cut at `cuts` (ascending offsets), then flush. */
static int feed_cut(struct osc_filter *s, const char *text, const size_t *cuts,
                    size_t ncuts)
{
    size_t len = strlen(text), from = 0;

    start(s);
    out_len = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;

        out_len += osc_filter_feed(s, (const uint8_t *)text + from, to - from,
                                   out + out_len);
        from = to;
    }
    out_len += osc_filter_flush(s, out + out_len);
    return status;
}

static int feed(struct osc_filter *s, const char *text)
{
    return feed_cut(s, text, NULL, 0);
}

static bool out_is(const char *want)
{
    return out_len == strlen(want) && memcmp(out, want, out_len) == 0;
}

static void plain_text_passes(void)
{
    struct osc_filter s;

    CHECK(feed(&s, "Hello\r\nworld\n") == -1);
    CHECK(out_is("Hello\r\nworld\n"));
}

static void sequence_is_taken_out(void)
{
    struct osc_filter s;

    CHECK(feed(&s, "bye" SEQ("7") "\r\n") == 7);
    CHECK(out_is("bye\r\n"));
    CHECK(feed(&s, SEQ("0")) == 0);
    CHECK(out_is(""));
    CHECK(feed(&s, SEQ("255")) == 255);
    CHECK(feed(&s, SEQ("042")) == 42);
}

static void last_sequence_wins(void)
{
    struct osc_filter s;

    CHECK(feed(&s, SEQ("1") "a" SEQ("2") "b") == 2);
    CHECK(out_is("ab"));
}

/* The sequence and text around it, cut into two pieces at every offset
 * and into three at every pair of offsets. */
static void split_at_every_boundary(void)
{
    const char *text = "x\033[1m" SEQ("42") "\033y";
    size_t len = strlen(text);
    struct osc_filter s;

    for (size_t i = 0; i <= len; i++) {
        CHECK(feed_cut(&s, text, &i, 1) == 42);
        CHECK(out_is("x\033[1m\033y"));
        for (size_t j = i; j <= len; j++) {
            size_t cuts[2] = { i, j };

            CHECK(feed_cut(&s, text, cuts, 2) == 42);
            CHECK(out_is("x\033[1m\033y"));
        }
    }
}

static void byte_by_byte(void)
{
    const char *text = "abc" SEQ("9") "def";
    size_t cuts[64], n = strlen(text) - 1;
    struct osc_filter s;

    for (size_t i = 0; i < n; i++)
        cuts[i] = i + 1;
    CHECK(feed_cut(&s, text, cuts, n) == 9);
    CHECK(out_is("abcdef"));
}

/* Anything that is not exactly the sequence goes out unchanged, split or
 * not. */
static void near_misses_pass_unchanged(void)
{
    static const char *const misses[] = {
        "\033]perch-exit;\007",         /* no digits */
        "\033]perch-exit;256\007",      /* not a status */
        "\033]perch-exit;1234\007",     /* too many digits */
        "\033]perch-exit;12x\007",
        "\033]perch-exit;-1\007",
        "\033]perch-exit:1\007",
        "\033]perch-exi",               /* cut off at the end */
        "\033]perch-exit;3",            /* no BEL */
        "\033]0;title\007",             /* another OSC */
        "\033[31mred\033[0m",
        "\033",
        "]perch-exit;1\007",            /* no ESC */
    };
    struct osc_filter s;

    for (size_t m = 0; m < sizeof(misses) / sizeof(misses[0]); m++) {
        size_t len = strlen(misses[m]);

        for (size_t i = 0; i <= len; i++) {
            CHECK(feed_cut(&s, misses[m], &i, 1) == -1);
            CHECK(out_is(misses[m]));
        }
    }
}

/* An ESC that breaks off a beginning may begin the real thing. */
static void restart_inside_a_miss(void)
{
    struct osc_filter s;

    CHECK(feed(&s, "\033" SEQ("3")) == 3);
    CHECK(out_is("\033"));
    CHECK(feed(&s, "\033]perch" SEQ("4") "!") == 4);
    CHECK(out_is("\033]perch!"));
    CHECK(feed(&s, "\033]perch-exit;1" SEQ("5")) == 5);
    CHECK(out_is("\033]perch-exit;1"));
}

/* A beginning is held back, not lost, until the rest comes. */
static void held_until_decided(void)
{
    struct osc_filter s;
    size_t n;

    start(&s);
    n = osc_filter_feed(&s, (const uint8_t *)"ok\033]perch", 9, out);
    CHECK(n == 2 && memcmp(out, "ok", 2) == 0);
    CHECK(s.nheld == 7);
    n = osc_filter_feed(&s, (const uint8_t *)"-exit;12", 8, out);
    CHECK(n == 0);
    CHECK(s.nheld == EXIT_HELD_MAX - 1);
    n = osc_filter_feed(&s, (const uint8_t *)"3", 1, out);
    CHECK(n == 0 && s.nheld == EXIT_HELD_MAX);
    n = osc_filter_feed(&s, (const uint8_t *)"4", 1, out);
    CHECK(n == EXIT_HELD_MAX + 1);
    CHECK(memcmp(out, "\033]perch-exit;1234", n) == 0);
    CHECK(status == -1 && s.nheld == 0);
}

/* The worst case of output per call: everything held plus the input. */
static void output_bound(void)
{
    struct osc_filter s;
    uint8_t big[OSC_HELD_MAX + 5];
    size_t n;

    start(&s);
    CHECK(osc_filter_feed(&s, (const uint8_t *)"\033]perch-exit;12", 15, big) == 0);
    n = osc_filter_feed(&s, (const uint8_t *)"abcde", 5, big);
    CHECK(n == 15 + 5);
    CHECK(n <= 5 + OSC_HELD_MAX);
}

/* ---- keys ---- */

static uint8_t typed[256];
static size_t typed_len;

static unsigned type(struct keys *k, const char *in, size_t n)
{
    unsigned commands;

    typed_len = keys_filter(k, (const uint8_t *)in, n, typed, &commands);
    return commands;
}

static void keys_pass_through(void)
{
    struct keys k = { 0 };

    CHECK(type(&k, "uname -a\r\003\004", 11) == KEYS_NONE);
    CHECK(typed_len == 11 && memcmp(typed, "uname -a\r\003\004", 11) == 0);
}

static void ctrl_a_x_quits(void)
{
    struct keys k = { 0 };

    CHECK(type(&k, "ab\001xcd", 6) == KEYS_QUIT);
    CHECK(typed_len == 2 && memcmp(typed, "ab", 2) == 0);
}

static void ctrl_a_ctrl_a_sends_one(void)
{
    struct keys k = { 0 };

    CHECK(type(&k, "a\001\001b", 4) == KEYS_NONE);
    CHECK(typed_len == 3 && memcmp(typed, "a\001b", 3) == 0);
    /* ... and the key after it is an ordinary key again. */
    CHECK(type(&k, "\001\001x", 3) == KEYS_NONE);
    CHECK(typed_len == 2 && memcmp(typed, "\001x", 2) == 0);
}

static void ctrl_a_split_across_reads(void)
{
    struct keys k = { 0 };

    CHECK(type(&k, "ls\001", 3) == KEYS_NONE);
    CHECK(typed_len == 2);
    CHECK(type(&k, "x", 1) == KEYS_QUIT);
    CHECK(typed_len == 0);
    k = (struct keys){ 0 };
    CHECK(type(&k, "\001", 1) == KEYS_NONE);
    CHECK(type(&k, "\001", 1) == KEYS_NONE);
    CHECK(typed_len == 1 && typed[0] == 1);
}

static void ctrl_a_help_and_unknown(void)
{
    struct keys k = { 0 };

    CHECK(type(&k, "\001h", 2) == KEYS_HELP);
    CHECK(typed_len == 0);
    CHECK(type(&k, "\001?z", 3) == KEYS_HELP);
    CHECK(typed_len == 1 && typed[0] == 'z');
    CHECK(type(&k, "\001q\001X", 4) == KEYS_NONE);   /* dropped */
    CHECK(typed_len == 0);
    CHECK(strstr(keys_help, "Ctrl-A x") != NULL);
}

int main(void)
{
    RUN(plain_text_passes);
    RUN(sequence_is_taken_out);
    RUN(last_sequence_wins);
    RUN(split_at_every_boundary);
    RUN(byte_by_byte);
    RUN(near_misses_pass_unchanged);
    RUN(restart_inside_a_miss);
    RUN(held_until_decided);
    RUN(output_bound);
    RUN(keys_pass_through);
    RUN(ctrl_a_x_quits);
    RUN(ctrl_a_ctrl_a_sends_one);
    RUN(ctrl_a_split_across_reads);
    RUN(ctrl_a_help_and_unknown);
    return check_exit_status();
}
