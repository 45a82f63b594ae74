/*
 * Event channels, 2-level ABI: port bindings, the pending/mask/selector bits
 * a raise sets, and event_channel_op. See evtchn.h.
 */
#include "evtchn.h"

#include "../core/env.h"
#include "../core/host_lock.h"
#include "../core/stats.h"
#include "time.h"

struct evtchn_state evtchn_state;
uint64_t evtchn_shared_info_mfn;

#define WORD_BITS 64u

void evtchn_init(void)
{
    __builtin_memset(&evtchn_state, 0, sizeof(evtchn_state));
}

/* ---- shared_info and vcpu_info ------------------------------------------ */

volatile struct shared_info *evtchn_shared_info(void)
{
    uint64_t mfn = evtchn_shared_info_mfn;

    if (mfn >= perch_shared.boot.machine_frames)
        return NULL;
    return (volatile struct shared_info *)(env_alias_base() + mfn * XEN_PAGE_SIZE);
}

volatile struct vcpu_info *evtchn_vcpu_info_of(unsigned id)
{
    volatile struct shared_info *si;

    if (evtchn_state.vcpu_info_maddr[id])
        return (volatile struct vcpu_info *)(env_alias_base() +
                                             evtchn_state.vcpu_info_maddr[id]);
    si = evtchn_shared_info();
    return si && id < XEN_LEGACY_MAX_VCPUS ? &si->vcpu_info[id] : NULL;
}

volatile struct vcpu_info *evtchn_vcpu_info(void)
{
    return evtchn_vcpu_info_of(current->id);
}

/*
 * A vCPU must look at its events: it may be running guest code, asleep in
 * the HALT gate, or spinning before it sleeps (evtchn_spin_before_sleep).
 * Its wake_seq moves first; then one that spins sees it move and needs no
 * IPI. Each side writes its word before it reads the other's (both
 * sequentially consistent), so of a kick and the end of a spin at once,
 * one sees the other: the kick sends the IPI, or the spinner sees the
 * move (or, in the look at its events that follows the spin, the event).
 */
static void kick(unsigned id)
{
    struct vcpu *v = vcpu_of(id);

    __atomic_fetch_add(&v->wake_seq, 1, __ATOMIC_SEQ_CST);
    if (id == current->id)
        return;
    if (__atomic_load_n(&v->idle_spinning, __ATOMIC_SEQ_CST)) {
        perch_shared.stats.ipis_spared++;
        return;
    }
    env_send_ipi(id, PERCH_IPI_VECTOR);
}

/* How long a vCPU with nothing to run spins before it sleeps: about what
 * waking it from the HALT gate costs on a slow day (an IPI's trap, the
 * host thread's wake-up and the interrupt's entry: docs/bench.md). */
#define IDLE_SPIN_US 200

void evtchn_spin_before_sleep(void)
{
    struct vcpu *me = current;
    uint64_t seen, budget, start;
    bool held, woken;

    if (host_nr_vcpus == 1 || (optimizations_off & PERCH_OPT_IDLE_SPIN))
        return;
    seen = __atomic_load_n(&me->wake_seq, __ATOMIC_SEQ_CST);
    budget = (uint64_t)time_tsc_khz * IDLE_SPIN_US / 1000;
    held = host_lock_let_go();
    __atomic_store_n(&me->idle_spinning, true, __ATOMIC_SEQ_CST);
    start = env_rdtsc();
    do {
        __builtin_ia32_pause();
        woken = __atomic_load_n(&me->wake_seq, __ATOMIC_SEQ_CST) != seen;
    } while (!woken && env_rdtsc() - start < budget);
    __atomic_store_n(&me->idle_spinning, false, __ATOMIC_SEQ_CST);
    vcpu_stats()->asleep_cycles += env_rdtsc() - start;
    vcpu_stats()->idle_spins++;
    vcpu_stats()->idle_spins_woken += woken;
    host_lock_take_back(held);
}

