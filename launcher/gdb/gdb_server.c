/*
 * --gdb: the socket, the packet framing and the hand-over of stops between
 * the vCPU thread and the gdb thread (gdb.h). Packets themselves are
 * gdb_commands.c's; registers and memory gdb_target.c's.
 */
#include "gdb.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../vm/lines.h"
#include "../vm/sandbox.h"

/* How long a client may leave perch's reply unread before it is dropped:
 * the gdb thread must never hang on a client (the run's end waits for it). */
#define SEND_TIMEOUT_MS 2000
/* While a stop is asked for and not there, the kick is repeated. */
#define KICK_INTERVAL_MS 100

int gdb_option_parse(const char *s, uint16_t *port, struct error *e)
{
    const char *digits = s, *colon = strrchr(s, ':');
    unsigned long v = 0;

    if (colon) {
        size_t host = (size_t)(colon - s);

        if (!((host == 9 && !strncmp(s, "127.0.0.1", 9)) ||
              (host == 9 && !strncmp(s, "localhost", 9))))
            return fail(e, "--gdb '%s': perch listens on 127.0.0.1 only "
                           "(--gdb [127.0.0.1:]PORT)", s);
        digits = colon + 1;
    }
    if (!*digits)
        return fail(e, "--gdb '%s' needs a port (--gdb [127.0.0.1:]PORT)", s);
    for (const char *p = digits; *p; p++) {
        if (*p < '0' || *p > '9')
            return fail(e, "--gdb '%s': the port is not a number", s);
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > 65535)
            return fail(e, "--gdb '%s': the port must be 1-65535", s);
    }
    if (v == 0)
        return fail(e, "--gdb '%s': the port must be 1-65535", s);
    *port = (uint16_t)v;
    return 0;
}

int gdb_listen(struct gdb *g, uint16_t port, bool wait, struct error *e)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int one = 1, fd;

    memset(g, 0, sizeof(*g));
    g->listen_fd = g->wake_fd = g->resume_fd = g->conn_fd = -1;
    g->wait = wait;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return fail(e, "--gdb: socket: %s", strerror(errno));
    g->listen_fd = fd;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    /* Inherited by the accepted socket: gdb's small packets go at once. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1))
        return fail(e, "--gdb %u: cannot listen on 127.0.0.1:%u: %s", port, port,
                    strerror(errno));
    g->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    g->resume_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (g->wake_fd < 0 || g->resume_fd < 0)
        return fail(e, "--gdb: eventfd: %s", strerror(errno));
    pthread_mutex_init(&g->lock, NULL);
    return 0;
}

void gdb_prepare(struct gdb *g, struct perch_shared *shared, struct kvm_vm *vm,
                 struct guest_memory *gm, const struct kernel_symbols *syms)
{
    g->shared = shared;
    g->vm = vm;
    g->target.shared = shared;
    g->target.gm = gm;
    g->target.syms = syms;
    shared->gdb.enabled = 1;
    g->state = g->wait ? GDB_STOPPING : GDB_RUNNING;
    g->asked = PERCH_GDB_STOP_TRAP;
    shared->gdb.stop = g->wait;
}

static void post(int fd)
{
    uint64_t one = 1;
    ssize_t rc = write(fd, &one, sizeof(one));

    (void)rc;   /* a full eventfd is still readable: nothing lost */
}

static void drain(int fd)
{
    uint64_t v;
    ssize_t rc = read(fd, &v, sizeof(v));

    (void)rc;
}

static enum gdb_state state_of(struct gdb *g)
{
    enum gdb_state s;

    pthread_mutex_lock(&g->lock);
    s = g->state;
    pthread_mutex_unlock(&g->lock);
    return s;
}

static void set_state(struct gdb *g, enum gdb_state s)
{
    pthread_mutex_lock(&g->lock);
    if (g->state != GDB_ENDED)
        g->state = s;
    pthread_mutex_unlock(&g->lock);
}

/* ---- the vCPU thread's side ---- */

enum gdb_verdict gdb_stopped(struct gdb *g, uint32_t why)
{
    struct pollfd p = { .fd = g->resume_fd, .events = POLLIN };

    pthread_mutex_lock(&g->lock);
    if (g->state != GDB_STOPPED) {
        /* The guest's x87 and SSE registers are the vCPU's: the Host
         * never touches them. Only this thread may ask KVM. */
        g->target.has_fpu = kvm_vcpu_fpu(&g->vm->vcpus[0], &g->target.fpu) == 0;
        g->state = GDB_STOPPED;
        g->why = why;
        post(g->wake_fd);
    }
    pthread_mutex_unlock(&g->lock);
    for (;;) {
        bool killed;
        enum gdb_state s;

        if (poll(&p, 1, -1) < 0)
            return GDB_INTERRUPTED;
        drain(g->resume_fd);
        pthread_mutex_lock(&g->lock);
        killed = g->killed;
        s = g->state;
        pthread_mutex_unlock(&g->lock);
        if (killed)
            return GDB_END_RUN;
        if (s != GDB_STOPPED)
            return GDB_GO_ON;
    }
}

