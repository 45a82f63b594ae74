/*
 * sched_op (Xen 4.17's public/sched.h): yield, block, poll, shut down.
 */
#ifndef PERCH_ABI_XEN_SCHED_H
#define PERCH_ABI_XEN_SCHED_H

#include "xen.h"

#define SCHEDOP_yield           0
#define SCHEDOP_block           1
#define SCHEDOP_shutdown        2
#define SCHEDOP_poll            3
#define SCHEDOP_remote_shutdown 4
#define SCHEDOP_shutdown_code   5
#define SCHEDOP_watchdog        6

#define SHUTDOWN_poweroff 0
#define SHUTDOWN_reboot   1
#define SHUTDOWN_suspend  2
#define SHUTDOWN_crash    3
#define SHUTDOWN_watchdog 4

/* Xen's limit on the ports of one SCHEDOP_poll. */
#define SCHED_POLL_MAX_PORTS 128

#ifndef __ASSEMBLER__

struct sched_shutdown {
    uint32_t reason;           /* SHUTDOWN_* */
};
_Static_assert(sizeof(struct sched_shutdown) == 4, "sched_shutdown");

struct sched_poll {
    uint64_t ports;            /* guest VA of uint32_t ports[nr_ports] */
    uint32_t nr_ports;
    uint64_t timeout;          /* absolute system time (ns); 0: none */
};
_Static_assert(sizeof(struct sched_poll) == 24, "sched_poll");
_Static_assert(offsetof(struct sched_poll, nr_ports) == 8, "sched_poll.nr_ports");
_Static_assert(offsetof(struct sched_poll, timeout) == 16, "sched_poll.timeout");

struct sched_remote_shutdown {
    domid_t domain_id;
    uint32_t reason;
};
_Static_assert(sizeof(struct sched_remote_shutdown) == 8, "sched_remote_shutdown");

#endif /* !__ASSEMBLER__ */

#endif