/*
 * Bit `bit` of a bitmap of 64-bit words; the test_and_ forms return the old
 * value. The guest does not run while the Host does, but the timer
 * interrupt may raise VIRQ_TIMER in the middle of the Host's own raise:
 * each change is one locked instruction, so neither bit is lost.
 */
static bool test_bit(volatile uint64_t *words, unsigned bit)
{
    return (words[bit / WORD_BITS] >> (bit % WORD_BITS)) & 1;
}

static bool test_and_set_bit(volatile uint64_t *words, unsigned bit)
{
    uint64_t mask = 1ull << (bit % WORD_BITS);

    return __atomic_fetch_or(&words[bit / WORD_BITS], mask, __ATOMIC_SEQ_CST) & mask;
}

static bool test_and_clear_bit(volatile uint64_t *words, unsigned bit)
{
    uint64_t mask = 1ull << (bit % WORD_BITS);

    return __atomic_fetch_and(&words[bit / WORD_BITS], ~mask, __ATOMIC_SEQ_CST) & mask;
}

/* The second level: the port's word in pending_sel, then upcall_pending.
 * Only a selector bit that was clear calls for a new upcall. */
static void mark_word_pending(volatile struct vcpu_info *vi, unsigned port)
{
    if (!test_and_set_bit(&vi->evtchn_pending_sel, port / WORD_BITS))
        vi->evtchn_upcall_pending = 1;
}

/* Xen's 2-level set_pending, for a port already known to be bound. The
 * vCPU it notifies looks even if the port is masked: it may be polling
 * it (SCHEDOP_poll). */
static void set_pending(unsigned port)
{
    unsigned to = evtchn_state.port[port].notify_vcpu;
    volatile struct shared_info *si = evtchn_shared_info();
    volatile struct vcpu_info *vi = evtchn_vcpu_info_of(to);

    if (!si || !vi)
        return;
    if (test_and_set_bit(si->evtchn_pending, port))
        return;   /* already pending: the guest has yet to see it */
    __atomic_fetch_add(&evtchn_state.kicks, 1, __ATOMIC_SEQ_CST);
    if (!test_bit(si->evtchn_mask, port))
        mark_word_pending(vi, port);
    kick(to);
}

static bool port_bound(unsigned port)
{
    return port < EVTCHN_2L_NR_CHANNELS &&
           evtchn_state.port[port].state != EVTCHN_FREE;
}

void evtchn_raise(unsigned port)
{
    if (port_bound(port))
        set_pending(port);
}

void evtchn_raise_virq(unsigned virq)
{
    if (virq < XEN_NR_VIRQS && evtchn_state.virq_port[current->id][virq])
        set_pending(evtchn_state.virq_port[current->id][virq]);
}

bool evtchn_port_pending(unsigned port)
{
    volatile struct shared_info *si = evtchn_shared_info();

    return si && port < EVTCHN_2L_NR_CHANNELS && test_bit(si->evtchn_pending, port);
}

bool evtchn_backends_bound(void)
{
    return evtchn_state.nr_backends != 0;
}

bool evtchn_upcall_due(void)
{
    volatile struct vcpu_info *vi = evtchn_vcpu_info();

    return vi && vi->evtchn_upcall_pending && !vi->evtchn_upcall_mask;
}

/* EVTCHNOP_unmask's work: a port that was masked while pending is raised
 * to the second level now, as Xen does (Linux does the same itself for
 * ports on its own vCPU). */
static void unmask_port(unsigned port)
{
    unsigned to = evtchn_state.port[port].notify_vcpu;
    volatile struct shared_info *si = evtchn_shared_info();
    volatile struct vcpu_info *vi = evtchn_vcpu_info_of(to);

    if (!si || !vi)
        return;
    if (test_and_clear_bit(si->evtchn_mask, port) &&
        test_bit(si->evtchn_pending, port)) {
        mark_word_pending(vi, port);
        kick(to);
    }
}

