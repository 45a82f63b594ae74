/* KVM's binary statistics of a vCPU: a header, descriptors named by KVM,
 * then the values (Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD). */
#include "kvm_stats.h"

#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const names[KVM_COUNTS] = {
    [KVM_COUNT_EXITS] = "exits",
    [KVM_COUNT_PF_TAKEN] = "pf_taken",
    [KVM_COUNT_PF_FIXED] = "pf_fixed",
    [KVM_COUNT_PF_EMULATE] = "pf_emulate",
    [KVM_COUNT_PF_SPURIOUS] = "pf_spurious",
    [KVM_COUNT_PF_GUEST] = "pf_guest",
    [KVM_COUNT_INSN_EMULATION] = "insn_emulation",
    [KVM_COUNT_TLB_FLUSH] = "tlb_flush",
};

const char *kvm_count_name(enum kvm_count c)
{
    return c < KVM_COUNTS ? names[c] : "?";
}

/* A plain cumulative u64 counter is what perch can subtract. */
static bool is_counter(const struct kvm_stats_desc *d)
{
    return (d->flags & KVM_STATS_TYPE_MASK) == KVM_STATS_TYPE_CUMULATIVE &&
           d->size == 1;
}

/* Note where each count perch reads lies; the rest is skipped. */
static void find_counts(struct kvm_stats *s, const struct kvm_stats_header *h)
{
    size_t one = sizeof(struct kvm_stats_desc) + h->name_size;
    char *descs = calloc(h->num_desc, one);

    if (!descs || pread(s->fd, descs, one * h->num_desc, h->desc_offset) !=
                      (ssize_t)(one * h->num_desc)) {
        free(descs);
        return;
    }
    for (uint32_t i = 0; i < h->num_desc; i++) {
        const struct kvm_stats_desc *d = (const void *)(descs + i * one);

        for (unsigned c = 0; c < KVM_COUNTS; c++)
            if (is_counter(d) && strncmp(d->name, names[c], h->name_size) == 0)
                s->offset[c] = (int64_t)h->data_offset + d->offset;
    }
    free(descs);
}

void kvm_stats_open(struct kvm_stats *s, int vcpu_fd)
{
    struct kvm_stats_header h;

    for (unsigned c = 0; c < KVM_COUNTS; c++)
        s->offset[c] = -1;
    s->fd = ioctl(vcpu_fd, KVM_GET_STATS_FD, NULL);
    if (s->fd < 0)
        return;
    if (pread(s->fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) && h.name_size > 0)
        find_counts(s, &h);
}

void kvm_stats_close(struct kvm_stats *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

bool kvm_stats_add(const struct kvm_stats *s, uint64_t sum[KVM_COUNTS])
{
    if (s->fd < 0)
        return false;
    for (unsigned c = 0; c < KVM_COUNTS; c++) {
        uint64_t v;

        if (s->offset[c] >= 0 && pread(s->fd, &v, sizeof(v), s->offset[c]) == (ssize_t)sizeof(v))
            sum[c] += v;
    }
    return true;
}
