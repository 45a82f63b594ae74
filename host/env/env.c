/* The Host's environment inside the VM (see host/core/env.h). */
#include "../core/env.h"
#include "../core/host.h"
#include "../core/stats.h"
#include "../core/vcpu.h"

uint8_t *env_alias_base(void)
{
    return (uint8_t *)PERCH_ALIAS_VA;
}

void env_call_launcher(void)
{
    __asm__ volatile("call switcher_gate_exit" ::: "memory");
}

/* Only for a console thread that sleeps (abi/layout.h, console_asleep):
 * one awake will look at both consoles again before it sleeps. The fence
 * orders what was written (the ring, its index) before the look at the
 * word, as the thread orders its word before its last look. */
void env_ring_doorbell(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&perch_shared.console_asleep, 0, __ATOMIC_SEQ_CST))
        *(volatile uint32_t *)(HOST_DOORBELL_VA + PERCH_CONSOLE_DOORBELL) = 1;
}

long env_syscall_entry_offset(uint64_t rip)
{
    extern char host_syscall_entry[];
    uint64_t offset = rip - (uint64_t)host_syscall_entry;

    if (offset >= host_nr_vcpus * SYSCALL_ENTRY_STRIDE)
        return -1;
    return (long)(offset % SYSCALL_ENTRY_STRIDE);
}

uint64_t env_direct_entry(void)
{
    extern char host_direct_entry[];

    return (uint64_t)host_direct_entry;
}

bool env_direct_entry_unsure(uint64_t rip)
{
    extern char host_direct_entry_unsure[];

    return rip == (uint64_t)host_direct_entry_unsure;
}

unsigned env_cpu_id(void)
{
    return (unsigned)(((uint64_t)this_cpu() - HOST_CPU_VA) / PERCH_CPU_STRIDE);
}

void env_cpu_init(void)
{
    extern char host_native_tails[];

    this_cpu()->native_tail = (uint64_t)host_native_tails +
                              env_cpu_id() * NATIVE_TAIL_STRIDE;
}

uint64_t env_user_rax(void)
{
    return *(volatile uint64_t *)this_cpu_va(SW_USER_RAX_SLOT);
}

void env_set_kernel_cr3_slot(uint64_t cr3)
{
    *(volatile uint64_t *)this_cpu_va(SW_KERNEL_CR3_SLOT) = cr3;
}

static uint64_t read_cr2(void)
{
    uint64_t cr2;

    count_visit_of(PERCH_VISIT_SERVICE_CR2);
    __asm__ volatile("call switcher_gate_read_cr2" : "=a"(cr2) :: "memory");
    return cr2;
}

uint64_t env_fault_address(enum fault_address_source from)
{
    switch (from) {
    case FAULT_ADDRESS_USER_STUB:
        return *(volatile uint64_t *)this_cpu_va(SW_CR2_SLOT);
    case FAULT_ADDRESS_KERNEL_STUB:
        return *(volatile uint64_t *)(this_cpu_va(SW_STACK_TOP(SW_EXC_STACK_VA)) - 56);
    case FAULT_ADDRESS_CR2:
        break;
    }
    return read_cr2();
}

void env_write_fs_base(uint64_t base)
{
    __asm__ volatile("wrfsbase %0" :: "r"(base));
}

void env_write_gs_base(uint64_t base)
{
    __asm__ volatile("wrgsbase %0" :: "r"(base));
}

uint64_t env_read_gs_base(void)
{
    uint64_t base;

    __asm__ volatile("rdgsbase %0" : "=r"(base));
    return base;
}

/* cpuid serializes on every x86 CPU and is allowed at CPL3 (KVM answers
 * it where the CPU faults it). */
void env_serialize(void)
{
    uint32_t a = 0, b, c = 0, d;

    __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
}

uint64_t env_rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* The console thread has its doorbell; the device thread learns which
 * lines from lines.notified, set before its doorbell rings, which it
 * does only for a thread that sleeps (abi/layout.h, devices_asleep). */
void env_notify_backend(unsigned line)
{
    if (line == PERCH_LINE_CONSOLE) {
        env_ring_doorbell();
        return;
    }
    __atomic_fetch_or(&perch_shared.lines.notified, 1ull << line, __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&perch_shared.lines.devices_asleep, 0, __ATOMIC_SEQ_CST))
        *(volatile uint32_t *)(HOST_DOORBELL_VA + PERCH_DEVICE_DOORBELL) = 1;
}

/* Sleep in ring 0 until an interrupt; host/entry/trap.c resumes us. */
void env_idle(void)
{
    count_visit_of(PERCH_VISIT_SERVICE_HALT);
    __asm__ volatile("call switcher_gate_halt" ::: "memory");
}
