/*
 * `perch restore FILE`: a saved guest, back where it stood. The snapshot's
 * configuration is checked against this perch (its build of the Host, its
 * host's memory) before memory is read; this perch's own hole is built
 * for it, so every address the Launcher uses is its own, then memory is
 * filled from the file (perch's frames too: the Host and its state). The
 * CPU the guest was shown must be one this machine covers, the TSC must
 * run at the saved rate, and each vCPU's state must be one perch could
 * have given it, all before any vCPU runs.
 */
#include "launch_state.h"
#include "../base/clock.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../cpu/cpu_profile.h"
#include "../base/status.h"
#include "guest_clock.h"

static int prepare_memory(void *arg, const struct snapshot_config *c,
                          struct guest_memory **gm, struct error *e)
{
    struct launch *l = arg;
    struct vm_images images;

    vm_images_get(&images);
    if (c->images_crc != vm_images_crc(&images))
        return fail(e, "the snapshot was made by another build of perch (its Host differs): "
                       "restore it with that perch");
    if (c->private_frames != hole_private_frames(c->nr_pages, c->nr_cpus))
        return fail(e, "the snapshot's memory layout is not perch's for %" PRIu64 " MiB on "
                       "%u vCPUs", c->nr_pages >> (20 - PAGE_SHIFT), c->nr_cpus);
    if (guest_memory_fits_host(c->nr_pages >> (20 - PAGE_SHIFT), e))
        return -1;
    if (guest_memory_init(&l->gm, c->private_frames, c->nr_pages))
        return fail(e, "cannot reserve %" PRIu64 " MiB for the guest",
                    c->nr_pages >> (20 - PAGE_SHIFT));
    l->nr_cpus = c->nr_cpus;
    if (hole_build(&l->gm, &images, c->nr_cpus, c->cpl3_events, &l->hole, e))
        return -1;
    /* The file holds perch's frames as they were: zero again, and filled. */
    madvise(l->gm.base, c->private_frames * PAGE_SIZE, MADV_DONTNEED);
    *gm = &l->gm;
    return 0;
}

static int read_snapshot(struct launch *l, const char *path, struct error *e)
{
    FILE *f = fopen(path, "re");
    struct error inner;
    int rc;

    if (!f)
        return fail(e, "cannot open %s: %s", path, strerror(errno));
    rc = snapshot_read(f, &l->snap, prepare_memory, l, &inner);
    fclose(f);
    if (rc)
        return fail(e, "%s: %s", path, inner.msg);
    return 0;
}

/* A saved disk is the one the guest saw: same size and last change (a
 * disk changed since would not match its page cache). One given with
 * --disk instead (a copy) must have its size and mode. */
static int check_disk(const struct disk *d, const struct snapshot_disk *saved, bool given,
                      struct error *e)
{
    struct stat st;

    if (fstat(d->fd, &st))
        return fail(e, "%s: %s", d->path, strerror(errno));
    if (given && ((uint64_t)st.st_size != saved->bytes || d->readonly != saved->readonly))
        return fail(e, "--disk %s is not like the saved guest's %s (%" PRIu64 " bytes%s)",
                    d->path, saved->path, saved->bytes, saved->readonly ? ", read-only" : "");
    if (!given &&
        ((uint64_t)st.st_size != saved->bytes || timespec_ns(st.st_mtim) != saved->mtime_ns))
        return fail(e, "%s changed since the save (its size or its time): the "
                       "guest's view of it would not match", saved->path);
    return 0;
}

/* The disks at their saved paths, or those --disk gives, locked as for a
 * run. */
static int open_disks(struct launch *l, const struct options *o, struct error *e)
{
    struct disk_option opts[MAX_DISKS] = { { 0 } };
    unsigned n = l->snap.config.nr_disks;
    bool given = o->nr_disks > 0;

    if (n > MAX_DISKS)
        return fail(e, "the snapshot has %u disks; perch takes %u", n, MAX_DISKS);
    if (given && o->nr_disks != n)
        return fail(e, "the saved guest has %u disk%s; --disk gave %u", n, n == 1 ? "" : "s",
                    o->nr_disks);
    for (unsigned i = 0; i < n; i++)
        opts[i] = given ? o->disks[i]
                        : (struct disk_option){ l->snap.disks[i].path, l->snap.disks[i].readonly };
    if (disks_open(opts, n, l->disks, e))
        return -1;
    l->nr_disks = n;
    for (unsigned i = 0; i < n; i++)
        if (check_disk(&l->disks[i], &l->snap.disks[i], given, e))
            return -1;
    return 0;
}

