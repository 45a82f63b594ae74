/* `perch save`: hold the guest still, write it, let it go (save.h). */
#include "save.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../vm/confined_thread.h"
#include "guest_clock.h"
#include "../xenbus/xenstore_save.h"

/* A vCPU that takes this long to leave KVM_RUN is not coming. */
#define HOLD_TIMEOUT_MS 5000

/* Every vCPU kicked out of KVM_RUN, the console and the devices woken:
 * each then stands still at its safe point. */
static void wake_all(struct save_source *s)
{
    uint64_t one = 1;

    for (unsigned i = 0; i < s->config.nr_cpus; i++)
        confined_thread_stop_vcpu(&s->vm->vcpus[i].run->immediate_exit, s->threads[i]);
    if (write(s->console_doorbell_fd, &one, sizeof(one)) < 0)
        return;                          /* it can only be full: it wakes anyway */
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
        out->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
        out->readonly = d->readonly;
    }
    snap->config.nr_disks = s->nr_disks;
    return 0;
}

/* With every thread held: the vCPUs, xenstore and memory into f. */
static int write_held(struct save_source *s, FILE *f, struct error *e)
{
    struct snapshot snap = { .config = s->config };
    struct timespec now;
    bool native;
    int rc = -1;

    clock_gettime(CLOCK_REALTIME, &now);
    snap.config.saved_at_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    snap.vcpus = calloc(s->config.nr_cpus, sizeof(*snap.vcpus));
    if (!snap.vcpus)
        return fail(e, "out of memory for the vCPUs' state");
    for (unsigned i = 0; i < s->config.nr_cpus; i++)
        if (kvm_vcpu_state_get(&s->vm->vcpus[i], &snap.vcpus[i], e))
            goto out;
    snap.config.tsc_at_save = guest_clock_at_save(
        s->hole->shared, s->gm, s->hole->shared_info_mfn * PAGE_SIZE,
        kvm_vcpu_state_tsc(&snap.vcpus[0]), &native);
    snap.config.tsc_native = native;
    if (describe_disks(s, &snap, e))
        goto out;
    if (xenstore_save(s->devices->xs, &snap.xenstore, &snap.xenstore_len, e) ||
        snapshot_write(f, &snap, s->gm, e))
        goto out;
    rc = 0;
out:
    snapshot_release(&snap);
    return rc;
}

int save_guest(struct save_source *s, FILE *f, bool leave_running, struct error *e)
{
    int rc;

    if (s->cannot)
        return fail(e, "%s", s->cannot);
    if (!atomic_load(&s->ready) || !s->devices)
        return fail(e, "the guest is still starting: try again");
    hold_ask(&s->hold);
    wake_all(s);
    if (!hold_wait(&s->hold, s->config.nr_cpus + 2, HOLD_TIMEOUT_MS)) {
        hold_release(&s->hold, false);
        return fail(e, "the guest did not stand still within %d s", HOLD_TIMEOUT_MS / 1000);
    }
    rc = write_held(s, f, e);
    if (!rc && !leave_running)
        atomic_store(&s->ended, true);
    hold_release(&s->hold, !rc && !leave_running);
    return rc;
}
