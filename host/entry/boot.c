/*
 * The Host starts before the guest: the Launcher points every vCPU at
 * host_boot_entry, which comes here. On the first, the guest's
 * start-of-day registers are in perch_shared.boot: the Host takes its
 * state from there and enters the guest kernel with a jmp. The others
 * wait until the guest gives them a context and brings them up
 * (host/xen/vcpu_context.c), then enter the guest kernel as it says.
 */
#include "../events/backend.h"
#include "../cpu/direct_calls.h"
#include "../cpu/noop_patch.h"
#include "../cpu/emulate.h"
#include "../core/entry.h"
#include "../core/env.h"
#include "../events/evtchn.h"
#include "gdb.h"
#include "../xen/grant_table.h"
#include "../core/host.h"
#include "../mm/mm.h"
#include "../events/time.h"
#include "../core/guest_mode.h"
#include "guest_resume.h"
#include "../core/host_lock.h"
#include "../xen/vcpu_context.h"
#include "../core/vcpu.h"

/*
 * A vCPU past the first. The Launcher started it on perch's own L4
 * (boot.secondary_cr3), which holds the hole and nothing of the guest's:
 * the guest may reuse every frame of its own while this vCPU waits.
 */
static _Noreturn void secondary_start(struct cpu_regs *regs)
{
    uint64_t kernel_cr3;

    env_interrupts_init();
    vcpu_context_wait_up();
    kernel_cr3 = current->kernel_cr3;
    guest_mode_start(kernel_cr3, perch_shared.boot.no_guest_isolation);
    current->loaded_cr3 = perch_shared.boot.secondary_cr3;
    emulate_reset();
    time_vcpu_init();
    env_write_fs_base(current->fs_base);
    env_write_gs_base(current->gs_base_kernel);
    *regs = current->start;
    guest_resume(regs);
}

uint64_t host_cpus_end;

_Noreturn void host_boot(struct cpu_regs *regs)
{
    const typeof(perch_shared.boot) *b = &perch_shared.boot;

    this_cpu()->entry_gs = ENTRY_GS_NONE;   /* no direct entry is this vCPU's yet */
    current->id = env_cpu_id();
    env_cpu_init();
    if (b->nr_vcpus < 1 || b->nr_vcpus > PERCH_MAX_VCPUS)
        host_fatal("the Launcher built %lu vCPUs (1 to %u)", b->nr_vcpus,
                   PERCH_MAX_VCPUS);
    host_nr_vcpus = (unsigned)b->nr_vcpus;
    host_cpus_end = PERCH_CPU_VA(HOST_CPU_VA, (uint64_t)host_nr_vcpus);
    host_enter();
    if (current->id != 0)
        secondary_start(regs);
    current->state = VCPU_UP;
    guest_mode_start(b->kernel_cr3, b->no_guest_isolation);
    emulate_reset();
    evtchn_shared_info_mfn = b->shared_info_mfn;
    evtchn_init();
    backend_init(b->console_port, b->xenstore_port);
    time_tsc_khz = b->tsc_khz;
    time_init();
    time_set_wallclock(b->wallclock_ns);
    mm_shared_info_mfn = b->shared_info_mfn;
    if (!grant_table_boot(b->grant_first_mfn, b->grant_nr_frames))
        host_fatal("the grant table's frames are not perch-private");
    mm_m2p_maddr = b->m2p_maddr;
    mm_frames = (struct mm_frame_info *)b->frame_table_va;
    mm_strict = b->strict;
    optimizations_off = (uint32_t)b->optimizations_off;
    gdb_boot(perch_shared.gdb.enabled != 0);
    if (mm_boot())
        host_fatal("the builder's page tables break the PV rules");
    direct_calls_install(env_direct_entry(), gdb_enabled);
    noop_patch_init(gdb_enabled);
    env_interrupts_init();
    __builtin_memset(regs, 0, sizeof(*regs));
    regs->rip = b->guest_rip;
    regs->rsp = b->guest_rsp;
    regs->rsi = b->guest_rsi;
    regs->cs = FLAT_KERNEL_CS64;
    regs->ss = FLAT_KERNEL_SS64;
    regs->rflags = 0x202;
    regs->vector = PERCH_VECTOR_SYSCALL;
    guest_resume(regs);
}
