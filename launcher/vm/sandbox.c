/* The seccomp filter that confines perch's guest-facing threads. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/kvm.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../base/status.h"
#include "../base/terminal.h"

/* Landlock ABI 3's right (Linux 6.2), newer than Debian 12's headers. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

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
    __NR_pread64,                /* KVM's counts, for perch bench's marks */
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
    KVM_GET_XSAVE,           /* --gdb: the guest's x87 and SSE registers */
    KVM_SIGNAL_MSI,          /* console input: the backend's interrupt */
    KVM_GET_MP_STATE,        /* several vCPUs: one an INIT put aside */
    TCGETS, TCSETS,          /* isatty(), and restoring the terminal */
};

/* SANDBOX_SLIRP: what libslirp 4.7 calls on the device thread (strace of
 * a guest's TCP out, UDP, DNS and a forwarded connection in; its
 * listening sockets are made before the sandbox). No bind or listen: no
 * new port opens once the guest runs. */
static const unsigned slirp_calls[] = {
    __NR_fcntl,                                  /* O_NONBLOCK on each socket */
    __NR_connect, __NR_accept,                   /* NAT out, a forward in */
    __NR_sendto, __NR_recvfrom,
    __NR_recvmsg,                                /* MSG_ERRQUEUE: ICMP errors */
    __NR_setsockopt, __NR_getsockopt, __NR_getpeername, __NR_shutdown,
    __NR_newfstatat,                             /* resolv.conf's stat, fopen's fstat */
};
static const unsigned slirp_ioctls[] = {
    FIONREAD,       /* a UDP datagram's size */
    SIOCGIFINDEX,   /* if_nametoindex(), for a resolver "fe80::1%eth0" */
};
/* SANDBOX_GDB: a client on the socket --gdb listens on. */
static const unsigned gdb_calls[] = { __NR_accept4 };

/* socket() only for the Internet: an AF_UNIX or AF_NETLINK socket is
 * refused with EAFNOSUPPORT (glibc's if_nametoindex tries them first). */
static const unsigned slirp_families[] = { AF_INET, AF_INET6 };
/* openat() only without these, and Landlock limits it to resolv.conf. */
#define WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* arch check (3), nr load, the ioctl block, the mapping blocks, openat
 * and socket, a test per call, default. */
#define PROG_MAX  (4 + (3 + 2 * (COUNT(allowed_ioctls) + COUNT(slirp_ioctls))) + \
                   5 * COUNT(allowed_unless_exec) + 5 + \
                   (3 + 2 * COUNT(slirp_families)) + \
                   2 * (COUNT(allowed_calls) + COUNT(slirp_calls) + COUNT(gdb_calls)) + 1)

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
                             offsetof(struct seccomp_data, field))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define JUMP(op, k, yes, no) BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (yes), (no))

struct program {
    struct sock_filter insn[PROG_MAX];
    size_t n;
};

static void emit(struct program *p, struct sock_filter insn)
{
    p->insn[p->n++] = insn;
}

/* "if A == k return action": two instructions. */
static void return_if(struct program *p, unsigned k, unsigned action)
{
    emit(p, (struct sock_filter)JUMP(BPF_JEQ, k, 0, 1));
    emit(p, (struct sock_filter)RET(action));
}

/* "if A == call: allow unless args[2] has a bit of mask": five
 * instructions; A still holds the number when call does not match.
 * args[2] is mmap's and mprotect's prot, openat's flags. */
static void allow_unless(struct program *p, unsigned call, unsigned mask)
{
    emit(p, (struct sock_filter)JUMP(BPF_JEQ, call, 0, 4));
    emit(p, (struct sock_filter)LOAD(args[2]));
    emit(p, (struct sock_filter)JUMP(BPF_JSET, mask, 0, 1));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_TRAP));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

/* "if A == call: allow if args[0] is one of ks, else fail with err". */
static void allow_arg0_in(struct program *p, unsigned call, const unsigned *ks,
                          size_t nr, int err)
{
    emit(p, (struct sock_filter)JUMP(BPF_JEQ, call, 0, (unsigned char)(2 + 2 * nr)));
    emit(p, (struct sock_filter)LOAD(args[0]));
    for (size_t i = 0; i < nr; i++)
        return_if(p, ks[i], SECCOMP_RET_ALLOW);
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ERRNO | (unsigned)err));
}

