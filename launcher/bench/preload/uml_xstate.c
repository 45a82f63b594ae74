/*
 * Loaded into Debian's linux.uml by `perch bench --uml` (LD_PRELOAD), so
 * that UML runs on a host whose XSAVE area is larger than UML knows of
 * (AMX's tile data: ~11 KiB against UML 6.1's fixed buffer).
 *
 * UML saves and restores each guest process's FPU state with ptrace's
 * NT_X86_XSTATE regset. Reading a short buffer works (the host copies what
 * fits); writing one does not: the host takes only the whole area and
 * answers EFAULT, and UML panics ("ptrace set fp regs failed") at its
 * first process. Here such a write becomes a whole one: the process's
 * current area, read first, with UML's bytes over its start. What lies
 * past them belongs to features UML's processes never enable (AMX needs a
 * permission they never ask for), so keeping it as it is loses nothing.
 * Every other request, and every write until the host has refused a short
 * one, passes straight on: where UML's buffer is whole, UML pays nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Larger than any XSAVE area x86 defines (AMX makes ~11 KiB). */
#define XSTATE_MAX (64 * 1024)

typedef long ptrace_fn(int request, pid_t pid, void *addr, void *data);

static ptrace_fn *real_ptrace(void)
{
    static ptrace_fn *real;

    if (!real)
        real = (ptrace_fn *)dlsym(RTLD_NEXT, "ptrace");
    return real;
}

/* The host's whole area, learnt when it first refused a shorter write;
 * 0 until then. */
static size_t whole_len;

/* A write of the area; the host's answer. */
static long set_xstate(pid_t pid, const struct iovec *part)
{
    static uint8_t whole[XSTATE_MAX] __attribute__((aligned(64)));
    struct iovec iov = { whole, sizeof(whole) };
    long rc;

    if (!whole_len || part->iov_len >= whole_len) {
        rc = real_ptrace()(PTRACE_SETREGSET, pid, (void *)NT_X86_XSTATE, (void *)part);
        if (rc == 0 || errno != EFAULT || whole_len)
            return rc;
    }
    if (real_ptrace()(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) < 0)
        return -1;
    if (part->iov_len >= iov.iov_len) {
        errno = EFAULT;                /* refused for another reason: as it was */
        return -1;
    }
    whole_len = iov.iov_len;
    memcpy(whole, part->iov_base, part->iov_len);
    return real_ptrace()(PTRACE_SETREGSET, pid, (void *)NT_X86_XSTATE, &iov);
}

long ptrace(enum __ptrace_request request, ...)
{
    va_list ap;
    pid_t pid;
    void *addr, *data;

    va_start(ap, request);
    pid = va_arg(ap, pid_t);
    addr = va_arg(ap, void *);
    data = va_arg(ap, void *);
    va_end(ap);
    if (!real_ptrace()) {
        errno = ENOSYS;
        return -1;
    }
    if (request == PTRACE_SETREGSET && (uintptr_t)addr == NT_X86_XSTATE && data)
        return set_xstate(pid, data);
    return real_ptrace()((int)request, pid, addr, data);
}
