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

#include "../vm/sandbox.h"

/* How long a client may leave perch's reply unread before it is dropped:
 * the gdb thread must never hang on a client (the run's end waits for it). */
#define SEND_TIMEOUT_MS 2000
/* While a stop is asked for and not there, the kick is repeated. */
#define KICK_INTERVAL_MS 100
/* How long the other vCPUs have to stop once one has (each takes well
 * under a millisecond): one that has not by then is shown to gdb without
 * registers, and stops when it next can. */
#define GATHER_MS 500

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

int gdb_listen(struct gdb *g, uint16_t port, bool wait, unsigned nr_vcpus,
               struct error *e)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int one = 1, fd;

    memset(g, 0, sizeof(*g));
    g->listen_fd = g->wake_fd = g->conn_fd = -1;
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++)
        g->resume_fd[i] = -1;
    g->nr_vcpus = nr_vcpus;
    g->first = -1;
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
    if (g->wake_fd < 0)
        return fail(e, "--gdb: eventfd: %s", strerror(errno));
    for (unsigned i = 0; i < nr_vcpus; i++) {
        g->resume_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (g->resume_fd[i] < 0)
            return fail(e, "--gdb: eventfd: %s", strerror(errno));
    }
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
    g->target.nr_vcpus = g->nr_vcpus;
    g->target.step_cpu = -1;
    shared->gdb.enabled = 1;
    g->state = g->wait ? GDB_STOPPING : GDB_RUNNING;
    g->asked = PERCH_GDB_STOP_TRAP;
    for (unsigned i = 0; i < g->nr_vcpus; i++)
        shared->gdb.cpu[i].stop = g->wait;
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

/* ---- the vCPU thread's side ---- */

/* A stop no one asked for any more: a vCPU not up that a stop found
 * asleep, or one the kick reached after gdb let the guest go. Held, it
 * would hold the guest (a vCPU being brought up) until gdb's next stop. */
static bool stale(const struct gdb *g, uint32_t why)
{
    return g->state == GDB_RUNNING && g->first < 0 &&
           (why == PERCH_GDB_STOP_OFFLINE || why == PERCH_GDB_STOP_INT);
}

/* Under the lock: vCPU cpu waits for gdb. The first to stop (with
 * registers) is the one gdb hears of; the gdb thread stops the others. */
static void park(struct gdb *g, unsigned cpu, uint32_t why)
{
    struct gdb_vcpu_view *v = &g->target.vcpu[cpu];

    /* The guest's x87 and SSE registers are the vCPU's: the Host never
     * touches them. Only this thread may ask KVM. */
    v->has_fpu = why != PERCH_GDB_STOP_OFFLINE &&
                 kvm_vcpu_fpu(&g->vm->vcpus[cpu], &v->fpu) == 0;
    g->parked[cpu] = true;
    g->why[cpu] = why;
    if (g->first < 0 && why != PERCH_GDB_STOP_OFFLINE) {
        g->first = (int)cpu;
        clock_gettime(CLOCK_MONOTONIC, &g->first_at);
        if (g->state == GDB_RUNNING)
            g->state = GDB_STOPPING;
    }
    post(g->wake_fd);
}

enum gdb_verdict gdb_stopped(struct gdb *g, unsigned cpu, uint32_t why)
{
    struct pollfd p = { .fd = g->resume_fd[cpu], .events = POLLIN };

