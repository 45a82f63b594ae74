/*
 * Unit tests of the console back end's thread (launcher/console/console.c) with
 * stand-ins for the guest: a perch_shared and a console page on the heap,
 * an eventfd for the doorbell, pipes for stdout and stdin. Output from both
 * rings reaches stdout in order with the exit-status sequence taken out;
 * stdin reaches in[] as there is room, each batch followed by a
 * notification of the guest; corrupted indices and Ctrl-A x stop the guest
 * (console_verdict) and kick the vCPU thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#include "../../launcher/console/console.h"
#include "../../launcher/base/status.h"

#define SEQ(n) "\033]perch-exit;" n "\007"
#define WAIT_MS 5000

static struct perch_shared *sh;
static struct xencons_interface *page;
static struct console con;
static int doorbell = -1, out_rd = -1, out_wr = -1, in_rd = -1, in_wr = -1;
static atomic_uint notified;
static uint8_t immediate_exit;
static volatile sig_atomic_t kicked;
static char got[65536];
static size_t got_len;

static void on_usr1(int sig)
{
    (void)sig;
    kicked = 1;
}

static void notify(void *arg)
{
    (void)arg;
    atomic_fetch_add(&notified, 1);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void teardown(void)
{
    close_fd(&doorbell);
    close_fd(&out_rd);
    close_fd(&out_wr);
    close_fd(&in_rd);
    close_fd(&in_wr);
    free(sh);
    free(page);
    sh = NULL;
    page = NULL;
}

/* A fresh console; with_page: hvc0 exists; keys: stdin is "a terminal". */
static int start(bool with_page, bool keys)
{
    int p[2];
    struct console_config cfg;

    teardown();
    sh = calloc(1, sizeof(*sh));
    page = calloc(1, sizeof(*page));
    doorbell = eventfd(0, EFD_NONBLOCK);
    if (pipe(p))
        return -1;
    out_rd = p[0], out_wr = p[1];
    fcntl(out_rd, F_SETFL, O_NONBLOCK);
    if (pipe(p))
        return -1;
    in_rd = p[0], in_wr = p[1];
    atomic_store(&notified, 0);
    immediate_exit = 0;
    kicked = 0;
    got_len = 0;
    cfg = (struct console_config){
        .shared = sh, .hvc_page = with_page ? page : NULL,
        .doorbell_fd = doorbell, .out_fd = out_wr, .in_fd = in_rd,
        .keys = keys, .notify_guest = notify,
        .vcpu_immediate_exit = &immediate_exit,
    };
    return console_start(&con, &cfg);
}

static void ring_doorbell(void)
{
    uint64_t one = 1;

    if (write(doorbell, &one, sizeof(one)) != sizeof(one))
        abort();
}

/* The guest's (or the Host's) side: bytes, then the index, released. */
static void early_put(const char *s)
{
    uint32_t prod = sh->console_prod;

    for (; *s; s++)
        sh->console_ring[prod++ % PERCH_CONSOLE_RING_BYTES] = *s;
    __atomic_store_n(&sh->console_prod, prod, __ATOMIC_RELEASE);
}

static void early_write(const char *s)
{
    early_put(s);
    ring_doorbell();
}

/* An index the console thread writes, read by the guest stand-in. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

static void hvc_put(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        page->out[(page->out_prod + i) % XENCONS_OUT_BYTES] = s[i];
    __atomic_store_n(&page->out_prod, page->out_prod + n, __ATOMIC_RELEASE);
}

static void hvc_write(const char *s)
{
    hvc_put(s, strlen(s));
    ring_doorbell();
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

    nanosleep(&t, NULL);
}

/* Collect stdout until it holds `want` bytes (or WAIT_MS pass). */
static bool collect(size_t want)
{
    for (int ms = 0; ms < WAIT_MS && got_len < want; ms++) {
        ssize_t n = read(out_rd, got + got_len, sizeof(got) - got_len);

        if (n > 0)
            got_len += n;
        else
            sleep_ms(1);
    }
    return got_len == want;
}

static bool got_is(const char *want)
{
    return got_len == strlen(want) && memcmp(got, want, got_len) == 0;
}

/* Wait for a condition the console thread makes true. */
#define WAIT_FOR(cond)                                          \
    __extension__({                                             \
        int ms_ = 0;                                            \
        while (!(cond) && ms_++ < WAIT_MS)                      \
            sleep_ms(1);                                        \
        (cond);                                                 \
    })

