/*
 * The Host's slow path: asking the Launcher. The request sits in the shared
 * page; the Switcher's EXIT gate leaves the VM (~8 us from ring 0) and the
 * vCPU comes back here when the Launcher is done.
 */
#include <stdarg.h>

#include "env.h"
#include "host.h"
#include "host_lock.h"
#include "stats.h"
#include "vcpu.h"
#include "where.h"
#include "../../lib/fmt.h"

/* The page shared with the Launcher, where requests and their answers sit.
 * Page-aligned so the Launcher can find it from the image header and map
 * nothing else of the Host's data by accident when it reads it. */
struct perch_shared perch_shared __attribute__((aligned(4096)));

void launcher_request(enum perch_request reason, uint64_t arg0)
{
    perch_shared.request.reason = reason;
    perch_shared.request.arg[0] = arg0;
    count_visit_of(PERCH_VISIT_SERVICE_EXIT);
    env_call_launcher();
    perch_shared.request.reason = PERCH_REQ_NONE;
}

bool gdb_enabled;

bool gdb_stop_asked(void)
{
    return gdb_enabled &&
           __atomic_load_n(&perch_shared.gdb.cpu[current->id].stop, __ATOMIC_SEQ_CST);
}

void launcher_gdb_stop(uint64_t why)
{
    volatile struct perch_gdb_vcpu *g = &perch_shared.gdb.cpu[current->id];
    bool held;

    if (why == PERCH_GDB_STOP_OFFLINE)
        g->regs = (struct perch_gdb_regs){ 0 };
    g->resume = PERCH_GDB_CONTINUE;
    g->regs_changed = 0;
    __atomic_store_n(&g->stop, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g->stopped, why, __ATOMIC_SEQ_CST);
    count_visit_of(PERCH_VISIT_SERVICE_EXIT);
    held = host_lock_let_go();
    env_call_launcher();
    host_lock_take_back(held);
}

_Noreturn void host_fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fmt_vsnprintf(perch_shared.request.message,
                  sizeof(perch_shared.request.message), fmt, ap);
    va_end(ap);
    where_report();
    for (;;)   /* a Launcher never resumes a fatal request */
        launcher_request(PERCH_REQ_FATAL, 0);
}
