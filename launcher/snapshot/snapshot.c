/* A saved guest, whole, written and read in order (snapshot.h). */
#include "snapshot.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/layout.h"
#include "snapshot_memory.h"

/* The machine frames the Host's frame table reaches (abi/layout.h). */
#define SNAPSHOT_FRAMES_MAX ((128ull << 30) / PAGE_SIZE)

int snapshot_write(FILE *f, const struct snapshot *s, const struct guest_memory *gm,
                   struct error *e)
{
    struct snapshot_writer w;
    uint64_t stored;

    if (snapshot_write_start(&w, f, e) ||
        snapshot_write_section(&w, SNAPSHOT_CONFIG, &s->config, sizeof(s->config), e) ||
        snapshot_write_section(&w, SNAPSHOT_DISKS, s->disks,
                               s->config.nr_disks * sizeof(s->disks[0]), e))
        return -1;
    for (uint32_t i = 0; i < s->config.nr_cpus; i++)
        if (snapshot_write_section(&w, SNAPSHOT_VCPU, &s->vcpus[i], sizeof(s->vcpus[i]), e))
            return -1;
    if (snapshot_write_section(&w, SNAPSHOT_XENSTORE, s->xenstore, s->xenstore_len, e) ||
        snapshot_memory_write(&w, gm, &stored, e))
        return -1;
    return snapshot_write_finish(&w, e);
}

static int check_net(const struct snapshot_net *n, struct error *e)
{
    if (n->kind > SNAPSHOT_NET_TAP || n->nr_fwd > SNAPSHOT_NET_FORWARDS ||
        (n->kind != SNAPSHOT_NET_USER && n->nr_fwd) ||
        !memchr(n->tap, '\0', sizeof(n->tap)) || (n->kind == SNAPSHOT_NET_TAP) != !!n->tap[0])
        return fail(e, "the snapshot's network card is damaged");
    for (uint32_t i = 0; i < n->nr_fwd; i++)
        if (!n->fwd[i].host_port || !n->fwd[i].guest_port || n->fwd[i].udp > 1)
            return fail(e, "the snapshot's forwarded port %u is damaged", i);
    return 0;
}

/* The configuration's form; the caller checks it against itself. */
static int check_config(const struct snapshot_config *c, struct error *e)
{
    if (c->nr_cpus < 1 || c->nr_cpus > PERCH_MAX_VCPUS)
        return fail(e, "the snapshot has %u vCPUs (1 to %u)", c->nr_cpus, PERCH_MAX_VCPUS);
    if (!c->nr_pages || c->nr_pages > SNAPSHOT_FRAMES_MAX ||
        c->private_frames > SNAPSHOT_FRAMES_MAX - c->nr_pages)
        return fail(e, "the snapshot's memory (%" PRIu64 " + %" PRIu64 " frames) is more "
                    "than perch can give", c->nr_pages, c->private_frames);
    if (c->nr_disks > SNAPSHOT_DISKS_MAX)
        return fail(e, "the snapshot has %u disks (at most %u)", c->nr_disks,
                    SNAPSHOT_DISKS_MAX);
    if (c->cpl3_events > 1 || c->tsc_native > 1 || !c->tsc_khz)
        return fail(e, "the snapshot's configuration is damaged");
    if (c->console_pfn >= c->nr_pages || c->store_pfn >= c->nr_pages)
        return fail(e, "the snapshot's console or xenstore page lies outside the guest");
    return check_net(&c->net, e);
}

static int read_fixed(struct snapshot_reader *r, enum snapshot_kind kind, void *out,
                      size_t size, struct error *e)
{
    struct snapshot_section s;

    return snapshot_read_expected(r, kind, size, size, &s, e) ||
           snapshot_read_payload(r, &s, out, e) ? -1 : 0;
}

static int check_disk(const struct snapshot_disk *d, unsigned i, struct error *e)
{
    if (d->path[0] != '/' || !memchr(d->path, '\0', sizeof(d->path)))
        return fail(e, "the snapshot's disk %u has no absolute path", i);
    if (d->readonly > 1 || d->reserved)
        return fail(e, "the snapshot's disk %u is damaged", i);
    return 0;
}

/* The section may be empty: a guest without disks. */
static int read_disks(struct snapshot_reader *r, struct snapshot *s, struct error *e)
{
    if (read_fixed(r, SNAPSHOT_DISKS, s->disks, s->config.nr_disks * sizeof(s->disks[0]), e))
        return -1;
    for (unsigned i = 0; i < s->config.nr_disks; i++)
        if (check_disk(&s->disks[i], i, e))
            return -1;
    return 0;
}

static int read_xenstore(struct snapshot_reader *r, struct snapshot *s, struct error *e)
{
    struct snapshot_section sec;

    if (snapshot_read_expected(r, SNAPSHOT_XENSTORE, 1, SNAPSHOT_XENSTORE_MAX, &sec, e))
        return -1;
    s->xenstore = malloc(sec.length);
    if (!s->xenstore)
        return fail(e, "out of memory for the snapshot's xenstore");
    s->xenstore_len = sec.length;
    return snapshot_read_payload(r, &sec, s->xenstore, e);
}

static int read_all(FILE *f, struct snapshot *s, snapshot_prepare_fn *prepare, void *arg,
                    struct error *e)
{
    struct snapshot_reader r;
    struct snapshot_end end;
    struct guest_memory *gm;

    if (snapshot_read_start(&r, f, e) ||
        read_fixed(&r, SNAPSHOT_CONFIG, &s->config, sizeof(s->config), e) ||
        check_config(&s->config, e) || read_disks(&r, s, e) ||
        prepare(arg, &s->config, &gm, e))
        return -1;
    s->vcpus = calloc(s->config.nr_cpus, sizeof(*s->vcpus));
    if (!s->vcpus)
        return fail(e, "out of memory for the snapshot's vCPUs");
    for (uint32_t i = 0; i < s->config.nr_cpus; i++)
        if (read_fixed(&r, SNAPSHOT_VCPU, &s->vcpus[i], sizeof(s->vcpus[i]), e))
            return -1;
    if (read_xenstore(&r, s, e) || snapshot_memory_read(&r, gm, &end, e) ||
        snapshot_read_finish(&r, e))
        return -1;
    s->frames_stored = end.frames_stored;
    return 0;
}

int snapshot_read(FILE *f, struct snapshot *s, snapshot_prepare_fn *prepare, void *arg,
                  struct error *e)
{
    memset(s, 0, sizeof(*s));
    if (!read_all(f, s, prepare, arg, e))
        return 0;
    snapshot_release(s);
    return -1;
}

void snapshot_release(struct snapshot *s)
{
    free(s->vcpus);
    free(s->xenstore);
    s->vcpus = NULL;
    s->xenstore = NULL;
}