static void typed(const char *s, size_t n)
{
    if (write(in_wr, s, n) != (ssize_t)n)
        abort();
}

/* ---- Output ---- */

static void both_rings_in_order(void)
{
    CHECK(start(true, false) == 0);
    early_write("early 1\n");
    CHECK(collect(8));
    hvc_write("hvc 1\r\n");
    CHECK(collect(15));
    early_write("early 2\n");
    CHECK(collect(23));
    CHECK(got_is("early 1\nhvc 1\r\nearly 2\n"));
    CHECK(console_stop(&con) == 0);
    CHECK(console_exit_status(&con) == -1);
}

/* The thread says it sleeps before it does (the Host rings only then,
 * clearing the word), and says so again before each next sleep. */
static void asleep_is_said_before_each_sleep(void)
{
    CHECK(start(true, false) == 0);
    CHECK(WAIT_FOR(LOAD(sh->console_asleep) == 1));
    __atomic_store_n(&sh->console_asleep, 0, __ATOMIC_SEQ_CST);   /* the Host rang */
    early_put("no bell\n");                  /* came before the look */
    hvc_write("bell\r\n");
    CHECK(collect(14));
    CHECK(got_is("no bell\nbell\r\n"));
    CHECK(WAIT_FOR(LOAD(sh->console_asleep) == 1));
    CHECK(console_stop(&con) == 0);
}

/* Written before one wake-up: the early console goes first. */
static void early_console_first_in_one_batch(void)
{
    CHECK(start(true, false) == 0);
    hvc_put("second\n", 7);
    early_put("first\n");
    ring_doorbell();
    CHECK(collect(13));
    CHECK(got_is("first\nsecond\n"));
    CHECK(console_stop(&con) == 0);
}

static void output_wraps_the_ring(void)
{
    char line[100];
    size_t total = 0;

    CHECK(start(true, false) == 0);
    for (int i = 0; i < 200; i++) {
        snprintf(line, sizeof(line), "line %03d of the hvc0 wrap test\n", i);
        hvc_write(line);
        total += strlen(line);
        CHECK(collect(total));   /* the guest waits for room, too */
    }
    CHECK(LOAD(page->out_cons) == total && total > 2 * XENCONS_OUT_BYTES);
    CHECK(strncmp(got + total - strlen(line), line, strlen(line)) == 0);
    CHECK(console_stop(&con) == 0);
}

/* Split over two wake-ups, the sequence still goes, N stays. */
static void exit_sequence_split_across_reads(void)
{
    CHECK(start(true, false) == 0);
    hvc_write("bye\r\n\033]perch-ex");
    CHECK(collect(5));
    hvc_write("it;3\007");
    early_write("after\n");
    CHECK(collect(11));
    CHECK(console_stop(&con) == 0);
    CHECK(got_is("bye\r\nafter\n"));
    CHECK(console_exit_status(&con) == 3);
}

static void exit_sequence_in_the_early_console(void)
{
    CHECK(start(false, false) == 0);
    early_write("x" SEQ("17") "y");
    CHECK(collect(2));
    CHECK(console_stop(&con) == 0);
    CHECK(got_is("xy"));
    CHECK(console_exit_status(&con) == 17);
}

/* What was held back when the guest ended is not lost. */
static void held_bytes_flushed_at_stop(void)
{
    CHECK(start(true, false) == 0);
    hvc_write("x\033]perch");
    CHECK(collect(1));
    CHECK(console_stop(&con) == 0);
    collect(8);
    CHECK(got_is("x\033]perch"));
    CHECK(console_exit_status(&con) == -1);
}

static void corrupted_out_prod_stops_the_guest(void)
{
    struct error e = { "" };

    CHECK(start(true, false) == 0);
    CHECK(console_verdict(&con, &e) == -1);
    __atomic_store_n(&page->out_prod, 5000, __ATOMIC_RELEASE);
    ring_doorbell();
    CHECK(WAIT_FOR(atomic_load(&con.broken)));
    CHECK(WAIT_FOR(kicked));
    CHECK(LOAD(immediate_exit) == 1);
    CHECK(console_verdict(&con, &e) == STATUS_GUEST_STOPPED);
    CHECK_CONTAINS(e.msg, "guest stopped: hvc0 console ring index corrupted "
                          "(out_prod 5000, out_cons 0)");
    CHECK(console_stop(&con) == -1);
    CHECK(got_len == 0);
}