/* ---- Bindings -------------------------------------------------------------- */

/* The lowest free port, as Xen allocates them; port 0 is reserved. */
static long alloc_port(void)
{
    for (unsigned port = 1; port < EVTCHN_2L_NR_CHANNELS; port++)
        if (evtchn_state.port[port].state == EVTCHN_FREE)
            return port;
    return -XEN_ENOSPC;
}

static void bind(unsigned port, enum evtchn_port_state state, unsigned virq,
                 unsigned vcpu)
{
    struct evtchn_port *p = &evtchn_state.port[port];

    p->state = state;
    p->virq = virq;
    p->notify_vcpu = vcpu;
    if (state == EVTCHN_VIRQ)
        evtchn_state.virq_port[vcpu][virq] = port;
    if (state == EVTCHN_BACKEND)
        __atomic_fetch_add(&evtchn_state.nr_backends, 1, __ATOMIC_SEQ_CST);
}

/* Xen's evtchn_free: the pending bit goes (no stale event on a re-bind),
 * the mask bit stays the guest's. */
static void unbind(unsigned port)
{
    struct evtchn_port *p = &evtchn_state.port[port];
    volatile struct shared_info *si = evtchn_shared_info();

    if (p->state == EVTCHN_VIRQ)
        evtchn_state.virq_port[p->notify_vcpu][p->virq] = 0;
    if (p->state == EVTCHN_BACKEND)
        __atomic_fetch_sub(&evtchn_state.nr_backends, 1, __ATOMIC_SEQ_CST);
    if (si)
        test_and_clear_bit(si->evtchn_pending, port);
    __builtin_memset(p, 0, sizeof(*p));
}

int evtchn_bind_backend(unsigned port, unsigned line)
{
    if (port == 0 || port >= EVTCHN_2L_NR_CHANNELS || line >= PERCH_LINES)
        return -XEN_EINVAL;
    if (port_bound(port))
        return -XEN_EBUSY;
    evtchn_state.port[port].line = line;
    bind(port, EVTCHN_BACKEND, 0, 0);
    return 0;
}

int evtchn_connect_backend(unsigned port, unsigned line)
{
    struct evtchn_port *p;

    if (port == 0 || port >= EVTCHN_2L_NR_CHANNELS || line >= PERCH_LINES)
        return -XEN_EINVAL;
    p = &evtchn_state.port[port];
    /* A restored Launcher connects its lines again (perch restore): the
     * Host, restored with the guest, has them already. */
    if (p->state == EVTCHN_BACKEND && p->line == line)
        return 0;
    if (p->state != EVTCHN_UNBOUND)
        return -XEN_EINVAL;
    p->line = line;
    __atomic_fetch_add(&evtchn_state.nr_backends, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&p->state, EVTCHN_BACKEND, __ATOMIC_SEQ_CST);
    return 0;
}

/* Global virqs may be bound (on vCPU 0) but perch never raises them. */
static bool virq_per_vcpu(unsigned virq)
{
    return virq == VIRQ_TIMER || virq == VIRQ_DEBUG ||
           virq == VIRQ_XENOPROF || virq == VIRQ_XENPMU;
}

/* ---- event_channel_op -------------------------------------------------- */

/*
 * Each operation copies its struct in and, for those with results, out.
 * When the copy out fails the binding stays made, as in Xen: the guest
 * gets -EFAULT and finds the port with EVTCHNOP_status if it cares.
 */
