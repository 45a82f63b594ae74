/*
 * Unit tests of the Launcher's sandbox (launcher/sandbox.c), each in a
 * child process that enters it: what the running guest's threads need
 * still works, and anything else ends the process with one line naming
 * the system call and STATUS_SANDBOX.
 */
#include <errno.h>
#include <liburing.h>
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

#include "../../launcher/blkif_engine.h"
#include "../../launcher/sandbox.h"
#include "../../launcher/status.h"

static char said[512];   /* what the child wrote to stderr */

/* The child's end, straight to the kernel: a sanitizer's _exit() hook
 * makes calls the sandbox refuses. */
static void child_exit(int status)
{
    syscall(SYS_exit_group, status);
}

/* What a child makes before it enters the sandbox (NULL: nothing). */
static void (*before_sandbox)(void);

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
        if (sandbox_enter(0, &e))
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

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* no buffered lines doubled by fork */
    RUN(what_the_run_needs_is_allowed);
    RUN(other_calls_end_perch_with_one_line);
    RUN(only_the_ioctls_in_use);
    RUN(memory_is_mapped_but_never_executable);
    RUN(only_io_uring_enter_on_a_ring_made_before);
    return check_exit_status();
}
