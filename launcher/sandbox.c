/* The seccomp filter that confines perch's guest-facing threads. */
#include "sandbox.h"

#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/kvm.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "status.h"
#include "terminal.h"

/* What the vCPU and console threads call once the guest runs (found with
 * strace -f on a Linux boot, hvc0 from a terminal, and perch bench), and
 * what glibc does for them: thread exit, pthread_kill, mutexes. */
static const unsigned allowed_calls[] = {
    __NR_read, __NR_write, __NR_poll, __NR_ppoll, __NR_close,
    __NR_futex, __NR_sched_yield,
    __NR_rt_sigreturn, __NR_rt_sigprocmask, __NR_restart_syscall,
    __NR_getpid, __NR_gettid, __NR_tgkill,   /* the SIGUSR1 kick */
    __NR_clock_gettime, __NR_clock_nanosleep, __NR_nanosleep,
    __NR_madvise, __NR_munmap,   /* a thread's stack freed at its exit */
    __NR_brk, __NR_mremap,       /* the allocator (glibc's, or ASan's) */
    __NR_sigaltstack,            /* ASan's thread start and exit */
    __NR_exit, __NR_exit_group,
    /* The block back end's I/O, only on its ring made and restricted
     * before the sandbox (blkif_engine.h). io_uring_setup and
     * io_uring_register stay forbidden: an unrestricted ring's operations
     * (OPENAT, ...) never pass through this filter. */
    __NR_io_uring_enter,
};

/* The allocator may map memory at any time (glibc for large blocks, ASan
 * always): mmap and mprotect are allowed, never with PROT_EXEC. */
static const unsigned allowed_unless_exec[] = { __NR_mmap, __NR_mprotect };

/* ioctl only with these requests (on any fd: each acts only on its own
 * kind of fd). */
static const unsigned allowed_ioctls[] = {
    KVM_RUN, KVM_GET_REGS,   /* the vCPU loop, and rip for messages */
    KVM_SIGNAL_MSI,          /* console input: the backend's interrupt */
    TCGETS, TCSETS,          /* isatty(), and restoring the terminal */
};

#define NR_CALLS  (sizeof(allowed_calls) / sizeof(allowed_calls[0]))
#define NR_IOCTLS (sizeof(allowed_ioctls) / sizeof(allowed_ioctls[0]))
#define NR_MAPS   (sizeof(allowed_unless_exec) / sizeof(allowed_unless_exec[0]))
/* arch check (3), nr load, the ioctl block, the mapping blocks, a test
 * per call, default. */
#define PROG_MAX  (4 + (3 + 2 * NR_IOCTLS) + 5 * NR_MAPS + 2 * NR_CALLS + 1)

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
                             offsetof(struct seccomp_data, field))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))

/* "if A == k return ALLOW": two instructions. */
static void allow_if(struct sock_filter *prog, size_t *n, unsigned k)
{
    prog[(*n)++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 1);
    prog[(*n)++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
}

/* "if A == k: allow unless args[2] (prot) has PROT_EXEC": five
 * instructions; A still holds the number when k does not match. */
static void allow_unless_exec(struct sock_filter *prog, size_t *n, unsigned k)
{
    prog[(*n)++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 4);
    prog[(*n)++] = (struct sock_filter)LOAD(args[2]);
    prog[(*n)++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1);
    prog[(*n)++] = (struct sock_filter)RET(SECCOMP_RET_TRAP);
    prog[(*n)++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
}

/* The program: x86-64 calls only (an x32 or i386 number never matches),
 * ioctl by request (the low 32 bits: the kernel's request is an unsigned
 * int), then the list; anything else traps into on_sigsys(). */
static size_t build(struct sock_filter prog[PROG_MAX])
{
    size_t n = 0;

    prog[n++] = (struct sock_filter)LOAD(arch);
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                             AUDIT_ARCH_X86_64, 1, 0);
    prog[n++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
    prog[n++] = (struct sock_filter)LOAD(nr);
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                             __NR_ioctl, 0, 2 + 2 * NR_IOCTLS);
    prog[n++] = (struct sock_filter)LOAD(args[1]);
    for (size_t i = 0; i < NR_IOCTLS; i++)
        allow_if(prog, &n, allowed_ioctls[i]);
    prog[n++] = (struct sock_filter)RET(SECCOMP_RET_TRAP);
    for (size_t i = 0; i < NR_MAPS; i++)
        allow_unless_exec(prog, &n, allowed_unless_exec[i]);
    for (size_t i = 0; i < NR_CALLS; i++)
        allow_if(prog, &n, allowed_calls[i]);
    prog[n++] = (struct sock_filter)RET(SECCOMP_RET_TRAP);
    return n;
}

/* Decimal digits of v into the end of buf; returns where they start. */
static char *decimal(char *end, unsigned v)
{
    do
        *--end = '0' + v % 10;
    while (v /= 10);
    return end;
}

/* To stderr; if it is gone, the exit status still tells. */
static void say(const char *s, size_t n)
{
    ssize_t rc = write(STDERR_FILENO, s, n);

    (void)rc;
}

/* A refused call: one line, the terminal back, out. Only async-signal-
 * safe steps, each of them one the filter allows. */
static void on_sigsys(int sig, siginfo_t *info, void *ctx)
{
    static const char head[] = "perch: sandbox: system call ";
    static const char tail[] = " is not allowed while the guest runs (a perch "
                               "bug; --no-sandbox runs without the sandbox)\n";
    char digits[16], *start = decimal(digits + sizeof(digits), info->si_syscall);

    (void)sig, (void)ctx;
    say(head, sizeof(head) - 1);
    say(start, digits + sizeof(digits) - start);
    say(tail, sizeof(tail) - 1);
    terminal_restore();
    /* Straight to the kernel: no exit hook (a sanitizer's, say) may make
     * another call the filter refuses. */
    syscall(__NR_exit_group, STATUS_SANDBOX);
}

int sandbox_enter(unsigned extra, struct error *e)
{
    struct sock_filter prog[PROG_MAX];
    struct sock_fprog fprog = { .filter = prog };
    struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
    sigset_t sys;

    (void)extra;
    fprog.len = build(prog);
    /* glibc gives a thread arena's memory back by shrinking its heap,
     * which first opens /proc/sys/vm/overcommit_memory: a free() in the
     * filter would end perch. Never trimming keeps free() to the calls
     * above (the memory stays perch's until it exits). */
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    sigaction(SIGSYS, &sa, NULL);
    /* A blocked SIGSYS from the filter would kill without a word. */
    sigemptyset(&sys);
    sigaddset(&sys, SIGSYS);
    pthread_sigmask(SIG_UNBLOCK, &sys, NULL);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
        syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
        return fail(e, "cannot enter the sandbox: %s (--no-sandbox runs "
                       "without it)", strerror(errno));
    return 0;
}
