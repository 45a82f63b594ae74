/* The console back end: draining the guest's two output rings to stdout, feeding stdin to hvc0. */
#include "console.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../base/status.h"

/* While input waits (for room in in[], or for the guest to take what is
 * there), look again this often: a guest that takes input without telling
 * perch, or an interrupt sent before the guest's APIC was on (KVM drops
 * it), must not leave input stuck. */
#define INPUT_RETRY_MS 50
#define INPUT_RETRY_MAX_MS 1000
#define END_OF_INPUT_MS 300   /* Ctrl-D again after this, while input has ended */
#define CTRL_D 0x04

/* Returns 0, or the errno that stopped the write. A stdout someone left
 * non-blocking is waited on, not given up. */
static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        struct pollfd out = { .fd = fd, .events = POLLOUT };

        if (w < 0 && errno == EAGAIN)
            poll(&out, 1, -1);
        else if (w < 0 && errno != EINTR)
            return errno;
        else if (w == 0)
            return EIO;
        if (w <= 0)
            continue;
        p += w;
        n -= w;
    }
    return 0;
}

/* Where the guest's output goes: stdout, or the configured sink. Output
 * that cannot be written (a closed pipe, a full disk) ends the run, as it
 * would end cat: the guest's words would be lost. */
static void put(struct console *c, const uint8_t *p, size_t n)
{
    int err;

    if (c->cfg.output) {
        c->cfg.output(c->cfg.output_arg, p, n);
        return;
    }
    if (atomic_load(&c->out_errno))
        return;
    err = write_all(c->cfg.out_fd, p, n);
    if (err)
        atomic_store(&c->out_errno, err);
}

/* Through one stream's sequence filter to the output. */
static void emit(struct console *c, struct osc_filter *f, const uint8_t *bytes,
                 size_t n)
{
    uint8_t out[PERCH_CONSOLE_RING_BYTES + OSC_HELD_MAX];

    while (n) {
        size_t chunk = n < PERCH_CONSOLE_RING_BYTES ? n : PERCH_CONSOLE_RING_BYTES;

        put(c, out, osc_filter_feed(f, bytes, chunk, out));
        bytes += chunk;
        n -= chunk;
    }
}

static int broken(struct console *c)
{
    atomic_store(&c->broken, 1);
    return -1;
}

/* The early console: the Host's ring in perch_shared. */
static int drain_early(struct console *c)
{
    volatile struct perch_shared *sh = c->cfg.shared;
    uint32_t prod, used;
    uint8_t buf[PERCH_CONSOLE_RING_BYTES];

    prod = __atomic_load_n(&sh->console_prod, __ATOMIC_ACQUIRE);
    used = prod - c->cons;
    if (used > PERCH_CONSOLE_RING_BYTES) {
        snprintf(c->problem, sizeof(c->problem),
                 "console ring index corrupted (producer %u, consumer %u)",
                 prod, c->cons);
        return broken(c);
    }
    for (uint32_t i = 0; i < used; i++)
        buf[i] = sh->console_ring[(c->cons + i) % PERCH_CONSOLE_RING_BYTES];
    c->cons = prod;
    __atomic_store_n(&sh->console_cons, c->cons, __ATOMIC_RELEASE);
    emit(c, &c->osc_early, buf, used);
    return 0;
}

static int drain_hvc(struct console *c)
{
    uint8_t buf[XENCONS_OUT_BYTES];
    int n;

    if (!c->cfg.hvc_page)
        return 0;
    n = hvc_ring_read(&c->hvc, buf, c->problem, sizeof(c->problem));
    if (n < 0)
        return broken(c);
    emit(c, &c->osc_hvc, buf, n);
    return 0;
}