static long op_bind_virq(uint64_t arg)
{
    struct evtchn_bind_virq b;
    long port;

    if (copy_from_guest(&b, arg, sizeof(b)))
        return -XEN_EFAULT;
    if (b.virq >= XEN_NR_VIRQS)
        return -XEN_EINVAL;
    if (!virq_per_vcpu(b.virq) && b.vcpu != 0)
        return -XEN_EINVAL;
    if (b.vcpu >= host_nr_vcpus)
        return -XEN_ENOENT;
    if (evtchn_state.virq_port[b.vcpu][b.virq])
        return -XEN_EEXIST;
    port = alloc_port();
    if (port < 0)
        return port;
    bind(port, EVTCHN_VIRQ, b.virq, b.vcpu);
    b.port = port;
    return copy_to_guest(arg, &b, sizeof(b)) ? -XEN_EFAULT : 0;
}

static long op_bind_ipi(uint64_t arg)
{
    struct evtchn_bind_ipi b;
    long port;

    if (copy_from_guest(&b, arg, sizeof(b)))
        return -XEN_EFAULT;
    if (b.vcpu >= host_nr_vcpus)
        return -XEN_ENOENT;
    port = alloc_port();
    if (port < 0)
        return port;
    bind(port, EVTCHN_IPI, 0, b.vcpu);
    b.port = port;
    return copy_to_guest(arg, &b, sizeof(b)) ? -XEN_EFAULT : 0;
}

/*
 * Only domain 0 exists besides the guest, as perch's back ends. A port for
 * the guest itself is a loopback channel, which perch does not offer (no
 * bind_interdomain): Linux asks for one only to host xenstore itself when
 * start_info names none, and runs without xenstore when told -ENOSYS.
 */
static long op_alloc_unbound(uint64_t arg)
{
    struct evtchn_alloc_unbound a;
    long port;

    if (copy_from_guest(&a, arg, sizeof(a)))
        return -XEN_EFAULT;
    if (a.dom == DOMID_SELF && a.remote_dom == DOMID_SELF)
        return -XEN_ENOSYS;
    if (a.dom != DOMID_SELF || a.remote_dom != 0)
        return -XEN_ESRCH;
    port = alloc_port();
    if (port < 0)
        return port;
    bind(port, EVTCHN_UNBOUND, 0, 0);
    a.port = port;
    return copy_to_guest(arg, &a, sizeof(a)) ? -XEN_EFAULT : 0;
}

/* The one uint32_t port of close, send and unmask; ~0 if unreadable. */
static uint64_t read_port(uint64_t arg)
{
    uint32_t port;

    return copy_from_guest(&port, arg, sizeof(port)) ? ~0ull : port;
}

/* The guest may close a back end's port too, as a Xen guest may close its
 * interdomain ones; perch's back end then notifies nobody. */
static long op_close(uint64_t arg)
{
    uint64_t port = read_port(arg);

    if (port == ~0ull)
        return -XEN_EFAULT;
    if (!port_bound(port))
        return -XEN_EINVAL;
    unbind(port);
    return 0;
}

/* Xen accepts a send only on IPI, interdomain and unbound ports, and
 * drops one on an unbound port: nobody listens yet. */
static long op_send(uint64_t arg)
{
    uint64_t port = read_port(arg);

    if (port == ~0ull)
        return -XEN_EFAULT;
    if (!port_bound(port))
        return -XEN_EINVAL;
    switch (evtchn_state.port[port].state) {
    case EVTCHN_IPI:
        set_pending(port);
        return 0;
    case EVTCHN_BACKEND:
        env_notify_backend(evtchn_state.port[port].line);
        return 0;
    case EVTCHN_UNBOUND:
        return 0;
    default:
        return -XEN_EINVAL;
    }
}

static long op_unmask(uint64_t arg)
{
    uint64_t port = read_port(arg);

    if (port == ~0ull)
        return -XEN_EFAULT;
    if (port >= EVTCHN_2L_NR_CHANNELS)
        return -XEN_EINVAL;
    unmask_port(port);
    return 0;
}