/* The network card's link, as --net gave it at the run (or at the
 * restore); new, so the guest's connections through it are reset. */
static int open_net(struct launch *l, const struct options *o, struct error *e)
{
    const struct snapshot_net *s = &l->snap.config.net;
    struct net_option n = {
        .kind = s->kind == SNAPSHOT_NET_USER ? NET_USER
                : s->kind == SNAPSHOT_NET_TAP ? NET_TAP : NET_NONE,
        .nr_fwd = s->nr_fwd,
    };

    if (s->kind == SNAPSHOT_NET_NONE && o->net.kind != NET_NONE)
        return fail(e, "the saved guest has no network card for --net");
    if (o->net.kind != NET_NONE)
        n = o->net;
    if (n.kind == NET_NONE)
        return 0;
    for (unsigned i = 0; i < n.nr_fwd; i++)
        n.fwd[i] = (struct net_hostfwd){ s->fwd[i].host_port, s->fwd[i].guest_port,
                                         s->fwd[i].udp };
    memcpy(n.tap, s->tap, sizeof(n.tap));
    return net_link_open(&l->link, &n, e);
}

/* The TSC must tick at the rate the guest's clock was told. */
static int match_tsc(struct launch *l, uint32_t khz, struct error *e)
{
    uint32_t here = kvm_tsc_khz(&l->vm);

    if (here == khz)
        return 0;
    for (unsigned i = 0; i < l->nr_cpus; i++)
        if (kvm_vcpu_set_tsc_khz(&l->vm.vcpus[i], khz))
            return fail(e, "this machine's TSC runs at %u kHz, the saved guest's at %u kHz, "
                           "and KVM cannot scale it", here, khz);
    return 0;
}

static int load_vcpus(struct launch *l, struct error *e)
{
    for (unsigned i = 0; i < l->nr_cpus; i++) {
        struct kvm_state_expected x = {
            .cpu = i,
            .lstar = l->hole.lstar + i * l->hole.lstar_stride,
            .steal_gpa = l->hole.shared_maddr + offsetof(struct perch_shared, steal[i]),
            .memory_bytes = l->gm.bytes,
        };

        if (kvm_vcpu_state_check(&l->snap.vcpus[i], &x, e) ||
            kvm_vcpu_state_set(&l->vm.vcpus[i], &l->snap.vcpus[i], e))
            return -1;
    }
    return 0;
}

static int check_cpu(struct launch *l, struct error *e)
{
    struct perch_cpu here;

    if (cpu_profile_for_guest(NULL, &here, e))
        return -1;
    return cpu_profile_covers(&here, &l->hole.shared->boot.cpu, e);
}

/* The VM, as perch makes one: a failure here is perch's, not the file's. */
static int create_vm(struct launch *l, struct error *e)
{
    return kvm_vm_create(&l->vm, &l->gm, l->nr_cpus, e) ||
           kvm_doorbell(&l->vm, l->hole.doorbell_gpa + PERCH_CONSOLE_DOORBELL,
                        &l->doorbell_fd, e) ||
           kvm_doorbell(&l->vm, l->hole.doorbell_gpa + PERCH_DEVICE_DOORBELL,
                        &l->device_doorbell_fd, e) ? -1 : 0;
}

int restore_vm(struct launch *l, const struct options *o, struct error *e)
{
    const struct snapshot_config *c = &l->snap.config;
    uint64_t tsc;

    if (read_snapshot(l, o->restore, e) || check_cpu(l, e) || open_disks(l, o, e) ||
        open_net(l, o, e))
        return STATUS_USAGE;
    if (create_vm(l, e))
        return STATUS_ERROR;
    if (match_tsc(l, c->tsc_khz, e) || load_vcpus(l, e))
        return STATUS_USAGE;
    if (kvm_vcpu_tsc(&l->vm.vcpus[0], &tsc, e))
        return STATUS_ERROR;
    guest_clock_resume(l->hole.shared, &l->gm, l->hole.shared_info_mfn * PAGE_SIZE,
                       l->nr_cpus, c->tsc_native, c->tsc_at_save, tsc);
    l->layout.console_pfn = c->console_pfn;
    l->layout.store_pfn = c->store_pfn;
    l->restored = true;
    l->save.config = *c;
    l->save.config.saved_at_ns = 0;
    return 0;
}
