/* The vCPU loop: KVM_RUN until the guest ends, and what each exit to the Launcher means. */
#include "vcpu_loop.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../../abi/xen/sched.h"
#include "../base/status.h"
#include "../vm/confined_thread.h"

const char *const exit_kind_names[EXIT_KIND_COUNT] = {
    [EXIT_REQUEST_SHUTDOWN] = "shutdown request",
    [EXIT_REQUEST_CONSOLE] = "console ring full",
    [EXIT_REQUEST_FATAL] = "guest stopped by the Host",
    [EXIT_REQUEST_PING] = "perch_op launcher round trip",
    [EXIT_REQUEST_GDB] = "stopped for gdb",
    [EXIT_REQUEST_RELEASE] = "balloon frames released",
    [EXIT_RING0_FATAL] = "ring-0 fatal (NMI, #DF, #MC)",
    [EXIT_SIGNAL] = "signal",
    [EXIT_OTHER] = "other",
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static void on_kick(int sig)
{
    (void)sig;
}

void guest_run_signals(void)
{
    struct sigaction stop = { .sa_handler = on_stop };
    struct sigaction kick = { .sa_handler = on_kick };

    sigaction(SIGINT, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGUSR1, &kick, NULL);
}

/* Printable copy of the Host's message: it sits in guest-writable memory. */
static void copy_message(char *dst, size_t size, const volatile char *src)
{
    size_t i;

    for (i = 0; i + 1 < size && i < PERCH_FATAL_MSG_BYTES && src[i]; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
    dst[i] = '\0';
}

static int shutdown_status(uint64_t reason, struct error *e)
{
    switch (reason) {
    case SHUTDOWN_poweroff:
        return STATUS_POWEROFF;
    case SHUTDOWN_reboot:
        fail(e, "guest requested a reboot");
        return STATUS_REBOOT;
    case SHUTDOWN_crash:
        fail(e, "guest crashed (SHUTDOWN_crash)");
        return STATUS_CRASH;
    case SHUTDOWN_watchdog:
        fail(e, "guest watchdog fired");
        return STATUS_WATCHDOG;
    default:
        fail(e, "guest asked for shutdown reason %lu, which perch does not "
             "support", reason);
        return STATUS_GUEST_STOPPED;
    }
}

/* Did a guest-facing thread find the guest breaking a ring? */
static int threads_verdict(struct guest_run *r, struct error *e)
{
    int status = console_verdict(r->console, e);

    if (status < 0 && r->devices)
        status = devices_verdict(r->devices, e);
    return status;
}

void vcpu_group_init(struct vcpu_group *g, unsigned nr)
{
    pthread_condattr_t attr;

    memset(g, 0, sizeof(*g));
    pthread_mutex_init(&g->lock, NULL);
    /* The watch's second is the machine's, whatever the wall clock does. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->ended, &attr);
    pthread_condattr_destroy(&attr);
    g->nr = nr;
}

void vcpu_group_join(struct vcpu_group *g, unsigned i, pthread_t thread,
                     struct kvm_vcpu *vcpu)
{
    g->member[i].thread = thread;
    g->member[i].immediate_exit = &vcpu->run->immediate_exit;
}

/* The first end says how the guest ended: true for it. */
static bool first_end(struct vcpu_group *g, int status, const struct error *e,
                      const struct guest_where *where)
{
    bool first;

    pthread_mutex_lock(&g->lock);
    first = !atomic_load(&g->over);
    if (first) {
        g->status = status;
        g->e = *e;
        g->where = *where;
        atomic_store(&g->over, true);
        pthread_cond_broadcast(&g->ended);
    }
    pthread_mutex_unlock(&g->lock);
    return first;
}

/* Every vCPU but `spared` out of KVM_RUN (immediate_exit for one about to
 * enter it). */
static void stop_all_but(struct vcpu_group *g, unsigned spared)
{
    for (unsigned i = 0; i < g->nr; i++) {
        if (i == spared || !g->member[i].immediate_exit)
            continue;
        confined_thread_stop_vcpu(g->member[i].immediate_exit, g->member[i].thread);
    }
}

/* The first run to end says how the guest ended; every other vCPU is
 * kicked out of KVM_RUN. */
void vcpu_group_end(struct guest_run *r, int status, const struct error *e)
{
    if (first_end(r->group, status, e, &r->where))
        stop_all_but(r->group, r->vcpu->id);
}

void vcpu_group_fail(struct vcpu_group *g, int status, const struct error *e)
{
    const struct guest_where nowhere = { 0 };

    if (first_end(g, status, e, &nowhere))
        stop_all_but(g, g->nr);
}

#define WATCH_SECONDS 1

void vcpu_group_watch(struct vcpu_group *g)
{
    pthread_mutex_lock(&g->lock);
    while (!atomic_load(&g->over)) {
        struct timespec until;

        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += WATCH_SECONDS;
        /* Only a signal: an immediate_exit left set would end every
         * KVM_RUN after it at once. */
        if (pthread_cond_timedwait(&g->ended, &g->lock, &until) == ETIMEDOUT &&
            !atomic_load(&g->over))
            for (unsigned i = 0; i < g->nr; i++)
                pthread_kill(g->member[i].thread, SIGUSR1);
    }
    pthread_mutex_unlock(&g->lock);
}

/* Must the run end, for a stop signal, a thread's verdict or another vCPU's
 * end? Its status, or -1 to go on. */
static int run_must_end(struct guest_run *r, struct error *e)
{
    if (r->group && atomic_load(&r->group->over))
        return GUEST_RUN_ENDED_ELSEWHERE;
    if (stop_signal) {
        fail(e, "stopped by %s", strsignal(stop_signal));
        return STATUS_INTERRUPTED;
    }
    return threads_verdict(r, e);
}

/* The guest stopped for gdb: the vCPU waits here until gdb lets it go on.
 * A signal or a guest-facing thread's verdict still ends the run. */
static int stopped_for_gdb(struct guest_run *r, uint64_t why, struct error *e)
{
    r->stats.exits[EXIT_REQUEST_GDB]++;
    if (!r->gdb) {
        fail(e, "guest stopped: a stop for gdb without --gdb");
        return STATUS_GUEST_STOPPED;
    }
    for (;;) {
        int status;

        /* The number is the guest's to forge: only the kinds there are. */
        switch (gdb_stopped(r->gdb, r->vcpu->id,
                            why == PERCH_GDB_STOP_INT || why == PERCH_GDB_STOP_BREAKPOINT ||
                            why == PERCH_GDB_STOP_OFFLINE
                            ? (uint32_t)why : PERCH_GDB_STOP_TRAP)) {
        case GDB_GO_ON:
            return -1;
        case GDB_END_RUN:
            fail(e, "stopped by gdb (kill)");
            return STATUS_INTERRUPTED;
        case GDB_INTERRUPTED:
            status = run_must_end(r, e);
            if (status >= 0)
                return status;
        }
    }
}

/*
 * The guest's balloon gave frames back (host/mm/reservation.c): their
 * memory goes back to the host, and reads as zero when the guest takes
 * them again. The ranges are numbers in guest-writable memory: each must
 * lie among the guest's own frames, or the guest is stopped. -1 to keep
 * running, else the exit status.
 */
static int release_frames(struct guest_run *r, volatile struct perch_shared *sh,
                          struct error *e)
{
    uint64_t nr = sh->release.nr, first_guest = r->gm->guest_mfn_base;

    r->stats.exits[EXIT_REQUEST_RELEASE]++;
    if (nr > PERCH_RELEASE_RANGES) {
        fail(e, "guest stopped: %" PRIu64 " frame ranges to release, more than %u", nr,
             PERCH_RELEASE_RANGES);
        return STATUS_GUEST_STOPPED;
    }
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t first = sh->release.range[i].first_mfn, n = sh->release.range[i].frames;

        if (first < first_guest || first - first_guest >= r->gm->nr_pages ||
            n > r->gm->nr_pages - (first - first_guest)) {
            fail(e, "guest stopped: frames %#" PRIx64 " + %" PRIu64 " to release are not "
                 "the guest's", first, n);
            return STATUS_GUEST_STOPPED;
        }
        /* Only a kernel that refuses MADV_DONTNEED keeps the memory; the
         * guest still reads zeros from frames it takes again. */
        if (!madvise(gm_frame(r->gm, first), n * PAGE_SIZE, MADV_DONTNEED))
            r->stats.frames_released += n;
    }
    return -1;
}

/* The Host asked for something through the EXIT gate. Returns -1 to keep
 * running, else the exit status. */
static int handle_request(struct guest_run *r, struct error *e)
{
    volatile struct perch_shared *sh = r->hole->shared;
    /* A stop for gdb is no request: the Host lock is let go meanwhile, and
     * request may be another vCPU's (abi/layout.h). */
    uint64_t gdb_why = __atomic_exchange_n(&sh->gdb.cpu[r->vcpu->id].stopped, 0,
                                           __ATOMIC_SEQ_CST);
    uint32_t reason = sh->request.reason;
    char msg[PERCH_FATAL_MSG_BYTES + 1];
    int status;

    if (gdb_why)
        return stopped_for_gdb(r, gdb_why, e);
    switch (reason) {
    case PERCH_REQ_SHUTDOWN:
        r->stats.exits[EXIT_REQUEST_SHUTDOWN]++;
        status = shutdown_status(sh->request.arg[0], e);
        if (status == STATUS_CRASH)
            crash_line_from_shared(&r->where, sh, status, false);
        return status;
    case PERCH_REQ_CONSOLE_FLUSH:
        r->stats.exits[EXIT_REQUEST_CONSOLE]++;
        if (console_drain(r->console)) {
            fail(e, "guest stopped: %s", r->console->problem);
            return STATUS_GUEST_STOPPED;
        }
        return -1;
    case PERCH_REQ_PING:
        r->stats.exits[EXIT_REQUEST_PING]++;
        return -1;
    case PERCH_REQ_RELEASE_FRAMES:
        return release_frames(r, sh, e);
    case PERCH_REQ_FATAL:
        r->stats.exits[EXIT_REQUEST_FATAL]++;
        copy_message(msg, sizeof(msg), sh->request.message);
        fail(e, "guest stopped: %s", msg);
        crash_line_from_shared(&r->where, sh, STATUS_GUEST_STOPPED, true);
        return STATUS_GUEST_STOPPED;
    default:
        r->stats.exits[EXIT_OTHER]++;
        fail(e, "guest stopped: unknown request %u to the Launcher", reason);
        return STATUS_GUEST_STOPPED;
    }
}

/* The vCPU stopped where KVM's registers say: the crash line names it. */
static int vcpu_stopped(struct guest_run *r)
{
    crash_line_from_vcpu(&r->where, kvm_vcpu_rip(r->vcpu), STATUS_GUEST_STOPPED);
    return STATUS_GUEST_STOPPED;
}

static int handle_io(struct guest_run *r, struct error *e)
{
    struct kvm_run *run = r->vcpu->run;

    if (run->io.direction == KVM_EXIT_IO_OUT && run->io.port == PERCH_EXIT_PORT)
        return handle_request(r, e);
    if (run->io.direction == KVM_EXIT_IO_OUT && run->io.port == PERCH_FATAL_PORT) {
        r->stats.exits[EXIT_RING0_FATAL]++;
        fail(e, "guest stopped: an NMI, double fault or machine check reached "
             "ring 0");
        return STATUS_GUEST_STOPPED;
    }
    r->stats.exits[EXIT_OTHER]++;
    fail(e, "guest stopped: I/O to port %#x from ring 0", run->io.port);
    return vcpu_stopped(r);
}

/* Returns -1 to keep running, else the exit status. */
static int handle_exit(struct guest_run *r, struct error *e)
{
    struct kvm_run *run = r->vcpu->run;

    switch (run->exit_reason) {
    case KVM_EXIT_IO:
        return handle_io(r, e);
    case KVM_EXIT_MMIO:
        fail(e, "guest stopped: access to unbacked physical address %#llx",
             run->mmio.phys_addr);
        break;
    case KVM_EXIT_SHUTDOWN:
        fail(e, "guest stopped: the vCPU triple-faulted");
        break;
    /* Once the vCPU runs, only the guest can have put it in a state KVM
     * cannot emulate or enter (an INIT through the APIC, say). */
    case KVM_EXIT_INTERNAL_ERROR:
        fail(e, "guest stopped: KVM cannot go on (internal error %u)",
             run->internal.suberror);
        break;
    case KVM_EXIT_FAIL_ENTRY:
        /* No rip: the vCPU never entered. */
        fail(e, "guest stopped: KVM cannot enter the vCPU (hardware reason %#llx)",
             run->fail_entry.hardware_entry_failure_reason);
        r->stats.exits[EXIT_OTHER]++;
        return STATUS_GUEST_STOPPED;
    default:
        fail(e, "guest stopped: unexpected KVM exit %u", run->exit_reason);
        break;
    }
    r->stats.exits[EXIT_OTHER]++;
    return vcpu_stopped(r);
}

/*
 * A KVM_RUN that a kick ended has finished what KVM owed the last exit, so
 * the registers are the guest's whole state: the place to hold still for
 * `perch save` (base/hold.h). The kick's immediate_exit is taken back
 * after; a stop asked meanwhile is still seen, by run_must_end. -1 to go
 * on, or STATUS_POWEROFF when the saved guest ends here.
 */
static int held(struct guest_run *r)
{
    bool end;

    if (!hold_asked(r->hold))
        return -1;
    end = hold_here(r->hold);
    __atomic_store_n(&r->vcpu->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
    return end ? STATUS_POWEROFF : -1;
}

/* A vCPU an INIT sent to wait for a SIPI: the guest did it (the local
 * APIC is the guest kernel's to write), so it is stopped. */
static int waits_for_sipi(struct guest_run *r, struct error *e)
{
    if (!r->group || !kvm_vcpu_awaits_sipi(r->vcpu))
        return -1;
    fail(e, "guest stopped: vCPU %u was sent an INIT through the local APIC", r->vcpu->id);
    return STATUS_GUEST_STOPPED;
}

static int run_loop(struct guest_run *r, struct error *e)
{
    for (;;) {
        /* A signal may have come between two exits, where KVM_RUN would
         * not see it: check at every turn. */
        int status = run_must_end(r, e), rc;

        if (status != -1)
            return status;
        rc = kvm_vcpu_run(r->vcpu, e);
        if (rc < 0)
            return STATUS_ERROR;
        if (rc > 0) {
            r->stats.exits[EXIT_SIGNAL]++;
            status = held(r);
            if (status == -1)
                status = run_must_end(r, e);
            if (status == -1)
                status = waits_for_sipi(r, e);
            if (status != -1)
                return status;
            continue;
        }
        status = handle_exit(r, e);
        if (status >= 0)
            return status;
    }
}

int guest_run(struct guest_run *r, struct error *e)
{
    int status = run_loop(r, e);

    if (r->group && status != GUEST_RUN_ENDED_ELSEWHERE)
        vcpu_group_end(r, status, e);
    return status;
}