int console_drain(struct console *c)
{
    int rc = -1;

    pthread_mutex_lock(&c->lock);
    if (!atomic_load(&c->broken))
        rc = drain_early(c) || drain_hvc(c) ? -1 : 0;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static void stop_vcpu(struct console *c)
{
    confined_thread_stop_vcpu(c->cfg.vcpu_immediate_exit, c->vcpu_thread);
}

/* ---- Input ----------------------------------------------------------------- */

/* Typed bytes into the waiting input. Piped input is read only when there
 * is room (it waits in the pipe); a terminal is always read, so Ctrl-A x
 * works even when the guest takes no input, and keys that do not fit are
 * dropped, as a serial line would. Returns -1 on Ctrl-A x. */
static int take_keys(struct console *c, const uint8_t *bytes, size_t n)
{
    uint8_t filtered[CONSOLE_INPUT_MAX];
    unsigned commands = KEYS_NONE;
    size_t room = CONSOLE_INPUT_MAX - c->input_len;

    if (c->cfg.keys) {
        n = keys_filter(&c->keys, bytes, n, filtered, &commands);
        bytes = filtered;
    }
    if (commands & KEYS_HELP)
        write_all(STDERR_FILENO, (const uint8_t *)keys_help, strlen(keys_help));
    if (commands & KEYS_QUIT) {
        atomic_store(&c->quit, 1);
        return -1;
    }
    if (n > room)
        n = room;
    memcpy(c->input + c->input_len, bytes, n);
    c->input_len += n;
    if (n)
        c->input_last = bytes[n - 1];
    return 0;
}

/*
 * A pipe or file on stdin ended: the guest's console hears Ctrl-D, as a
 * shell on a terminal does when its user is done, after a newline if the
 * input's last line had none (a line editor ignores Ctrl-D on a line that
 * is not empty). It hears it again whenever it has taken the last one and
 * a while has passed: a pipe stays at its end for every reader, so a
 * program that took the first (cat, say) leaves the next to the shell.
 * Only once the guest has written to hvc0: a guest with no console there
 * to read it is not interrupted again and again to be told.
 */
static bool end_of_input_due(struct console *c)
{
    return c->input_ended && !c->input_len && c->cfg.hvc_page &&
           c->hvc.out_cons && !hvc_ring_input_queued(&c->hvc);
}

static void say_end_of_input(struct console *c)
{
    static const uint8_t newline_and_end[] = { '\n', CTRL_D };
    bool mid_line = c->input_last && c->input_last != '\n' && c->input_last != CTRL_D;

    take_keys(c, mid_line ? newline_and_end : newline_and_end + 1,
              mid_line ? 2 : 1);
}

static int read_input(struct console *c)
{
    uint8_t buf[CONSOLE_INPUT_MAX];
    size_t want = c->cfg.keys ? sizeof(buf) : CONSOLE_INPUT_MAX - c->input_len;
    ssize_t n = read(c->cfg.in_fd, buf, want);

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0) {
        c->input_open = false;   /* end of input, or it went away */
        c->input_ended = !c->cfg.keys;
        return 0;
    }
    return take_keys(c, buf, n);
}

static void notify_guest(struct console *c)
{
    if (c->cfg.notify_guest)
        c->cfg.notify_guest(c->cfg.notify_arg);
}

/* What waits into in[]; the guest hears of it once per batch. Returns the
 * bytes moved, or -1 if in[]'s index is corrupted. */
static long push_input(struct console *c)
{
    long n;

    if (!c->cfg.hvc_page || !c->input_len)
        return 0;
    n = hvc_ring_write(&c->hvc, c->input, c->input_len, c->problem,
                       sizeof(c->problem));
    if (n < 0)
        return broken(c);
    if (n == 0)
        return 0;
    memmove(c->input, c->input + n, c->input_len - n);
    c->input_len -= n;
    c->retry_ms = INPUT_RETRY_MS;
    notify_guest(c);
    return n;
}

/* Input the guest has not taken for a while: tell it again, less often
 * each time it makes no progress (a guest may simply not read). */
static void renotify(struct console *c)
{
    uint32_t queued = hvc_ring_input_queued(&c->hvc);

    if (!queued)
        return;
    if (queued != c->retry_queued) {
        c->retry_queued = queued;
        c->retry_ms = INPUT_RETRY_MS;
    } else if (c->retry_ms < INPUT_RETRY_MAX_MS) {
        c->retry_ms *= 2;
    }
    notify_guest(c);
}

/* How long to sleep: for ever, unless input waits or has ended. */
static int wait_ms(struct console *c)
{
    if (!c->cfg.hvc_page)
        return -1;
    if (c->input_len || hvc_ring_input_queued(&c->hvc))
        return c->retry_ms;
    return c->input_ended ? END_OF_INPUT_MS : -1;
}

/* ---- The thread ------------------------------------------------------------ */

enum { FD_DOORBELL, FD_STOP, FD_INPUT, NR_FDS };

static nfds_t wait_set(struct console *c, struct pollfd fds[NR_FDS])
{
    bool want_input = c->input_open &&
                      (c->cfg.keys || c->input_len < CONSOLE_INPUT_MAX);

    fds[FD_DOORBELL] = (struct pollfd){ .fd = c->cfg.doorbell_fd, .events = POLLIN };
    fds[FD_STOP] = (struct pollfd){ .fd = c->stop_fd, .events = POLLIN };
    fds[FD_INPUT] = (struct pollfd){ .fd = c->cfg.in_fd, .events = POLLIN };
    return want_input ? 3 : 2;
}