/* The early ring is checked as before. */
static void corrupted_early_ring_stops_the_guest(void)
{
    struct error e = { "" };

    CHECK(start(true, false) == 0);
    __atomic_store_n(&sh->console_prod, PERCH_CONSOLE_RING_BYTES + 1, __ATOMIC_RELEASE);
    ring_doorbell();
    CHECK(WAIT_FOR(atomic_load(&con.broken)));
    CHECK(console_verdict(&con, &e) == STATUS_GUEST_STOPPED);
    CHECK_CONTAINS(e.msg, "console ring index corrupted (producer 4097");
    CHECK(console_stop(&con) == -1);
}

/* ---- Input ---- */

static void input_reaches_in_ring(void)
{
    CHECK(start(true, false) == 0);
    typed("uname -a\r", 9);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 9));
    CHECK(memcmp(page->in, "uname -a\r", 9) == 0);
    CHECK(WAIT_FOR(atomic_load(&notified) >= 1));
    CHECK(console_stop(&con) == 0);
}

/* The guest's side of in[]: take what is there; tell the Launcher (as
 * Linux does) when doorbell is set. */
static size_t guest_take(uint8_t *buf, size_t have, bool doorbell_after)
{
    uint32_t prod = LOAD(page->in_prod), cons = page->in_cons;

    while (cons != prod)
        buf[have++] = page->in[cons++ % XENCONS_IN_BYTES];
    __atomic_store_n(&page->in_cons, cons, __ATOMIC_RELEASE);
    if (doorbell_after)
        ring_doorbell();
    return have;
}

static void pump_big_input(bool doorbell_after)
{
    static uint8_t text[5000], seen[5000];
    size_t have = 0;

    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = (uint8_t)(i * 13 + i / 251);
    CHECK(start(true, false) == 0);
    typed((const char *)text, sizeof(text));
    for (int ms = 0; ms < WAIT_MS && have < sizeof(text); ms++) {
        CHECK(LOAD(page->in_prod) - page->in_cons <= XENCONS_IN_BYTES);
        have = guest_take(seen, have, doorbell_after);
        sleep_ms(1);
    }
    CHECK(have == sizeof(text));
    CHECK(memcmp(seen, text, sizeof(text)) == 0);
    CHECK(atomic_load(&notified) >= sizeof(text) / XENCONS_IN_BYTES);
    CHECK(console_stop(&con) == 0);
}

static void input_larger_than_ring(void)
{
    pump_big_input(true);
}

/* A guest that takes input without a word still gets the rest. */
static void input_flows_without_guest_notifications(void)
{
    pump_big_input(false);
}

/* Input the guest leaves in in[] is announced again, less and less often. */
static void unread_input_renotified(void)
{
    unsigned n;

    CHECK(start(true, false) == 0);
    typed("a", 1);
    CHECK(WAIT_FOR(atomic_load(&notified) >= 1));
    sleep_ms(400);
    n = atomic_load(&notified);
    CHECK(n >= 2 && n <= 8);   /* 50, 100, 200 ms ... */
    __atomic_store_n(&page->in_cons, 1, __ATOMIC_RELEASE);
    CHECK(console_stop(&con) == 0);
}

static void corrupted_in_cons_stops_the_guest(void)
{
    struct error e = { "" };

    CHECK(start(true, false) == 0);
    __atomic_store_n(&page->in_cons, 77, __ATOMIC_RELEASE);
    typed("x", 1);
    CHECK(WAIT_FOR(atomic_load(&con.broken)));
    CHECK(WAIT_FOR(kicked));
    CHECK(console_verdict(&con, &e) == STATUS_GUEST_STOPPED);
    CHECK_CONTAINS(e.msg, "hvc0 console ring index corrupted (in_prod 0, in_cons 77)");
    CHECK(page->in[0] == 0);
    CHECK(console_stop(&con) == -1);
}

static void ctrl_a_x_quits(void)
{
    struct error e = { "" };

    CHECK(start(true, true) == 0);
    typed("ls\r\001\001", 5);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 4));
    CHECK(memcmp(page->in, "ls\r\001", 4) == 0);
    typed("\001", 1);
    sleep_ms(20);
    CHECK(console_verdict(&con, &e) == -1);
    typed("x", 1);
    CHECK(WAIT_FOR(atomic_load(&con.quit)));
    CHECK(WAIT_FOR(kicked));
    CHECK(LOAD(immediate_exit) == 1);
    CHECK(console_verdict(&con, &e) == STATUS_POWEROFF);
    CHECK(strcmp(e.msg, "quit by Ctrl-A x") == 0);
    CHECK(console_stop(&con) == 0);
}