static void fill_status(struct evtchn_status *s)
{
    const struct evtchn_port *p = &evtchn_state.port[s->port];

    __builtin_memset(&s->u, 0, sizeof(s->u));
    s->vcpu = p->notify_vcpu;
    switch (p->state) {
    case EVTCHN_VIRQ:
        s->status = EVTCHNSTAT_virq;
        s->u.virq = p->virq;
        break;
    case EVTCHN_IPI:
        s->status = EVTCHNSTAT_ipi;
        break;
    case EVTCHN_BACKEND:
        /* The peer is a back end, as if in domain 0; it has no port of
         * its own to show. */
        s->status = EVTCHNSTAT_interdomain;
        break;
    case EVTCHN_UNBOUND:
        s->status = EVTCHNSTAT_unbound;
        s->u.unbound.dom = 0;
        break;
    default:
        s->status = EVTCHNSTAT_closed;
        break;
    }
}

/* Only the guest's own domain exists for it. */
static long op_status(uint64_t arg)
{
    struct evtchn_status s;

    if (copy_from_guest(&s, arg, sizeof(s)))
        return -XEN_EFAULT;
    if (s.dom != DOMID_SELF)
        return -XEN_ESRCH;
    if (s.port >= EVTCHN_2L_NR_CHANNELS)
        return -XEN_EINVAL;
    fill_status(&s);
    return copy_to_guest(arg, &s, sizeof(s)) ? -XEN_EFAULT : 0;
}

/* A per-vCPU virq and an IPI cannot move, as in Xen; a back end's port,
 * an unbound one and a global virq may. An event pending on the port is
 * shown on its new vCPU (the old one may see a stale selector bit, which
 * the guest's scan tolerates). */
static long op_bind_vcpu(uint64_t arg)
{
    struct evtchn_bind_vcpu b;
    struct evtchn_port *p;
    volatile struct shared_info *si = evtchn_shared_info();
    volatile struct vcpu_info *vi;

    if (copy_from_guest(&b, arg, sizeof(b)))
        return -XEN_EFAULT;
    if (b.vcpu >= host_nr_vcpus)
        return -XEN_ENOENT;
    if (b.port >= EVTCHN_2L_NR_CHANNELS)
        return -XEN_EINVAL;
    p = &evtchn_state.port[b.port];
    if (p->state != EVTCHN_BACKEND && p->state != EVTCHN_UNBOUND &&
        (p->state != EVTCHN_VIRQ || virq_per_vcpu(p->virq)))
        return -XEN_EINVAL;
    p->notify_vcpu = (uint8_t)b.vcpu;
    vi = evtchn_vcpu_info_of(b.vcpu);
    if (si && vi && test_bit(si->evtchn_pending, b.port) &&
        !test_bit(si->evtchn_mask, b.port)) {
        mark_word_pending(vi, b.port);
        kick(b.vcpu);
    }
    return 0;
}

static bool fixed_backend(unsigned port)
{
    const struct evtchn_port *p = &evtchn_state.port[port];

    return p->state == EVTCHN_BACKEND && p->line < PERCH_LINE_FIRST_DEVICE;
}

/* Closes every port the guest bound, devices' included (their front ends
 * allocate new ones). The console's and xenstore's stay: perch offers them
 * once, in start_info. */
static long op_reset(uint64_t arg)
{
    struct evtchn_reset r;

    if (copy_from_guest(&r, arg, sizeof(r)))
        return -XEN_EFAULT;
    if (r.dom != DOMID_SELF)
        return -XEN_ESRCH;
    for (unsigned port = 1; port < EVTCHN_2L_NR_CHANNELS; port++)
        if (port_bound(port) && !fixed_backend(port))
            unbind(port);
    return 0;
}

/*
 * Not offered: the FIFO ABI (init_control, expand_array, set_priority:
 * Linux falls back to 2-level), and interdomain and pirq bindings (a domU's
 * back ends bind to it, not it to them; there is no physical device).
 */