/* One wake-up's work; -1 when the guest must stop. */
static int serve(struct console *c, const struct pollfd fds[NR_FDS],
                 nfds_t nfds, bool timed_out)
{
    uint64_t count;
    long moved;

    if (fds[FD_DOORBELL].revents &&
        read(c->cfg.doorbell_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
        return -1;
    if (console_drain(c))
        return -1;
    if (nfds > FD_INPUT && fds[FD_INPUT].revents && read_input(c))
        return -1;
    if (timed_out && end_of_input_due(c))
        say_end_of_input(c);
    moved = push_input(c);
    if (moved < 0)
        return -1;
    if (timed_out && moved == 0)
        renotify(c);
    return 0;
}

/* Say so to the Host, then look at both consoles once more: output that
 * came before the Host could see the word is drained here, output after
 * it rings the doorbell (host/env/env.c). An awake thread costs no
 * doorbell, which is an exit. */
static int about_to_sleep(struct console *c)
{
    __atomic_store_n(&c->cfg.shared->console_asleep, 1, __ATOMIC_SEQ_CST);
    return console_drain(c);
}

/* The thread faces the guest's rings: confined_thread.h confines it. */
static void console_thread(void *arg)
{
    struct console *c = arg;
    struct pollfd fds[NR_FDS];

    for (;;) {
        nfds_t nfds = wait_set(c, fds);
        int n;

        if (hold_asked(c->cfg.hold) && !console_drain(c))
            hold_here(c->cfg.hold);
        if (about_to_sleep(c)) {          /* a console broke its ring */
            stop_vcpu(c);
            break;
        }
        n = poll(fds, nfds, wait_ms(c));
        if (n < 0 && errno != EINTR)
            break;
        if (n < 0)
            continue;
        if (fds[FD_STOP].revents)
            break;
        if (serve(c, fds, nfds, n == 0) || atomic_load(&c->out_errno)) {
            if (atomic_load(&c->broken) || atomic_load(&c->quit) ||
                atomic_load(&c->out_errno))
                stop_vcpu(c);
            break;
        }
    }
}

int console_start(struct console *c, const struct console_config *cfg)
{
    memset(c, 0, sizeof(*c));
    c->cfg = *cfg;
    c->vcpu_thread = pthread_self();
    c->said = (struct osc_guest_said){ -1, cfg->on_mark, cfg->mark_arg };
    c->input_open = cfg->in_fd >= 0;
    c->retry_ms = INPUT_RETRY_MS;
    osc_filter_init(&c->osc_early, osc_guest_kinds, OSC_GUEST_KINDS, &c->said);
    osc_filter_init(&c->osc_hvc, osc_guest_kinds, OSC_GUEST_KINDS, &c->said);
    if (cfg->hvc_page && cfg->resume)
        hvc_ring_resume(&c->hvc, cfg->hvc_page);
    else if (cfg->hvc_page)
        hvc_ring_init(&c->hvc, cfg->hvc_page);
    if (cfg->resume)
        c->cons = __atomic_load_n(&cfg->shared->console_cons, __ATOMIC_ACQUIRE);
    c->stop_fd = eventfd(0, EFD_CLOEXEC);
    if (c->stop_fd < 0)
        return -1;
    pthread_mutex_init(&c->lock, NULL);
    if (confined_thread_start(&c->thread, console_thread, c, cfg->sandbox)) {
        snprintf(c->problem, sizeof(c->problem), "%.*s", (int)sizeof(c->problem) - 1,
                 c->thread.problem);
        return -1;
    }
    c->running = 1;
    return 0;
}

/* What the filters still hold at the end goes out as it was. */
static void flush_filters(struct console *c)
{
    uint8_t out[OSC_HELD_MAX];

    put(c, out, osc_filter_flush(&c->osc_early, out));
    put(c, out, osc_filter_flush(&c->osc_hvc, out));
}

int console_stop(struct console *c)
{
    uint64_t one = 1;

    if (c->running) {
        if (write(c->stop_fd, &one, sizeof(one)) == sizeof(one))
            confined_thread_join(&c->thread);
        c->running = 0;
    }
    console_drain(c);
    flush_filters(c);
    if (c->stop_fd > 0)
        close(c->stop_fd);
    c->stop_fd = -1;
    return atomic_load(&c->broken) ? -1 : 0;
}

int console_verdict(struct console *c, struct error *e)
{
    if (atomic_load(&c->broken)) {
        fail(e, "guest stopped: %s", c->problem);
        return STATUS_GUEST_STOPPED;
    }
    if (console_output_failed(c, e))
        return STATUS_ERROR;
    if (atomic_load(&c->quit)) {
        fail(e, "quit by Ctrl-A x");
        return STATUS_POWEROFF;
    }
    return -1;
}

bool console_output_failed(struct console *c, struct error *e)
{
    int err = atomic_load(&c->out_errno);

    if (err)
        fail(e, "cannot write the guest's output: %s", strerror(err));
    return err != 0;
}

int console_exit_status(struct console *c)
{
    int status;

    pthread_mutex_lock(&c->lock);
    status = c->said.exit_status;
    pthread_mutex_unlock(&c->lock);
    return status;
}
