/* `perch save`: hold the guest still, write it, let it go (save.h). */
#include "save.h"
#include "../base/clock.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../vm/confined_thread.h"
#include "guest_clock.h"
#include "save_point.h"
#include "../xenbus/xenstore_save.h"

/* A vCPU that takes this long to leave KVM_RUN is not coming. */
#define HOLD_TIMEOUT_MS 5000
/* Holds to try for one in which every vCPU's state is whole (save_point.h),
 * the guest running a millisecond between two. */
#define HOLD_TRIES 200

/* Every vCPU kicked out of KVM_RUN, the console and the devices woken:
 * each then stands still at its safe point. */
static void wake_all(struct save_source *s)
{
    uint64_t one = 1;

    for (unsigned i = 0; i < s->config.nr_cpus; i++)
        confined_thread_stop_vcpu(&s->vm->vcpus[i].run->immediate_exit, s->threads[i]);
    if (write(s->console_doorbell_fd, &one, sizeof(one)) < 0) {
        /* it can only be full: the console wakes anyway */
    }
    devices_wake(s->devices);
}

/* What a restore must find again: each disk flushed to its file, named
 * by its absolute path, with its size and last change. */
static int describe_disks(struct save_source *s, struct snapshot *snap, struct error *e)
{
    _Static_assert(MAX_DISKS <= SNAPSHOT_DISKS_MAX, "every disk fits a snapshot");
    for (unsigned i = 0; i < s->nr_disks; i++) {
        const struct disk *d = &s->disks[i];
        struct snapshot_disk *out = &snap->disks[i];
        char path[PATH_MAX];
        struct stat st;

        if ((!d->readonly && fdatasync(d->fd)) || fstat(d->fd, &st))
            return fail(e, "cannot flush %s: %s", d->path, strerror(errno));
        if (!realpath(d->path, path) || strlen(path) >= sizeof(out->path))
            return fail(e, "cannot name %s for the snapshot", d->path);
        strcpy(out->path, path);
        out->bytes = (uint64_t)st.st_size;
        out->mtime_ns = timespec_ns(st.st_mtim);
        out->readonly = d->readonly;
    }
    snap->config.nr_disks = s->nr_disks;
    return 0;
}

/* Every thread held, with every vCPU's state whole, its state in vcpus;
 * else the guest runs on (-1 with e). */
static int hold_whole(struct save_source *s, struct kvm_vcpu_state *vcpus, struct error *e)
{
    static const struct timespec moment = { 0, 1000000 };

    for (unsigned tries = 0; tries < HOLD_TRIES; tries++) {
        bool whole = true;

        hold_ask(&s->hold);
        wake_all(s);
        if (!hold_wait(&s->hold, s->config.nr_cpus + 2, HOLD_TIMEOUT_MS)) {
            hold_release(&s->hold, false);
            return fail(e, "the guest did not stand still within %d s", HOLD_TIMEOUT_MS / 1000);
        }
        for (unsigned i = 0; whole && i < s->config.nr_cpus; i++) {
            if (kvm_vcpu_state_get(&s->vm->vcpus[i], &vcpus[i], e)) {
                hold_release(&s->hold, false);
                return -1;
            }
            whole = save_point_whole(s->gm, &vcpus[i]);
        }
        if (whole)
            return 0;
        hold_release(&s->hold, false);
        nanosleep(&moment, NULL);
    }
    return fail(e, "the guest was never held at a point it can be saved at (%d tries)",
                HOLD_TRIES);
}

/* With every thread held: the vCPUs, xenstore and memory into f. */
static int write_held(struct save_source *s, struct snapshot *snap, FILE *f, struct error *e)
{
    bool native;

    snap->config.saved_at_ns = clock_ns(CLOCK_REALTIME);
    snap->config.tsc_at_save = guest_clock_at_save(
        s->hole->shared, s->gm, s->hole->shared_info_mfn * PAGE_SIZE,
        kvm_vcpu_state_tsc(&snap->vcpus[0]), &native);
    snap->config.tsc_native = native;
    if (describe_disks(s, snap, e) ||
        xenstore_save(s->devices->xs, &snap->xenstore, &snap->xenstore_len, e))
        return -1;
    return snapshot_write(f, snap, s->gm, e);
}

int save_guest(struct save_source *s, FILE *f, bool leave_running, struct error *e)
{
    struct snapshot snap = { .config = s->config };
    int rc;

    if (s->cannot)
        return fail(e, "%s", s->cannot);
    if (!atomic_load(&s->ready) || !s->devices)
        return fail(e, "the guest is still starting: try again");
    snap.vcpus = calloc(s->config.nr_cpus, sizeof(*snap.vcpus));
    if (!snap.vcpus)
        return fail(e, "out of memory for the vCPUs' state");
    rc = hold_whole(s, snap.vcpus, e);
    if (!rc) {
        rc = write_held(s, &snap, f, e);
        if (!rc && !leave_running)
            atomic_store(&s->ended, true);
        hold_release(&s->hold, !rc && !leave_running);
    }
    snapshot_release(&snap);
    return rc;
}