    pthread_mutex_lock(&g->lock);
    if (!g->parked[cpu] && stale(g, why)) {
        pthread_mutex_unlock(&g->lock);
        return GDB_GO_ON;
    }
    if (!g->parked[cpu])
        park(g, cpu, why);
    pthread_mutex_unlock(&g->lock);
    for (;;) {
        bool killed, parked;

        if (poll(&p, 1, -1) < 0)
            return GDB_INTERRUPTED;
        drain(g->resume_fd[cpu]);
        pthread_mutex_lock(&g->lock);
        killed = g->killed;
        parked = g->parked[cpu];
        pthread_mutex_unlock(&g->lock);
        if (killed)
            return GDB_END_RUN;
        if (!parked)
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

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void gdb_release(struct gdb *g)
{
    close_fd(&g->listen_fd);
    close_fd(&g->wake_fd);
    close_fd(&g->conn_fd);
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++)
        close_fd(&g->resume_fd[i]);
}

/* ---- the gdb thread ---- */

/* Under the lock: ask the Host to stop every vCPU not stopped yet: its
 * flag, then an interrupt, which wakes one asleep and brings one in guest
 * code into the Host; either stops on its way back (host/entry/gdb.c). */
static void kick(struct gdb *g)
{
    for (unsigned i = 0; i < g->nr_vcpus; i++) {
        if (g->parked[i])
            continue;
        __atomic_store_n(&g->shared->gdb.cpu[i].stop, 1, __ATOMIC_SEQ_CST);
        kvm_signal_msi(g->vm, i, PERCH_IPI_VECTOR);
    }
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

/* Let the vCPUs target.go names go on from gdb_stopped(), the others held.
 * A stop asked for and overtaken by a breakpoint must not stop a vCPU
 * again. */
static void resume(struct gdb *g)
{
    pthread_mutex_lock(&g->lock);
    for (unsigned i = 0; i < g->nr_vcpus; i++) {
        __atomic_store_n(&g->shared->gdb.cpu[i].stop, 0, __ATOMIC_SEQ_CST);
        if (!g->parked[i] || g->target.go[i] == GDB_GO_STAY)
            continue;
        gdb_target_resume(&g->target, i, g->target.go[i] == GDB_GO_STEP
                                             ? PERCH_GDB_STEP : PERCH_GDB_CONTINUE);
        g->parked[i] = g->seen[i] = false;
        post(g->resume_fd[i]);
    }
    g->first = -1;
    if (g->state != GDB_ENDED)
        g->state = GDB_RUNNING;
    g->taken = false;
    pthread_mutex_unlock(&g->lock);
}

/* Every vCPU goes on (a client that left, detach). */
static void resume_all(struct gdb *g)
{
    memset(g->target.go, GDB_GO_CONTINUE, sizeof(g->target.go));
    resume(g);
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

static long ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* Under the lock: may gdb hear of the stop? Once one vCPU has stopped
 * and every other has too, or has had GATHER_MS to. */
static bool gathered(const struct gdb *g)
{
    if (g->state != GDB_STOPPING || g->first < 0)
        return false;
    for (unsigned i = 0; i < g->nr_vcpus; i++)
        if (!g->parked[i])
            return ms_since(&g->first_at) >= GATHER_MS;
    return true;
}

/* Under the lock: the registers of each stopped vCPU not yet taken (one
 * held while another stepped keeps what gdb changed of them). */
static void take_registers(struct gdb *g)
{
    for (unsigned i = 0; i < g->nr_vcpus; i++) {
        if (g->seen[i] || !g->parked[i]) {
            g->target.vcpu[i].has_regs &= g->parked[i];
            continue;
        }
        gdb_target_stopped(&g->target, i, g->why[i] != PERCH_GDB_STOP_OFFLINE);
        g->seen[i] = true;
    }
}

/* The guest is there for gdb: its registers, and the reply gdb waits for,
 * which names the first vCPU to stop; gdb's thread selection starts there. */
static void take_stop(struct gdb *g)
{
    pthread_mutex_lock(&g->lock);
    g->state = GDB_STOPPED;
    g->stop.cpu = (unsigned)g->first;
    g->stop.why = g->why[g->first] == PERCH_GDB_STOP_INT   /* the stop perch asked for */
                  ? g->asked : g->why[g->first];
    take_registers(g);
    pthread_mutex_unlock(&g->lock);
    g->target.cpu = g->stop.cpu;
    g->target.step_cpu = -1;
    g->taken = true;
    if (g->reply_due && g->conn_fd >= 0) {
        gdb_stop_reply(&g->stop, g->target.swbreak, &g->reply);
        send_packet(g, false, g->reply.data, g->reply.len);
        g->reply_due = false;
    }
}

/* Without a client the guest runs, except at --gdb-wait's first stop,
 * which waits for one: a client that left (or was dropped) takes its
 * breakpoints with it, and the guest goes on. */
static void let_go(struct gdb *g)
{
    gdb_target_remove_all(&g->target);
    resume_all(g);
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
    case GDB_RESUME:
        if (!g->no_ack)
            send_bytes(g, "+", 1);
        g->reply_due = true;
        resume(g);
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
        for (unsigned i = 0; i < g->nr_vcpus; i++)
            post(g->resume_fd[i]);
        pthread_mutex_unlock(&g->lock);
        break;
    }
}

/* A whole packet with a good checksum. Packets need the guest stopped; a
 * client that sends one while it runs (gdb does not) gets an error. */
static void packet(struct gdb *g)
{
    if (state_of(g) != GDB_STOPPED || !g->taken) {
        send_packet(g, true, "E01", 3);
        return;
    }
    act(g, gdb_command(&g->target, &g->stop, g->in.data, g->in.len, &g->reply));
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

/* Under the lock: what the thread does next, before it waits. */
enum gdb_turn { TURN_WAIT, TURN_END, TURN_TAKE, TURN_LET_GO };

static enum gdb_turn next_turn(struct gdb *g)
{
    if (g->state == GDB_ENDED)
        return TURN_END;
    if (gathered(g))
        return TURN_TAKE;
    if (g->state == GDB_STOPPED) {
        take_registers(g);   /* one that stopped late */
        if (g->conn_fd < 0 && !g->wait)
            return TURN_LET_GO;
    }
    return TURN_WAIT;
}

/* What the thread waits on: the vCPU threads' news and new clients
 * always; the client's bytes except while a stop is on its way, when it
 * kicks the vCPUs not stopped yet now and then. */
static void serve(void *arg)
{
    struct gdb *g = arg;

    for (;;) {
        struct pollfd p[3] = {
            { .fd = g->wake_fd, .events = POLLIN },
            { .fd = g->listen_fd, .events = POLLIN },
            { .fd = g->conn_fd, .events = POLLIN },
        };
        enum gdb_turn turn;
        bool stopping;

        pthread_mutex_lock(&g->lock);
        turn = next_turn(g);
        stopping = g->state == GDB_STOPPING;
        if (stopping)
            kick(g);
        pthread_mutex_unlock(&g->lock);
        if (turn == TURN_END) {
            ended(g);
            return;
        }
        if (turn == TURN_TAKE) {
            take_stop(g);
            continue;
        }
        if (turn == TURN_LET_GO) {
            let_go(g);
            continue;
        }
        if (stopping)
            p[2].fd = -1;
        if (poll(p, 3, stopping ? KICK_INTERVAL_MS : -1) <= 0)
            continue;
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
