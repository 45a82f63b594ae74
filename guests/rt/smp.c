/* Bringing up more vCPUs in a test guest (smp.h). */
#include "smp.h"

#include "events.h"
#include "rt.h"

/* One per vCPU; its kernel GS base points here, so id must stay first. */
struct rt_cpu {
    unsigned id;
    bool initialised;          /* VCPUOP_initialise took its context */
    volatile bool done;        /* fn returned; the vCPU goes down */
    void (*fn)(void *);
    void *arg;
};
_Static_assert(offsetof(struct rt_cpu, id) == 0, "rt_cpu_id reads %gs:0");

static struct rt_cpu cpus[RT_MAX_CPUS];
static uint8_t stacks[RT_MAX_CPUS][RT_CPU_STACK] __attribute__((aligned(4096)));

extern char rt_cpu_entry[], rt_event_callback[];
void rt_cpu_main(struct rt_cpu *cpu) __attribute__((noreturn));

long rt_vcpu_op(unsigned cmd, unsigned long id, void *arg)
{
    return hypercall3(HYPERVISOR_vcpu_op, cmd, id, (unsigned long)arg);
}

unsigned rt_cpu_count(void)
{
    unsigned n = 0;

    while (n < 4096 && rt_vcpu_op(VCPUOP_is_up, n, NULL) >= 0)
        n++;
    return n;
}

/* The frame of the L4 the guest runs on: the builder's, at pt_base. */
static uint64_t kernel_l4_mfn(void)
{
    const struct start_info *si = rt_start_info;

    return ((const uint64_t *)si->mfn_list)[(si->pt_base - RT_VIRT_BASE) >> XEN_PAGE_SHIFT];
}

void rt_cpu_context(struct vcpu_guest_context *c, unsigned id)
{
    uint64_t top = (uint64_t)stacks[id] + RT_CPU_STACK;

    cpus[id].id = id;
    memset(c, 0, sizeof(*c));
    c->flags = VGCF_IN_KERNEL | VGCF_online;
    c->user_regs.rip = (uint64_t)rt_cpu_entry;
    c->user_regs.rsp = top;
    c->user_regs.rdi = (uint64_t)&cpus[id];
    c->user_regs.cs = FLAT_KERNEL_CS64;
    c->user_regs.ss = FLAT_KERNEL_SS64;
    c->user_regs.rflags = 0x200;   /* IF: events are vcpu_info's to mask */
    c->kernel_ss = FLAT_KERNEL_SS64;
    c->kernel_sp = top;
    c->ctrlreg[3] = kernel_l4_mfn() << XEN_PAGE_SHIFT;
    c->event_callback_eip = (uint64_t)rt_event_callback;
    c->gs_base_kernel = (uint64_t)&cpus[id];
}

/* head.S's rt_cpu_entry calls this on the vCPU's own stack. */
void rt_cpu_main(struct rt_cpu *cpu)
{
    rt_events_cpu_init();
    for (;;) {
        cpu->fn(cpu->arg);
        __atomic_store_n(&cpu->done, true, __ATOMIC_SEQ_CST);
        rt_vcpu_op(VCPUOP_down, cpu->id, NULL);
    }
}

/* Spin (no hypercall) until cond(id) or ms pass. */
static bool spin_until(bool (*cond)(unsigned), unsigned id, uint64_t ms)
{
    uint64_t deadline = rt_now_ns() + ms * RT_NS_PER_MS;

    while (!cond(id))
        if (rt_now_ns() > deadline)
            return false;
        else
            __asm__ volatile("pause" ::: "memory");
    return true;
}

static bool fn_returned(unsigned id)
{
    return __atomic_load_n(&cpus[id].done, __ATOMIC_SEQ_CST);
}

static bool went_down(unsigned id)
{
    return rt_vcpu_op(VCPUOP_is_up, id, NULL) == 0;
}

bool rt_cpu_wait(unsigned id, uint64_t ms)
{
    return id < RT_MAX_CPUS && spin_until(fn_returned, id, ms);
}

long rt_cpu_run(unsigned id, void (*fn)(void *), void *arg)
{
    static struct vcpu_guest_context ctxt;   /* 5 KiB: not on the stack */
    struct rt_cpu *cpu = &cpus[id];
    long rc;

    if (id == 0 || id >= RT_MAX_CPUS)
        return -XEN_EINVAL;
    if (cpu->initialised && (!fn_returned(id) || !spin_until(went_down, id, 1000)))
        return -XEN_EBUSY;
    rc = rt_cpu_id_start(&cpus[0].id);   /* before any other vCPU runs */
    if (rc)
        return rc;
    cpu->fn = fn;
    cpu->arg = arg;
    __atomic_store_n(&cpu->done, false, __ATOMIC_SEQ_CST);
    if (!cpu->initialised) {
        rt_cpu_context(&ctxt, id);
        rc = rt_vcpu_op(VCPUOP_initialise, id, &ctxt);
        if (rc)
            return rc;
        cpu->initialised = true;
    }
    return rt_vcpu_op(VCPUOP_up, id, NULL);
}