long do_event_channel_op(uint64_t cmd, uint64_t arg, uint64_t a3, uint64_t a4,
                         uint64_t a5)
{
    (void)a3, (void)a4, (void)a5;
    switch (cmd) {
    case EVTCHNOP_bind_virq:
        return op_bind_virq(arg);
    case EVTCHNOP_bind_ipi:
        return op_bind_ipi(arg);
    case EVTCHNOP_alloc_unbound:
        return op_alloc_unbound(arg);
    case EVTCHNOP_close:
        return op_close(arg);
    case EVTCHNOP_send:
        return op_send(arg);
    case EVTCHNOP_status:
        return op_status(arg);
    case EVTCHNOP_bind_vcpu:
        return op_bind_vcpu(arg);
    case EVTCHNOP_unmask:
        return op_unmask(arg);
    case EVTCHNOP_reset:
        return op_reset(arg);
    default:
        return -XEN_ENOSYS;
    }
}

/* Hypercall 16: { uint32_t cmd; union } in one struct. Xen forwards only
 * the operations that existed when it was the interface. */
long do_event_channel_op_compat(uint64_t arg, uint64_t a2, uint64_t a3,
                                uint64_t a4, uint64_t a5)
{
    uint32_t cmd;

    (void)a2, (void)a3, (void)a4, (void)a5;
    if (copy_from_guest(&cmd, arg, sizeof(cmd)))
        return -XEN_EFAULT;
    switch (cmd) {
    case EVTCHNOP_bind_interdomain:
    case EVTCHNOP_bind_virq:
    case EVTCHNOP_bind_pirq:
    case EVTCHNOP_close:
    case EVTCHNOP_send:
    case EVTCHNOP_status:
    case EVTCHNOP_alloc_unbound:
    case EVTCHNOP_bind_ipi:
    case EVTCHNOP_bind_vcpu:
    case EVTCHNOP_unmask:
        return do_event_channel_op(cmd, arg + EVTCHN_OP_COMPAT_ARG_OFFSET, 0, 0, 0);
    default:
        return -XEN_ENOSYS;
    }
}

/* ---- vcpu_info registration --------------------------------------------- */

/* The new vcpu_info takes over the old one's contents (Xen fills it with
 * zeros and a set mask when there was none: here, before shared_info is
 * known). */
static void copy_vcpu_info(volatile struct vcpu_info *to,
                           volatile struct vcpu_info *from)
{
    struct vcpu_info tmp;

    if (from) {
        __builtin_memcpy(&tmp, (const void *)from, sizeof(tmp));
    } else {
        __builtin_memset(&tmp, 0, sizeof(tmp));
        tmp.evtchn_upcall_mask = 1;
    }
    __builtin_memcpy((void *)to, &tmp, sizeof(tmp));
}

/* Checks and errors as Xen 4.17's map_vcpu_info: the 64 bytes within one
 * page, 8-byte aligned, once only, in a frame the guest owns. */
long evtchn_register_vcpu_info(unsigned id, uint64_t mfn, uint64_t offset)
{
    volatile struct vcpu_info *vi;
    uint64_t maddr;

    if (offset > XEN_PAGE_SIZE - sizeof(struct vcpu_info) ||
        offset % _Alignof(struct vcpu_info))
        return -XEN_ENXIO;
    if (evtchn_state.vcpu_info_maddr[id])
        return -XEN_EINVAL;
    if (!guest_owns_frame(mfn))
        return -XEN_EINVAL;
    maddr = mfn * XEN_PAGE_SIZE + offset;
    vi = (volatile struct vcpu_info *)(env_alias_base() + maddr);
    copy_vcpu_info(vi, evtchn_vcpu_info_of(id));
    evtchn_state.vcpu_info_maddr[id] = maddr;
    perch_shared.boot.vcpu_info_maddr[id] = maddr;
    /* Everything may be pending: a spurious upcall rather than a lost
     * event. */
    vi->evtchn_pending_sel = ~0ull;
    vi->evtchn_upcall_pending = 1;
    return 0;
}