/* From a pipe, Ctrl-A is just a byte. */
static void piped_ctrl_a_is_data(void)
{
    struct error e = { "" };

    CHECK(start(true, false) == 0);
    typed("\001x", 2);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 2));
    CHECK(memcmp(page->in, "\001x", 2) == 0);
    CHECK(console_verdict(&con, &e) == -1);
    CHECK(console_stop(&con) == 0);
}

/* A terminal's keys are read even when in[] is full (Ctrl-A x must work
 * against a guest that reads nothing); what does not fit is dropped. */
static void ctrl_a_x_works_when_guest_reads_nothing(void)
{
    static char flood[3 * CONSOLE_INPUT_MAX];
    struct error e = { "" };

    memset(flood, 'k', sizeof(flood));
    CHECK(start(true, true) == 0);
    typed(flood, sizeof(flood));
    CHECK(WAIT_FOR(LOAD(page->in_prod) == XENCONS_IN_BYTES));
    typed("\001x", 2);
    CHECK(WAIT_FOR(atomic_load(&con.quit)));
    CHECK(console_verdict(&con, &e) == STATUS_POWEROFF);
    CHECK(console_stop(&con) == 0);
}

/* The end of a pipe on stdin ends only input: once the guest has written
 * to hvc0, it hears a newline (its last line had none) and Ctrl-D, and
 * Ctrl-D again once it has taken that one; output goes on. Before, it
 * hears nothing more. */
static void end_of_input_keeps_output(void)
{
    CHECK(start(true, false) == 0);
    typed("q", 1);
    close_fd(&in_wr);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 1));
    sleep_ms(400);
    CHECK(LOAD(page->in_prod) == 1);   /* no console written yet */
    hvc_write("still here\n");
    CHECK(collect(11));
    __atomic_store_n(&page->in_cons, 1, __ATOMIC_RELEASE);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 3));
    CHECK(page->in[0] == 'q' && page->in[1] == '\n' && page->in[2] == 0x04);
    sleep_ms(400);
    CHECK(LOAD(page->in_prod) == 3);   /* not again before the guest takes it */
    __atomic_store_n(&page->in_cons, 3, __ATOMIC_RELEASE);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 4));
    CHECK(page->in[3] == 0x04);
    CHECK(console_stop(&con) == 0);
}

/* A terminal that goes away is no end of the user's input: no Ctrl-D. */
static void terminal_gone_says_nothing(void)
{
    CHECK(start(true, true) == 0);
    typed("q", 1);
    close_fd(&in_wr);
    CHECK(WAIT_FOR(LOAD(page->in_prod) == 1));
    sleep_ms(400);
    CHECK(LOAD(page->in_prod) == 1);
    CHECK(console_stop(&con) == 0);
}

/* No console page: input is not taken anywhere, output still works. */
static void no_hvc_page(void)
{
    CHECK(start(false, false) == 0);
    typed("zz", 2);
    early_write("early\n");
    CHECK(collect(6));
    CHECK(atomic_load(&notified) == 0);
    CHECK(console_stop(&con) == 0);
}

int main(void)
{
    struct sigaction sa = { .sa_handler = on_usr1 };

    sigaction(SIGUSR1, &sa, NULL);
    RUN(both_rings_in_order);
    RUN(asleep_is_said_before_each_sleep);
    RUN(early_console_first_in_one_batch);
    RUN(output_wraps_the_ring);
    RUN(exit_sequence_split_across_reads);
    RUN(exit_sequence_in_the_early_console);
    RUN(held_bytes_flushed_at_stop);
    RUN(corrupted_out_prod_stops_the_guest);
    RUN(corrupted_early_ring_stops_the_guest);
    RUN(input_reaches_in_ring);
    RUN(input_larger_than_ring);
    RUN(input_flows_without_guest_notifications);
    RUN(unread_input_renotified);
    RUN(corrupted_in_cons_stops_the_guest);
    RUN(ctrl_a_x_quits);
    RUN(piped_ctrl_a_is_data);
    RUN(ctrl_a_x_works_when_guest_reads_nothing);
    RUN(end_of_input_keeps_output);
    RUN(terminal_gone_says_nothing);
    RUN(no_hvc_page);
    teardown();
    return check_exit_status();
}
