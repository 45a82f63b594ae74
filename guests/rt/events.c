/* Event channels and time for test guests that talk to back ends (events.h). */
#include "events.h"

#include "../../abi/xen/callback.h"
#include "rt.h"
#include "cpu_id.h"

#define PTE_KERNEL_RW (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define BARRIER()     __asm__ volatile("" ::: "memory")

static uint8_t shinfo_window[4096] __attribute__((aligned(4096)));
volatile struct shared_info *rt_shared_info;
static uint32_t timer_port[RT_MAX_CPUS];   /* each vCPU's VIRQ_TIMER */

/* Ports that fired, one bit each; set by rt_upcall, cleared by takers. */
static volatile uint64_t fired[EVTCHN_2L_NR_CHANNELS / 64];

extern char rt_event_callback[];
void rt_upcall(void);

long rt_evtchn_op(unsigned cmd, void *arg)
{
    return hypercall2(HYPERVISOR_event_channel_op, cmd, (unsigned long)arg);
}

long rt_evtchn_send(uint32_t port)
{
    return rt_evtchn_op(EVTCHNOP_send, &port);
}

long rt_evtchn_unmask(uint32_t port)
{
    return rt_evtchn_op(EVTCHNOP_unmask, &port);
}

long rt_evtchn_alloc_unbound(domid_t remote, uint32_t *port)
{
    struct evtchn_alloc_unbound a = { .dom = DOMID_SELF, .remote_dom = remote };
    long rc = rt_evtchn_op(EVTCHNOP_alloc_unbound, &a);

    *port = a.port;
    return rc;
}

volatile struct vcpu_info *rt_vcpu_info(void)
{
    return &rt_shared_info->vcpu_info[rt_cpu_id()];
}

bool rt_event_take(uint32_t port)
{
    uint64_t bit = 1ull << (port % 64);

    if (port >= EVTCHN_2L_NR_CHANNELS)
        return false;
    return __atomic_fetch_and(&fired[port / 64], ~bit, __ATOMIC_SEQ_CST) & bit;
}

/* The 2-level scan, as a PV kernel's upcall does it. */
void rt_upcall(void)
{
    volatile struct shared_info *sh = rt_shared_info;
    volatile struct vcpu_info *vi = rt_vcpu_info();

    do {
        uint64_t sel;

        vi->evtchn_upcall_pending = 0;
        sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
        while (sel) {
            unsigned w = (unsigned)__builtin_ctzll(sel);
            uint64_t bits = sh->evtchn_pending[w] & ~sh->evtchn_mask[w];

            sel &= sel - 1;
            __atomic_fetch_and(&sh->evtchn_pending[w], ~bits, __ATOMIC_SEQ_CST);
            __atomic_fetch_or(&fired[w], bits, __ATOMIC_SEQ_CST);
        }
    } while (vi->evtchn_upcall_pending);
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return (uint64_t)hi << 32 | lo;
}

uint64_t rt_now_ns(void)
{
    volatile struct vcpu_time_info *t = &rt_vcpu_info()->time;
    uint32_t version;
    uint64_t ns;

    do {
        uint64_t delta;
        int8_t shift;

        version = t->version;
        BARRIER();
        delta = rdtsc() - t->tsc_timestamp;
        shift = t->tsc_shift;
        delta = shift < 0 ? delta >> -shift : delta << shift;
        ns = t->system_time +
             (uint64_t)(((unsigned __int128)delta * t->tsc_to_system_mul) >> 32);
        BARRIER();
    } while ((version & 1) || version != t->version);
    return ns;
}

uint32_t rt_timer_port(void)
{
    return timer_port[rt_cpu_id()];
}

/* A one-shot timer, then SCHEDOP_block, which turns events on; pending
 * upcalls run on return. */
void rt_nap(uint64_t ms)
{
    hypercall1(HYPERVISOR_set_timer_op, rt_now_ns() + ms * RT_NS_PER_MS);
    hc_sched_op(SCHEDOP_block, NULL);
}

bool rt_wait(bool (*cond)(void *), void *arg, uint64_t ms)
{
    volatile struct vcpu_info *vi = rt_vcpu_info();
    uint64_t deadline = rt_now_ns() + ms * RT_NS_PER_MS;
    bool ok;

    for (;;) {
        vi->evtchn_upcall_mask = 1;
        BARRIER();
        ok = cond(arg);
        if (ok || rt_now_ns() > deadline)
            break;
        rt_nap(10);
    }
    vi->evtchn_upcall_mask = 0;
    BARRIER();
    if (vi->evtchn_upcall_pending)
        rt_upcall();
    return ok;
}

bool rt_events_cpu_init(void)
{
    unsigned id = rt_cpu_id();
    struct evtchn_bind_virq bv = { .virq = VIRQ_TIMER, .vcpu = id };
    long rc = rt_evtchn_op(EVTCHNOP_bind_virq, &bv);

    if (rc || !bv.port) {
        test_fail("bind_virq_timer", "vCPU %u: bind_virq(TIMER) = %ld, port %u", id, rc, bv.port);
        return false;
    }
    timer_port[id] = bv.port;
    return rt_evtchn_unmask(bv.port) == 0;
}

bool rt_events_init(const struct start_info *si)
{
    struct callback_register cb = {
        .type = CALLBACKTYPE_event, .flags = CALLBACKF_mask_events,
        .address = (uint64_t)rt_event_callback,
    };
    long rc = hypercall3(HYPERVISOR_update_va_mapping, (unsigned long)shinfo_window,
                         si->shared_info | PTE_KERNEL_RW, UVMF_INVLPG);

    if (rc) {
        test_fail("map_shared_info", "update_va_mapping = %ld", rc);
        return false;
    }
    rt_shared_info = (volatile struct shared_info *)shinfo_window;
    rc = hypercall2(HYPERVISOR_callback_op, CALLBACKOP_register, (unsigned long)&cb);
    if (rc) {
        test_fail("register_event_callback", "callback_op = %ld", rc);
        return false;
    }
    return rt_events_cpu_init();
}

void test_expect_stop(const char *name)
{
    for (int i = 0; i < 250; i++)
        rt_nap(20);
    test_fail(name, "perch did not stop the guest within 5 s");
}
