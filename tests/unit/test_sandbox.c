/*
 * Unit tests of the Launcher's sandbox (launcher/vm/sandbox.c), each in a
 * child process that enters it: what the running guest's threads need
 * still works, and anything else ends the process with one line naming
 * the system call and STATUS_SANDBOX.
 */
#include <errno.h>
#include <linux/landlock.h>
#include <liburing.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdint.h>
#include <sched.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "net_session.h"

#include "../../launcher/disk/blkif_engine.h"
#include "../../launcher/vm/sandbox.h"
#include "../../launcher/base/status.h"

static char said[512];   /* what the child wrote to stderr */

/* The child's end, straight to the kernel: a sanitizer's _exit() hook
 * makes calls the sandbox refuses. */
static void child_exit(int status)
{
    syscall(SYS_exit_group, status);
}

/* What a child makes before it enters the sandbox (NULL: nothing), and
 * the extras (SANDBOX_*) it enters with. */
static void (*before_sandbox)(void);
static unsigned sandbox_extra;

/* Run fn in a child inside the sandbox; its exit status, or -1 if it did
 * not exit (a signal killed it). */
static int in_sandbox(void (*fn)(int fd))
{
    int err[2], status;
    ssize_t n, len = 0;
    pid_t pid;

    if (pipe(err))
        return -2;
    pid = fork();
    if (pid == 0) {
        struct error e;

        dup2(err[1], STDERR_FILENO);
        close(err[0]);
        if (before_sandbox)
            before_sandbox();
        if (sandbox_enter(sandbox_extra, &e))
            child_exit(99);
        fn(err[1]);
        child_exit(0);
    }
    close(err[1]);
    while ((n = read(err[0], said + len, sizeof(said) - 1 - len)) > 0)
        len += n;
    said[len] = '\0';
    close(err[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A console and vCPU thread's day: writes, clocks, its own pid, isatty()
 * (TCGETS), a close, a yield. */
static void allowed_calls(int fd)
{
    struct timespec now, nap = { 0, 1000 };

    if (write(fd, "", 0) < 0 || getpid() <= 0 ||
        clock_gettime(CLOCK_MONOTONIC, &now) || nanosleep(&nap, NULL) ||
        isatty(fd) || sched_yield())
        child_exit(1);
    if (close(-1) == 0)   /* refused by the kernel (EBADF), not the filter */
        child_exit(2);
}

static void forbidden_getppid(int fd)
{
    (void)fd;
    syscall(SYS_getppid);
    child_exit(3);   /* not reached: the filter traps */
}

static void forbidden_open(int fd)
{
    (void)fd;
    syscall(SYS_openat, AT_FDCWD, "/etc/passwd", 0);
    child_exit(3);
}

static void forbidden_ioctl(int fd)
{
    int queued;

    ioctl(fd, FIONREAD, &queued);   /* ioctl, but not a request in use */
    child_exit(3);
}

/* What an allocator does under the filter: map, protect, unmap memory. */
static void allocator_calls(int fd)
{
    void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    (void)fd;
    if (p == MAP_FAILED || mprotect(p, 4096, PROT_READ) || munmap(p, 1 << 20))
        child_exit(1);
}

static void forbidden_exec_mapping(int fd)
{
    (void)fd;
    mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    child_exit(3);
}

static void forbidden_exec_protect(int fd)
{
    static char page[4096] __attribute__((aligned(4096)));

    (void)fd;
    mprotect(page, sizeof(page), PROT_READ | PROT_EXEC);
    child_exit(3);
}

static void memory_is_mapped_but_never_executable(void)
{
    char want[64];

    CHECK(in_sandbox(allocator_calls) == 0);
    CHECK(in_sandbox(forbidden_exec_mapping) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_mmap);
    CHECK_CONTAINS(said, want);
    CHECK(in_sandbox(forbidden_exec_protect) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_mprotect);
    CHECK_CONTAINS(said, want);
}

static void what_the_run_needs_is_allowed(void)
{
    CHECK(in_sandbox(allowed_calls) == 0);
    CHECK(said[0] == '\0');
}

static void other_calls_end_perch_with_one_line(void)
{
    char want[64];

    CHECK(in_sandbox(forbidden_getppid) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is not allowed", SYS_getppid);
    CHECK_CONTAINS(said, want);
    CHECK(!strncmp(said, "perch: sandbox: ", 16));
    CHECK(strchr(said, '\n') == said + strlen(said) - 1);

    CHECK(in_sandbox(forbidden_open) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_openat);
    CHECK_CONTAINS(said, want);
}

static void only_the_ioctls_in_use(void)
{
    char want[64];

    CHECK(in_sandbox(forbidden_ioctl) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_ioctl);
    CHECK_CONTAINS(said, want);
}

/* ---- the block back end's io_uring ---- */

static struct blkif_engine engine;
static int zero_fd = -1;

static void open_engine(void)
{
    struct error e;

    zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (zero_fd < 0 || blkif_engine_open(&engine, &e))
        child_exit(98);
}

/* One SQE through the engine made before the sandbox, submitted and
 * awaited with io_uring_enter as blkif_io.c does: a readv of /dev/zero
 * (an operation blkif uses) or a NOP (one it does not); its result. */
static int engine_sqe(bool readv)
{
    static char buf[512];
    static struct iovec iov = { buf, sizeof(buf) };
    struct io_uring_sqe *sqe = io_uring_get_sqe(&engine.uring);
    struct io_uring_cqe *cqe;
    int res;

    if (readv)
        io_uring_prep_readv(sqe, zero_fd, &iov, 1, 0);
    else
        io_uring_prep_nop(sqe);
    if (io_uring_submit(&engine.uring) != 1 || io_uring_wait_cqe(&engine.uring, &cqe))
        return -1000;
    res = cqe->res;
    io_uring_cqe_seen(&engine.uring, cqe);
    return res;
}

static void engine_io(int fd)
{
    (void)fd;
    if (engine_sqe(true) != 512)
        child_exit(1);
    if (engine_sqe(false) != -EACCES)   /* the ring's restriction, not the filter */
        child_exit(2);
}

static void forbidden_io_uring_setup(int fd)
{
    struct io_uring_params p;

    (void)fd;
    memset(&p, 0, sizeof(p));
    syscall(__NR_io_uring_setup, 4, &p);
    child_exit(3);
}

/* Even on the engine's own ring: a registration could lift nothing (the
 * ring refuses them all), but the call stays out of reach. */
static void forbidden_io_uring_register(int fd)
{
    (void)fd;
    syscall(__NR_io_uring_register, engine.uring.ring_fd,
            IORING_UNREGISTER_EVENTFD, NULL, 0);
    child_exit(3);
}

static void only_io_uring_enter_on_a_ring_made_before(void)
{
    char want[64];

    before_sandbox = open_engine;
    CHECK(in_sandbox(engine_io) == 0);
    CHECK(said[0] == '\0');
    CHECK(in_sandbox(forbidden_io_uring_register) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", __NR_io_uring_register);
    CHECK_CONTAINS(said, want);
    before_sandbox = NULL;
    CHECK(in_sandbox(forbidden_io_uring_setup) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", __NR_io_uring_setup);
    CHECK_CONTAINS(said, want);
}

/* ---- --net user: libslirp on the device thread (SANDBOX_SLIRP) ---- */

static struct net_link *slirp;
static struct session_host host;
static struct frames got;
static uint16_t fwd_port;

static void open_slirp(void)
{
    char value[64];
    struct net_option o;
    struct error e;

    fwd_port = frames_free_port();
    snprintf(value, sizeof(value), "user,hostfwd=tcp::%u-:80", fwd_port);
    if (net_option_parse(value, &o, &e) || net_link_open(&slirp, &o, &e) ||
        session_host_open(&host))
        child_exit(98);
    net_link_attach(slirp, frames_collect, &got);
}

/* Each conversation the link's tests hold, now inside the filter. */
static void slirp_sessions(int fd)
{
    char why[128];

    if (session_guest_connects_out(slirp, &got, &host, why) ||
        session_guest_udp(slirp, &got, &host, why) ||
        session_host_connects_in(slirp, &got, fwd_port, why)) {
        dprintf(fd, "%s\n", why);
        child_exit(1);
    }
    net_link_close(slirp);
}

static bool have_landlock(void)
{
    return syscall(__NR_landlock_create_ruleset, NULL, 0,
                   LANDLOCK_CREATE_RULESET_VERSION) >= 1;
}

/* libslirp's read of the host's resolver, and not one other file. */
static void only_resolv_conf(int fd)
{
    int conf = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC), conf_err = errno;
    int other = open("/etc/passwd", O_RDONLY | O_CLOEXEC), other_err = errno;

    (void)fd;
    if (conf < 0 && conf_err != ENOENT)
        child_exit(1);
    if (other >= 0 || other_err != EACCES)
        child_exit(2);
}

static void no_open_for_writing(int fd)
{
    (void)fd;
    syscall(SYS_openat, AT_FDCWD, "/etc/resolv.conf", O_WRONLY);
    child_exit(3);
}

static void no_new_listening_port(int fd)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    int s = socket(AF_INET, SOCK_STREAM, 0);

    (void)fd;
    if (s < 0)
        child_exit(1);
    bind(s, (struct sockaddr *)&a, sizeof(a));
    child_exit(3);
}

/* Only Internet sockets: the others fail as an unknown family would. */
static void only_internet_sockets(int fd)
{
    static const int families[] = { AF_UNIX, AF_NETLINK, AF_PACKET };

    (void)fd;
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
        if (socket(families[i], SOCK_DGRAM, 0) >= 0 || errno != EAFNOSUPPORT)
            child_exit(1 + (int)i);
}

static void forbidden_socket(int fd)
{
    (void)fd;
    socket(AF_INET, SOCK_STREAM, 0);
    child_exit(3);
}

static void slirp_runs_in_its_sandbox(void)
{
    before_sandbox = open_slirp;
    sandbox_extra = SANDBOX_SLIRP;
    CHECK(in_sandbox(slirp_sessions) == 0);
    CHECK(have_landlock() ? said[0] == '\0' : !strncmp(said, "perch: note: ", 13));
    before_sandbox = NULL;
    sandbox_extra = 0;
}

static void slirp_reads_only_resolv_conf(void)
{
    char want[64];

    sandbox_extra = SANDBOX_SLIRP;
    if (have_landlock())
        CHECK(in_sandbox(only_resolv_conf) == 0);
    CHECK(in_sandbox(no_open_for_writing) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_openat);
    CHECK_CONTAINS(said, want);
    sandbox_extra = 0;
}

static void slirp_gets_no_more_than_it_needs(void)
{
    char want[64];

    sandbox_extra = SANDBOX_SLIRP;
    CHECK(in_sandbox(no_new_listening_port) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_bind);
    CHECK_CONTAINS(said, want);
    CHECK(in_sandbox(only_internet_sockets) == 0);
    CHECK(in_sandbox(forbidden_getppid) == STATUS_SANDBOX);
    sandbox_extra = 0;
    /* Without the extra, no socket at all. */
    CHECK(in_sandbox(forbidden_socket) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_socket);
    CHECK_CONTAINS(said, want);
}

/* ---- --gdb: its thread (SANDBOX_GDB) ---- */

static int gdb_listener = -1;

/* A listening socket on 127.0.0.1 with a client already waiting, made
 * before the sandbox as gdb_listen() makes it. */
static void open_gdb_listener(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int client;

    gdb_listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (gdb_listener < 0 || bind(gdb_listener, (struct sockaddr *)&a, sizeof(a)) ||
        listen(gdb_listener, 1) || getsockname(gdb_listener, (struct sockaddr *)&a, &len))
        child_exit(90);
    client = socket(AF_INET, SOCK_STREAM, 0);
    if (client < 0 || connect(client, (struct sockaddr *)&a, sizeof(a)))
        child_exit(91);
}

/* What the gdb thread does: accept, poll, read, write, eventfd words. */
static void gdb_session(int fd)
{
    struct pollfd p = { .fd = gdb_listener, .events = POLLIN };
    int conn;

    (void)fd;
    if (poll(&p, 1, 5000) != 1)
        child_exit(1);
    conn = accept4(gdb_listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (conn < 0)
        child_exit(2);
    if (write(conn, "+$OK#9a", 7) != 7)
        child_exit(3);
    close(conn);
}

static void gdb_accepts_in_its_sandbox(void)
{
    char want[64];

    before_sandbox = open_gdb_listener;
    sandbox_extra = SANDBOX_GDB;
    CHECK(in_sandbox(gdb_session) == 0);
    CHECK(said[0] == '\0');
    /* No new port, no other socket. */
    CHECK(in_sandbox(no_new_listening_port) == STATUS_SANDBOX);
    CHECK(in_sandbox(forbidden_getppid) == STATUS_SANDBOX);
    /* Without the extra, no accept. */
    sandbox_extra = 0;
    CHECK(in_sandbox(gdb_session) == STATUS_SANDBOX);
    snprintf(want, sizeof(want), "system call %d is", SYS_accept4);
    CHECK_CONTAINS(said, want);
    before_sandbox = NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* no buffered lines doubled by fork */
    RUN(what_the_run_needs_is_allowed);
    RUN(other_calls_end_perch_with_one_line);
    RUN(only_the_ioctls_in_use);
    RUN(memory_is_mapped_but_never_executable);
    RUN(only_io_uring_enter_on_a_ring_made_before);
    RUN(slirp_runs_in_its_sandbox);
    RUN(slirp_reads_only_resolv_conf);
    RUN(slirp_gets_no_more_than_it_needs);
    RUN(gdb_accepts_in_its_sandbox);
    return check_exit_status();
}