void gdb_end(struct gdb *g, int status)
{
    pthread_mutex_lock(&g->lock);
    g->state = GDB_ENDED;
    g->exit_status = status;
    pthread_mutex_unlock(&g->lock);
    post(g->wake_fd);
    if (g->started)
        confined_thread_join(&g->thread);
    g->started = false;
}

void gdb_release(struct gdb *g)
{
    int *fds[] = { &g->listen_fd, &g->wake_fd, &g->resume_fd, &g->conn_fd };

    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

/* ---- the gdb thread ---- */

/* Ask the Host to stop the guest: the flag, then an event on the console's
 * line, which wakes a guest that blocks and sends the guest kernel through
 * the Host's way back (a console event with nothing in the ring is a
 * spurious wake-up the console driver takes in its stride). */
static void kick(struct gdb *g)
{
    __atomic_store_n(&g->shared->gdb.stop, 1, __ATOMIC_SEQ_CST);
    lines_raise(g->shared, g->vm, PERCH_LINE_CONSOLE);
}

/* why: what gdb hears for this stop (PERCH_GDB_STOP_*). As QEMU: a
 * SIGINT for Ctrl-C, a SIGTRAP for the stop at attach. */
static void ask_stop(struct gdb *g, uint32_t why)
{
    pthread_mutex_lock(&g->lock);
    if (g->state == GDB_RUNNING) {
        g->state = GDB_STOPPING;
        g->asked = why;
        kick(g);
    }
    pthread_mutex_unlock(&g->lock);
}

/* Let the vCPU thread go on from gdb_stopped(). A stop asked for and
 * overtaken by a breakpoint must not stop the guest again. */
static void resume(struct gdb *g, uint64_t how)
{
    __atomic_store_n(&g->shared->gdb.stop, 0, __ATOMIC_SEQ_CST);
    gdb_target_resume(&g->target, how);
    g->taken = false;
    set_state(g, GDB_RUNNING);
    post(g->resume_fd);
}

static void complain(struct gdb *g, const char *what)
{
    if (g->complained)
        return;
    g->complained = true;
    fprintf(stderr, "perch: gdb: %s (further bad input from this client is "
                    "ignored without a word)\n", what);
}

static void drop_client(struct gdb *g)
{
    close(g->conn_fd);
    g->conn_fd = -1;
    g->reply_due = false;
}

/* All of it, or the client is dropped: a client that reads nothing must
 * not hold the gdb thread. */
static void send_bytes(struct gdb *g, const char *s, size_t n)
{
    while (n && g->conn_fd >= 0) {
        ssize_t rc = write(g->conn_fd, s, n);
        struct pollfd p = { .fd = g->conn_fd, .events = POLLOUT };

        if (rc > 0) {
            s += rc;
            n -= (size_t)rc;
        } else if (rc < 0 && errno == EINTR) {
            continue;
        } else if (rc < 0 && errno == EAGAIN && poll(&p, 1, SEND_TIMEOUT_MS) > 0) {
            continue;
        } else {
            drop_client(g);
        }
    }
}

/* '$' data '#' checksum, with the ack of the packet it answers in front. */
static void send_packet(struct gdb *g, bool ack, const char *data, size_t len)
{
    static char out[GDB_PACKET_MAX + 8];
    uint8_t sum = 0;
    size_t n = 0;

    if (ack && !g->no_ack)
        out[n++] = '+';
    out[n++] = '$';
    for (size_t i = 0; i < len && i < GDB_PACKET_MAX; i++) {
        out[n++] = data[i];
        sum += (uint8_t)data[i];
    }
    n += (size_t)snprintf(out + n, sizeof(out) - n, "#%02x", sum);
    send_bytes(g, out, n);
}

/* The guest is there for gdb: its registers, and the reply gdb waits for. */
static void take_stop(struct gdb *g)
{
    uint32_t why;

    pthread_mutex_lock(&g->lock);
    if (g->why == PERCH_GDB_STOP_INT)   /* the stop perch asked for */
        g->why = g->asked;
    why = g->why;
    pthread_mutex_unlock(&g->lock);
    gdb_target_stopped(&g->target);
    g->taken = true;
    if (g->reply_due && g->conn_fd >= 0) {
        gdb_stop_reply(why, g->target.swbreak, &g->reply);
        send_packet(g, false, g->reply.data, g->reply.len);
        g->reply_due = false;
    }
}

/* Without a client the guest runs, except at --gdb-wait's first stop,
 * which waits for one: a client that left (or was dropped) takes its
 * breakpoints with it, and the guest goes on. */
static void let_go(struct gdb *g)
{
    if (!g->taken)
        gdb_target_stopped(&g->target);
    gdb_target_remove_all(&g->target);
    resume(g, PERCH_GDB_CONTINUE);
}

static void accept_client(struct gdb *g)
{
    int fd = accept4(g->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (fd < 0)
        return;
    if (g->conn_fd >= 0) {   /* one client at a time: a second one is closed */
        close(fd);
        return;
    }
    g->conn_fd = fd;
    g->no_ack = g->complained = g->target.swbreak = false;
    gdb_frame_reset(&g->in);
    g->wait = false;   /* the first client has come: held no longer for one */
    ask_stop(g, PERCH_GDB_STOP_TRAP);   /* as QEMU: gdb finds the guest stopped */
}

static void act(struct gdb *g, enum gdb_action a)
{
    switch (a) {
    case GDB_REPLY:
        send_packet(g, true, g->reply.data, g->reply.len);
        break;
    case GDB_NO_ACK:
        send_packet(g, true, g->reply.data, g->reply.len);
        g->no_ack = true;
        break;
    case GDB_CONTINUE:
    case GDB_STEP:
        if (!g->no_ack)
            send_bytes(g, "+", 1);
        g->reply_due = true;
        resume(g, a == GDB_STEP ? PERCH_GDB_STEP : PERCH_GDB_CONTINUE);
        break;
    case GDB_DETACH:   /* let_go() next */
        send_packet(g, true, g->reply.data, g->reply.len);
        drop_client(g);
        break;
    case GDB_KILL:
        if (!g->no_ack)
            send_bytes(g, "+", 1);
        drop_client(g);
        pthread_mutex_lock(&g->lock);
        g->killed = true;
        pthread_mutex_unlock(&g->lock);
        post(g->resume_fd);
        break;
    }
}

/* A whole packet with a good checksum. Packets need the guest stopped; a
 * client that sends one while it runs (gdb does not) gets an error. */
static void packet(struct gdb *g)
{
    uint32_t why;

    if (state_of(g) != GDB_STOPPED || !g->taken) {
        send_packet(g, true, "E01", 3);
        return;
    }
    pthread_mutex_lock(&g->lock);
    why = g->why;
    pthread_mutex_unlock(&g->lock);
    act(g, gdb_command(&g->target, why, g->in.data, g->in.len, &g->reply));
}

/* What the framing made of a byte: acks are taken as given (perch does
 * not retransmit). */
static void take_byte(struct gdb *g, char c)
{
    switch (gdb_frame_byte(&g->in, c, g->no_ack)) {
    case GDB_FRAME_NONE:
        break;
    case GDB_FRAME_PACKET:
        packet(g);
        break;
    case GDB_FRAME_BAD_CHECKSUM:
        complain(g, "a packet with a bad checksum was refused");
        if (!g->no_ack)
            send_bytes(g, "-", 1);
        break;
    case GDB_FRAME_TOO_LONG:
        complain(g, "a packet longer than the 4096 bytes perch offered was dropped");
        send_packet(g, true, "E01", 3);
        break;
    case GDB_FRAME_INTERRUPT:
        g->reply_due = g->reply_due || state_of(g) != GDB_STOPPED;
        ask_stop(g, PERCH_GDB_STOP_INT);
        break;
    case GDB_FRAME_NOISE:
        complain(g, "bytes outside a packet ignored");
        break;
    }
}

static void read_client(struct gdb *g)
{
    char buf[4096];
    ssize_t n = read(g->conn_fd, buf, sizeof(buf));

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        drop_client(g);
        return;
    }
    for (ssize_t i = 0; i < n && g->conn_fd >= 0; i++)
        take_byte(g, buf[i]);
}

/* The run is over. A client waiting for a stop hears the guest's exit
 * status (W), as from a process that exited. */
static void ended(struct gdb *g)
{
    char w[8];
    int len;

    if (g->conn_fd < 0)
        return;
    if (g->reply_due) {
        len = snprintf(w, sizeof(w), "W%02x", g->exit_status & 0xff);
        send_packet(g, false, w, (size_t)len);
    }
    drop_client(g);
}

/* What the thread waits on: the vCPU thread's news and new clients
 * always; the client's bytes except while a stop is on its way, when it
 * kicks again now and then. */
static void serve(void *arg)
{
    struct gdb *g = arg;

    for (;;) {
        enum gdb_state s = state_of(g);
        struct pollfd p[3] = {
            { .fd = g->wake_fd, .events = POLLIN },
            { .fd = g->listen_fd, .events = POLLIN },
            { .fd = g->conn_fd, .events = POLLIN },
        };

        if (s == GDB_ENDED) {
            ended(g);
            return;
        }
        if (s == GDB_STOPPED && !g->taken) {
            take_stop(g);
            continue;
        }
        if (s == GDB_STOPPED && g->conn_fd < 0 && !g->wait) {
            let_go(g);
            continue;
        }
        if (s == GDB_STOPPING)
            p[2].fd = -1;
        if (poll(p, 3, s == GDB_STOPPING ? KICK_INTERVAL_MS : -1) == 0) {
            pthread_mutex_lock(&g->lock);
            if (g->state == GDB_STOPPING)
                kick(g);
            pthread_mutex_unlock(&g->lock);
            continue;
        }
        if (p[0].revents)
            drain(g->wake_fd);
        if (p[2].revents)
            read_client(g);
        if (p[1].revents)
            accept_client(g);
    }
}

int gdb_start(struct gdb *g, bool sandbox, struct error *e)
{
    if (confined_thread_start_with(&g->thread, serve, g, sandbox, SANDBOX_GDB))
        return fail(e, "--gdb: cannot start its thread: %s", g->thread.problem);
    g->started = true;
    return 0;
}
