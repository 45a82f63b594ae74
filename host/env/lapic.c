/*
 * The local APIC, programmed by the Host at CPL3 through its xAPIC MMIO
 * page (HOST_APIC_VA): KVM emulates those stores in the kernel, without an
 * exit to the Launcher, and no ring-0 instruction is needed. Its timer, in
 * one-shot mode with KVM's 1 GHz bus and divide-by-1, counts nanoseconds.
 */
#include "../core/env.h"
#include "../core/host.h"
#include "../core/stats.h"
#include "../core/vcpu.h"

#define APIC_TPR     0x080
#define APIC_EOI     0x0b0
#define APIC_SVR     0x0f0
#define APIC_LVT_TIMER 0x320
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_DIV 0x3e0
#define APIC_MAX_COUNT 0xffffffffull

/* Counted: each is a fault KVM emulates, which its own statistics lump
 * in with page-table writes (--stats tells them apart). */
static void apic_write(unsigned reg, uint32_t value)
{
    vcpu_stats()->apic_stores++;
    *(volatile uint32_t *)(HOST_APIC_VA + reg) = value;
}

void env_interrupts_init(void)
{
    apic_write(APIC_SVR, 0x1ff);          /* enabled, spurious vector 0xff */
    apic_write(APIC_TPR, 0);
    apic_write(APIC_TIMER_DIV, 0xb);      /* divide by 1 */
    apic_write(APIC_LVT_TIMER, PERCH_TIMER_VECTOR);   /* one-shot */
}

/* The count is 32 bits: a far deadline fires early and is re-armed. */
static void program(uint64_t deadline, uint64_t now)
{
    uint64_t delta = deadline > now ? deadline - now : 1;

    apic_write(APIC_TIMER_INIT, delta > APIC_MAX_COUNT ? APIC_MAX_COUNT : delta);
}

void env_timer_arm(uint64_t deadline_ns, uint64_t now_ns)
{
    current->timer.armed = deadline_ns ? deadline_ns : 1;
    program(current->timer.armed, now_ns);
}

void env_timer_cancel(void)
{
    current->timer.armed = 0;
    apic_write(APIC_TIMER_INIT, 0);
}

void env_interrupt_ack(void)
{
    apic_write(APIC_EOI, 0);
    *(volatile uint64_t *)this_cpu_va(SW_WAKE_SLOT) = 1;
}

void env_wake_clear(void)
{
    *(volatile uint64_t *)this_cpu_va(SW_WAKE_SLOT) = 0;
}

/*
 * A fixed interrupt to another vCPU (APIC ID = vCPU id): the high word,
 * the destination, then the low one, which sends. Each store is a trap
 * KVM emulates, so the high word is written only when the destination
 * differs from the one it holds (with two vCPUs, never after the first).
 * An interrupt between the stores on this vCPU may send an IPI of its own
 * and change the high word: then send again, writing both (one IPI too
 * many is harmless, one sent elsewhere is not).
 */
#define APIC_ICR_LOW  0x300
#define APIC_ICR_HIGH 0x310

void env_send_ipi(unsigned cpu, unsigned vector)
{
    volatile unsigned *seq = &current->ipi_seq;
    volatile unsigned *dest = &current->ipi_dest;
    bool again = false;
    unsigned before;

    do {
        *seq = *seq + 1;
        before = *seq;
        if (again || *dest != cpu + 1 || (optimizations_off & PERCH_OPT_IPI_DEST)) {
            *dest = 0;
            apic_write(APIC_ICR_HIGH, cpu << 24);
            *dest = cpu + 1;
        }
        apic_write(APIC_ICR_LOW, vector);
        again = true;
    } while (*seq != before);
}

bool env_timer_due(uint64_t now_ns)
{
    if (!current->timer.armed)
        return false;
    if (now_ns < current->timer.armed) {
        program(current->timer.armed, now_ns);
        return false;
    }
    current->timer.armed = 0;
    return true;
}

void env_timer_nudge(uint64_t delay_ns, uint64_t now_ns)
{
    if (!current->timer.armed || current->timer.armed > now_ns + delay_ns)
        apic_write(APIC_TIMER_INIT, delay_ns);
}