static void ioctl_block(struct program *p, unsigned extra)
{
    size_t nr = COUNT(allowed_ioctls) + (extra & SANDBOX_SLIRP ? COUNT(slirp_ioctls) : 0);

    emit(p, (struct sock_filter)JUMP(BPF_JEQ, __NR_ioctl, 0, (unsigned char)(2 + 2 * nr)));
    emit(p, (struct sock_filter)LOAD(args[1]));
    for (size_t i = 0; i < COUNT(allowed_ioctls); i++)
        return_if(p, allowed_ioctls[i], SECCOMP_RET_ALLOW);
    for (size_t i = 0; extra & SANDBOX_SLIRP && i < COUNT(slirp_ioctls); i++)
        return_if(p, slirp_ioctls[i], SECCOMP_RET_ALLOW);
    emit(p, (struct sock_filter)RET(SECCOMP_RET_TRAP));
}

/* libslirp's sockets, and its read of resolv.conf: with Landlock in
 * force a read-only openat, else none (EACCES: the guest's DNS goes
 * unanswered, but nothing else breaks). */
static void slirp_block(struct program *p, bool files_confined)
{
    if (files_confined)
        allow_unless(p, __NR_openat, WRITE_FLAGS);
    else
        return_if(p, __NR_openat, SECCOMP_RET_ERRNO | EACCES);
    allow_arg0_in(p, __NR_socket, slirp_families, COUNT(slirp_families), EAFNOSUPPORT);
    for (size_t i = 0; i < COUNT(slirp_calls); i++)
        return_if(p, slirp_calls[i], SECCOMP_RET_ALLOW);
}

/* The program: x86-64 calls only (an x32 or i386 number never matches),
 * ioctl by request (the low 32 bits: the kernel's request is an unsigned
 * int), then the lists; anything else traps into on_sigsys(). */
static void build(struct program *p, unsigned extra, bool files_confined)
{
    p->n = 0;
    emit(p, (struct sock_filter)LOAD(arch));
    emit(p, (struct sock_filter)JUMP(BPF_JEQ, AUDIT_ARCH_X86_64, 1, 0));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS));
    emit(p, (struct sock_filter)LOAD(nr));
    ioctl_block(p, extra);
    for (size_t i = 0; i < COUNT(allowed_unless_exec); i++)
        allow_unless(p, allowed_unless_exec[i], PROT_EXEC);
    if (extra & SANDBOX_SLIRP)
        slirp_block(p, files_confined);
    for (size_t i = 0; extra & SANDBOX_GDB && i < COUNT(gdb_calls); i++)
        return_if(p, gdb_calls[i], SECCOMP_RET_ALLOW);
    for (size_t i = 0; i < COUNT(allowed_calls); i++)
        return_if(p, allowed_calls[i], SECCOMP_RET_ALLOW);
    emit(p, (struct sock_filter)RET(SECCOMP_RET_TRAP));
}

/* Landlock (Linux 5.13 on): from here on this thread may open one file,
 * /etc/resolv.conf, and only to read it (libslirp reads the host's
 * resolver there, on the guest's first DNS query and when it changes).
 * Every other file access the kernel knows how to refuse is refused.
 * Returns whether that is in force. */
static bool confine_files(void)
{
    struct landlock_ruleset_attr attr = { 0 };
    struct landlock_path_beneath_attr rule = { .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE };
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
                       LANDLOCK_CREATE_RULESET_VERSION);
    int ruleset;
    bool done;

    if (abi < 1)
        return false;
    attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;   /* ABI 1's */
    if (abi >= 2)
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
    ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr,
                           sizeof(attr.handled_access_fs), 0);
    if (ruleset < 0)
        return false;
    /* No resolv.conf: no rule, no file at all (and no DNS to forward to). */
    rule.parent_fd = open("/etc/resolv.conf", O_PATH | O_CLOEXEC);
    if (rule.parent_fd >= 0) {
        syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
        close(rule.parent_fd);
    }
    done = syscall(__NR_landlock_restrict_self, ruleset, 0) == 0;
    close(ruleset);
    return done;
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
    struct program prog;
    struct sock_fprog fprog = { .filter = prog.insn };
    struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
    sigset_t sys;
    bool files_confined = false;

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
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        return fail(e, "cannot enter the sandbox: %s (--no-sandbox runs "
                       "without it)", strerror(errno));
    if (extra & SANDBOX_SLIRP) {
        files_confined = confine_files();
        if (!files_confined)
            fprintf(stderr, "perch: note: this kernel has no Landlock, so the "
                            "sandbox lets the network read no file: the guest's "
                            "DNS (10.0.2.3) goes unanswered (--no-sandbox answers "
                            "it)\n");
    }
    build(&prog, extra, files_confined);
    fprog.len = (unsigned short)prog.n;
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
        return fail(e, "cannot enter the sandbox: %s (--no-sandbox runs "
                       "without it)", strerror(errno));
    return 0;
}
