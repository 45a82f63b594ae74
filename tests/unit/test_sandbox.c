/*
 * Unit tests of the Launcher's sandbox (launcher/sandbox.c), each in a
 * child process that enters it: what the running guest's threads need
 * still works, and anything else ends the process with one line naming
 * the system call and STATUS_SANDBOX.
 */
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

#include "../../launcher/sandbox.h"
#include "../../launcher/status.h"

static char said[512];   /* what the child wrote to stderr */

/* The child's end, straight to the kernel: a sanitizer's _exit() hook
 * makes calls the sandbox refuses. */
static void child_exit(int status)
{
    syscall(SYS_exit_group, status);
}

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
        if (sandbox_enter(&e))
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

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* no buffered lines doubled by fork */
    RUN(what_the_run_needs_is_allowed);
    RUN(other_calls_end_perch_with_one_line);
    RUN(only_the_ioctls_in_use);
    RUN(memory_is_mapped_but_never_executable);
    return check_exit_status();
}
