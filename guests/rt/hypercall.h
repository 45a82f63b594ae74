/*
 * Hypercalls the way a 64-bit PV kernel makes them since Linux 6.1.121
 * (docs/xen-pv.md section 3): `syscall` in guest-kernel mode with
 * rax = number and the arguments in rdi, rsi, rdx, r10, r8; the result comes
 * back in rax, negative for -errno. The CPU clobbers rcx and r11; every
 * argument register (r9, the sixth, included) is treated as clobbered too,
 * since Xen's debug builds deliberately scribble over them.
 */
#ifndef PERCH_RT_HYPERCALL_H
#define PERCH_RT_HYPERCALL_H

#include "../../abi/xen/sched.h"
#include "../../abi/xen/version.h"
#include "../../abi/xen/xen.h"

static inline long hypercall5(unsigned long nr, unsigned long a1,
                              unsigned long a2, unsigned long a3,
                              unsigned long a4, unsigned long a5)
{
    register unsigned long r10 __asm__("r10") = a4;
    register unsigned long r8 __asm__("r8") = a5;
    long ret;

    __asm__ volatile("syscall"
                     : "=a"(ret), "+D"(a1), "+S"(a2), "+d"(a3),
                       "+r"(r10), "+r"(r8)
                     : "0"(nr)
                     : "rcx", "r11", "r9", "memory", "cc");
    return ret;
}

static inline long hypercall0(unsigned long nr)
{
    return hypercall5(nr, 0, 0, 0, 0, 0);
}

static inline long hypercall1(unsigned long nr, unsigned long a1)
{
    return hypercall5(nr, a1, 0, 0, 0, 0);
}

static inline long hypercall2(unsigned long nr, unsigned long a1,
                              unsigned long a2)
{
    return hypercall5(nr, a1, a2, 0, 0, 0);
}

static inline long hypercall3(unsigned long nr, unsigned long a1,
                              unsigned long a2, unsigned long a3)
{
    return hypercall5(nr, a1, a2, a3, 0, 0);
}

static inline long hypercall4(unsigned long nr, unsigned long a1,
                              unsigned long a2, unsigned long a3,
                              unsigned long a4)
{
    return hypercall5(nr, a1, a2, a3, a4, 0);
}

/* ---- Typed wrappers ---- */

static inline long hc_console_io(unsigned int cmd, unsigned long len,
                                 const void *buf)
{
    return hypercall3(HYPERVISOR_console_io, cmd, len, (unsigned long)buf);
}

static inline long hc_console_write(const char *buf, unsigned long len)
{
    return hc_console_io(CONSOLEIO_write, len, buf);
}

static inline long hc_xen_version(unsigned int cmd, void *arg)
{
    return hypercall2(HYPERVISOR_xen_version, cmd, (unsigned long)arg);
}

static inline long hc_sched_op(unsigned int cmd, void *arg)
{
    return hypercall2(HYPERVISOR_sched_op, cmd, (unsigned long)arg);
}

/* SCHEDOP_shutdown; if the hypervisor ever returns, ask again, forever. */
static inline __attribute__((noreturn)) void xen_shutdown(unsigned int reason)
{
    struct sched_shutdown s = { .reason = reason };

    for (;;)
        hc_sched_op(SCHEDOP_shutdown, &s);
}

#endif
