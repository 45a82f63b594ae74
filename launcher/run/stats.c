/* --stats: printing what the guest cost, and counter snapshots for perch bench. */
#include "stats.h"

#include <inttypes.h>

static const char *const hypercall_names[XEN_NR_HYPERCALLS] = {
    "set_trap_table", "mmu_update", "set_gdt", "stack_switch",
    "set_callbacks", "fpu_taskswitch", "sched_op_compat", "platform_op",
    "set_debugreg", "get_debugreg", "update_descriptor", NULL,
    "memory_op", "multicall", "update_va_mapping", "set_timer_op",
    "event_channel_op_compat", "xen_version", "console_io",
    "physdev_op_compat", "grant_table_op", "vm_assist",
    "update_va_mapping_otherdomain", "iret", "vcpu_op", "set_segment_base",
    "mmuext_op", "xsm_op", "nmi_op", "sched_op", "callback_op",
    "xenoprof_op", "event_channel_op", "physdev_op", "hvm_op", "sysctl",
    "domctl", "kexec_op", "tmem_op", "argo_op", "xenpmu_op", "dm_op",
    "hypfs_op", [HYPERVISOR_perch_op] = "perch_op",
};

static const char *const visit_names[PERCH_VISIT_COUNT] = {
    [PERCH_VISIT_EXCEPTION] = "exception",
    [PERCH_VISIT_INTERRUPT] = "interrupt",
    [PERCH_VISIT_SERVICE_RESUME] = "service: resume",
    [PERCH_VISIT_SERVICE_CR3] = "service: cr3 load",
    [PERCH_VISIT_SERVICE_EXIT] = "service: exit to Launcher",
    [PERCH_VISIT_SERVICE_HALT] = "service: halt (idle)",
    [PERCH_VISIT_USER_SYSCALL] = "guest-user syscall",
    [PERCH_VISIT_SERVICE_CR2] = "service: read CR2",
};

static const char *const cr3_cause_names[PERCH_CR3_CAUSES] = {
    [PERCH_CR3_TO_USER] = "to guest user",
    [PERCH_CR3_KERNEL_TABLES] = "kernel's new tables",
    [PERCH_CR3_FLUSH] = "TLB flush",
    [PERCH_CR3_FLUSH_EAGER] = "eager flush",
};

/*
 * Instructions the Switcher runs in ring 0 (each emulated, ~0.6 us) for one
 * visit of each kind, counted in switcher/switcher.S; the CPU's event
 * delivery and the iretq's return come on top. Exceptions and interrupts:
 * the kernel view's stub / the user view's (which loads CR3); #PF adds 3 /
 * 2 for CR2, an interrupt that ends a halt 1 for the IDT.
 */
static const char *const visit_instructions[PERCH_VISIT_COUNT] = {
    [PERCH_VISIT_EXCEPTION] = "2 / 5",
    [PERCH_VISIT_INTERRUPT] = "2 / 5",
    [PERCH_VISIT_USER_SYSCALL] = "5",
    [PERCH_VISIT_SERVICE_CR3] = "6",
    [PERCH_VISIT_SERVICE_RESUME] = "6",
    [PERCH_VISIT_SERVICE_CR2] = "8",
    [PERCH_VISIT_SERVICE_EXIT] = "10",
    [PERCH_VISIT_SERVICE_HALT] = "13",
};

const char *hypercall_name(unsigned nr)
{
    return nr < XEN_NR_HYPERCALLS ? hypercall_names[nr] : NULL;
}

/* What became of the kernel's hypercall and iret (host/cpu/direct_calls.h). */
static const char *const direct_state_names[PERCH_DIRECT_STATES] = {
    [PERCH_DIRECT_NONE] = "the kernel names no xen_hypercall_pv and xen_iret, and has no hypercall page",
    [PERCH_DIRECT_PAGE] = "the hypercall page's slots jump to the Host",
    [PERCH_DIRECT_ACTIVE] = "xen_hypercall_pv and xen_iret jump to the Host",
    [PERCH_DIRECT_OFF] = "--trap-hypercalls",
    [PERCH_DIRECT_GDB] = "off with --gdb",
    [PERCH_DIRECT_UNKNOWN_CODE] = "xen_hypercall_pv, xen_iret or the hypercall page not as perch knows it",
};

static void print_hypercalls(FILE *out, const struct perch_shared *sh)
{
    uint64_t total = sh->stats.hypercalls_unknown;

    fprintf(out, "  hypercalls (served in the Host):\n");
    for (unsigned nr = 0; nr < XEN_NR_HYPERCALLS; nr++) {
        const char *name = hypercall_name(nr);

        total += sh->stats.hypercalls[nr];
        if (sh->stats.hypercalls[nr])
            fprintf(out, "    %-28s %12lu\n", name ? name : "(unassigned)",
                    sh->stats.hypercalls[nr]);
    }
    if (sh->stats.hypercalls_unknown)
        fprintf(out, "    %-28s %12lu\n", "(number out of range)",
                sh->stats.hypercalls_unknown);
    fprintf(out, "    %-28s %12lu\n", "total", total);
    fprintf(out, "    %-28s %12lu  (%s)\n", "of them direct, no trap", sh->stats.direct_calls,
            sh->stats.direct_state < PERCH_DIRECT_STATES ? direct_state_names[sh->stats.direct_state]
                                                        : "?");
    fprintf(out, "  page-table updates:\n");
    fprintf(out, "    %-28s %12lu\n", "by hypercall (entries)", sh->stats.pt_updates);
    fprintf(out, "    %-28s %12lu\n", "trapped writes emulated", sh->stats.ptwr_emulations);
}

/* The vectors with a count, one line each; returns their sum. */
static uint64_t print_vectors(FILE *out, const uint64_t counts[256])
{
    uint64_t sum = 0;

    for (unsigned v = 0; v < 256; v++) {
        sum += counts[v];
        if (counts[v])
            fprintf(out, "      vector %-21u %12lu\n", v, counts[v]);
    }
    return sum;
}

static void print_visits(FILE *out, const struct perch_shared *sh)
{
    uint64_t total = 0;

    fprintf(out, "  Switcher visits (ring 0):\n");
    for (unsigned v = 0; v < PERCH_VISIT_COUNT; v++) {
        total += sh->stats.visits[v];
        if (sh->stats.visits[v])
            fprintf(out, "    %-28s %12lu\n", visit_names[v], sh->stats.visits[v]);
    }
    for (unsigned c = 0; c < PERCH_CR3_CAUSES; c++)
        if (sh->stats.cr3_loads[c])
            fprintf(out, "      cr3 load: %-18s %12lu\n", cr3_cause_names[c], sh->stats.cr3_loads[c]);
    print_vectors(out, sh->stats.vectors);
    fprintf(out, "    %-28s %12lu\n", "total", total);
    fprintf(out, "  ring-0 instructions per visit (kernel view / user view):\n");
    for (unsigned v = 0; v < PERCH_VISIT_COUNT; v++)
        if (sh->stats.visits[v])
            fprintf(out, "    %-28s %12s instructions\n", visit_names[v],
                    visit_instructions[v]);
}

/* What reached the Host without ring 0, and what ring 0 was spared. */
static void print_cpl3(FILE *out, const struct perch_shared *sh)
{
    uint64_t total = sh->stats.cpl3_user_syscalls;

    fprintf(out, "  events at CPL3 (no ring 0):\n");
    if (sh->stats.cpl3_user_syscalls)
        fprintf(out, "    %-28s %12lu\n", "guest-user syscall", sh->stats.cpl3_user_syscalls);
    total += print_vectors(out, sh->stats.cpl3_vectors);
    fprintf(out, "    %-28s %12lu\n", "total", total);
    fprintf(out, "    %-28s %12lu\n", "#PF address from the insn", sh->stats.pf_address_decoded);
    fprintf(out, "    %-28s %12lu\n", "TLB flushes not needed", sh->stats.tlb_flushes_elided);
    fprintf(out, "    %-28s %12lu\n", "TLB shootdowns (vCPUs)", sh->stats.tlb_shootdowns);
    fprintf(out, "    %-28s %12lu\n", "syscalls by #UD (vCPU unsure)", sh->stats.syscalls_redirected);
}

static void print_exits(FILE *out, const struct run_stats *run)
{
    uint64_t total = 0;

    fprintf(out, "  exits to the Launcher:\n");
    for (unsigned k = 0; k < EXIT_KIND_COUNT; k++) {
        total += run->exits[k];
        if (run->exits[k])
            fprintf(out, "    %-28s %12lu\n", exit_kind_names[k], run->exits[k]);
    }
    fprintf(out, "    %-28s %12lu\n", "total", total);
}

/* The balloon (host/mm/reservation.c): frames the guest gave back and took
 * again, and the memory the Launcher returned to the host. */
static void print_balloon(FILE *out, const struct perch_shared *sh, const struct run_stats *run)
{
    if (!sh->stats.frames_given_back)
        return;
    fprintf(out, "  balloon:\n");
    fprintf(out, "    %-28s %12lu  (%lu MiB)\n", "frames given back", sh->stats.frames_given_back,
            sh->stats.frames_given_back >> 8);
    fprintf(out, "    %-28s %12lu\n", "frames taken again", sh->stats.frames_taken);
    fprintf(out, "    %-28s %12lu  (%lu MiB)\n", "released to the host", run->frames_released,
            run->frames_released >> 8);
}

/* The counts are the guest's to corrupt, so they are only bounded. */
void stats_print_cpu(FILE *out, const struct perch_shared *sh)
{
    uint32_t nr_msrs = sh->stats.nr_msrs_seen, nr_cpuids = sh->stats.nr_cpuids_seen;

    fprintf(out, "  MSRs the guest kernel read or wrote (reads, writes, refused with #GP; last value):\n");
    for (uint32_t i = 0; i < nr_msrs && i < PERCH_MSRS_SEEN; i++) {
        const struct perch_msr_seen *m = &sh->stats.msrs_seen[i];

        fprintf(out, "    0x%08x %6u %6u %6u  %#" PRIx64 "\n", m->msr, m->reads, m->writes,
                m->refused, m->value);
    }
    fprintf(out, "  CPUID leaves it asked (times; perch's answer eax ebx ecx edx):\n");
    for (uint32_t i = 0; i < nr_cpuids && i < PERCH_CPUIDS_SEEN; i++) {
        const struct perch_cpuid_seen *c = &sh->stats.cpuids_seen[i];

        if (c->subleaf == PERCH_CPUID_SCAN_SUBLEAF)
            fprintf(out, "    0x%08x-0x%08x %6u  (a hypervisor scan, every 0x100)\n",
                    PERCH_CPUID_SCAN_FIRST, PERCH_CPUID_SCAN_END - 1, c->count);
        else
            fprintf(out, "    0x%08x.%-2u %6u  %08x %08x %08x %08x\n", c->leaf, c->subleaf,
                    c->count, c->reg[0], c->reg[1], c->reg[2], c->reg[3]);
    }
}

/* TSC cycles in ms (0 when the TSC's rate is unknown). */
static double tsc_ms(const struct run_stats *run, uint64_t cycles)
{
    return run->tsc_khz ? (double)cycles / run->tsc_khz : 0.0;
}

/*
 * With several vCPUs: each one's share; how long it waited for the Host
 * lock (one vCPU at a time runs the Host's logic: host_lock.h), held it,
 * and slept in a block or poll (nothing to run; the spin before such a
 * sleep included), in ms of the vCPU TSC; and its steal: how long its thread waited for a host CPU,
 * as KVM counted it (ms). The guest can write these words (they are in its
 * reach): they are read once each and only printed. The vCPU count is
 * the Launcher's own.
 */
static void print_vcpus(FILE *out, const struct perch_shared *shared,
                        const struct run_stats *run, unsigned nr_vcpus)
{
    const volatile struct perch_shared *sh = shared;
    uint64_t spins = 0, woken = 0;

    if (nr_vcpus < 2)
        return;
    fprintf(out, "  by vCPU:\n");
    fprintf(out, "    %-5s %12s %12s %12s %12s %12s %10s %10s %10s %10s %10s %10s\n", "vCPU",
            "hypercalls", "direct", "visits", "CPL3 events", "user sysc.", "by #UD", "lock waits",
            "waited ms", "held ms", "asleep ms", "steal ms");
    for (unsigned i = 0; i < nr_vcpus && i < PERCH_MAX_VCPUS; i++) {
        const volatile struct perch_vcpu_stats *v = &sh->vcpu_stats[i];
        fprintf(out, "    %-5u %12lu %12lu %12lu %12lu %12lu %10lu %10lu %10.1f %10.1f %10.1f %10.1f\n",
                i, v->hypercalls, v->direct_calls, v->visits, v->cpl3_events, v->user_syscalls,
                v->syscalls_redirected, v->lock_waits, tsc_ms(run, v->lock_wait_cycles),
                tsc_ms(run, v->lock_held_cycles), tsc_ms(run, v->asleep_cycles),
                (double)sh->steal[i].steal / 1e6);
        spins += v->idle_spins;
        woken += v->idle_spins_woken;
    }
    fprintf(out, "    spins before sleeping %lu, ended by another vCPU's event %lu; "
            "IPIs that needed none %lu\n", spins, woken, sh->stats.ipis_spared);
}

/* The Host's stores to the local APIC, all vCPUs: the MMIO part of KVM's
 * emulated faults. */
static uint64_t apic_stores(const struct perch_shared *shared, unsigned nr_vcpus)
{
    const volatile struct perch_shared *sh = shared;
    uint64_t sum = 0;

    for (unsigned i = 0; i < nr_vcpus && i < PERCH_MAX_VCPUS; i++)
        sum += sh->vcpu_stats[i].apic_stores;
    return sum;
}

/* What the machine's hypervisor counted: every trap, perch's or not. */
static void print_kvm(FILE *out, const struct perch_shared *shared, const struct kvm_vm *vm)
{
    static const char *const shown[KVM_COUNTS] = {
        [KVM_COUNT_EXITS] = "exits into KVM (traps)",
        [KVM_COUNT_PF_TAKEN] = "of them page faults",
        [KVM_COUNT_PF_FIXED] = "  shadow entries filled",
        [KVM_COUNT_PF_EMULATE] = "  emulated (tables, MMIO)",
        [KVM_COUNT_PF_SPURIOUS] = "  spurious",
        [KVM_COUNT_PF_GUEST] = "  the guest's own",
        [KVM_COUNT_INSN_EMULATION] = "instructions emulated",
        [KVM_COUNT_TLB_FLUSH] = "TLB flushes",
    };
    uint64_t n[KVM_COUNTS];

    if (!kvm_vm_counts(vm, n)) {
        fprintf(out, "  the machine's hypervisor: KVM keeps no statistics here "
                     "(KVM_GET_STATS_FD, Linux 5.14)\n");
        return;
    }
    fprintf(out, "  the machine's hypervisor (KVM's own counts, all vCPUs):\n");
    for (unsigned c = 0; c < KVM_COUNTS; c++) {
        fprintf(out, "    %-28s %12" PRIu64 "\n", shown[c], n[c]);
        if (c == KVM_COUNT_PF_EMULATE)
            fprintf(out, "    %-28s %12" PRIu64 "\n", "    of them Host APIC stores",
                    apic_stores(shared, vm->nr_vcpus));
    }
}

void stats_print(FILE *out, const struct perch_shared *shared,
                 const struct run_stats *run, const struct kvm_vm *vm)
{
    fprintf(out, "perch stats:\n");
    fprintf(out, "  vCPU TSC: %u kHz\n", run->tsc_khz);
    print_hypercalls(out, shared);
    print_visits(out, shared);
    print_cpl3(out, shared);
    print_vcpus(out, shared, run, vm->nr_vcpus);
    print_exits(out, run);
    print_balloon(out, shared, run);
    print_kvm(out, shared, vm);
}

static const char *const patch_state_names[PERCH_PATCH_STATES] = {
    [PERCH_PATCH_WAITING] = "text still writable",
    [PERCH_PATCH_ACTIVE] = "patched",
    [PERCH_PATCH_OFF] = "--no-insn-patching",
    [PERCH_PATCH_NOT_TEXT] = "not kernel text",
    [PERCH_PATCH_TOO_SHORT] = "too short (r11 live)",
    [PERCH_PATCH_CROSSES_PAGE] = "crosses a page",
    [PERCH_PATCH_UNDONE_WRITE] = "undone: text rewritten too often",
    [PERCH_PATCH_UNDONE_TARGET] = "undone: not a page table",
};

/* A kernel address as symbol+offset where the symbols know it. */
static void name_address(char *where, size_t size, const struct kernel_symbols *syms,
                         uint64_t rip)
{
    const char *name = NULL;
    uint64_t offset = 0;

    if (syms && kernel_symbols_lookup(syms, rip, &name, &offset))
        snprintf(where, size, "%s+%#" PRIx64, name, offset);
    else
        snprintf(where, size, "%#" PRIx64, rip);
}

static void print_patches(FILE *out, const struct perch_shared *sh,
                          const struct kernel_symbols *syms)
{
    uint32_t n = sh->stats.nr_patch_sites;

    fprintf(out, "  trapping page-table stores by instruction (trapped, through the patch; what became of it):\n");
    for (uint32_t i = 0; i < n && i < PERCH_PATCH_SITES; i++) {
        const struct perch_patch_site *s = &sh->stats.patch_sites[i];
        const char *state = s->state < PERCH_PATCH_STATES ? patch_state_names[s->state] : "?";
        char where[96];

        name_address(where, sizeof(where), syms, s->rip);
        fprintf(out, "    %-40s %2u bytes %10" PRIu64 " %10" PRIu64 "  %s%s", where, s->len,
                s->traps, s->calls, state,
                s->state == PERCH_PATCH_ACTIVE && s->by_call ? " (call)" : "");
        if (s->rewrites)
            fprintf(out, "; restored %ux for a text write", s->rewrites);
        fputc('\n', out);
    }
    if (sh->stats.patch_sites_unlisted)
        fprintf(out, "    %-40s %19" PRIu64 "\n", "(sites past the table)",
                sh->stats.patch_sites_unlisted);
    fprintf(out, "    %-28s %12" PRIu64 "\n", "stores through patches", sh->stats.patched_stores);
}

void stats_print_card(FILE *out, const struct netif_counts *c)
{
    fprintf(out, "  network card (vif0), frames:\n");
    fprintf(out, "    %-28s %12lu\n", "sent (tx)", c->tx_packets);
    fprintf(out, "    %-28s %12lu\n", "tx answered error", c->tx_errors);
    fprintf(out, "    %-28s %12lu\n", "tx dropped (no checksum)", c->tx_dropped);
    fprintf(out, "    %-28s %12lu\n", "received (rx)", c->rx_packets);
    fprintf(out, "    %-28s %12lu\n", "rx page refused", c->rx_errors);
    fprintf(out, "    %-28s %12lu\n", "rx dropped (too few pages)", c->rx_dropped);
}

const char *stats_visit_name(unsigned v)
{
    return v < PERCH_VISIT_COUNT && visit_names[v] ? visit_names[v] : "?";
}

/* The guest may write these while we read (they are in its reach), and
 * the vCPU thread counts exits while the console thread takes a snapshot:
 * each word is read once, whole, and used only for arithmetic. */
void stats_snapshot(const struct perch_shared *shared, const struct run_stats *run,
                    const struct kvm_vm *vm, struct perch_counters *out)
{
    const volatile struct perch_shared *sh = shared;

    out->hypercalls = sh->stats.hypercalls_unknown;
    for (unsigned nr = 0; nr < XEN_NR_HYPERCALLS; nr++)
        out->hypercalls += sh->stats.hypercalls[nr];
    out->visits = 0;
    for (unsigned v = 0; v < PERCH_VISIT_COUNT; v++) {
        out->visit[v] = sh->stats.visits[v];
        out->visits += out->visit[v];
    }
    out->trapped = sh->stats.ptwr_emulations;
    out->exits = 0;
    for (unsigned k = 0; k < EXIT_KIND_COUNT; k++)
        out->exits += __atomic_load_n(&run->exits[k], __ATOMIC_RELAXED);
    out->kvm_known = kvm_vm_counts(vm, out->kvm);
}

/* The guest kernel's hypercalls that still trapped, by where they came
 * from: what direct calls did not reach. The guest can write these words:
 * each is read once and only printed. */
static void print_trapped_callers(FILE *out, const struct perch_shared *shared,
                                  const struct kernel_symbols *syms)
{
    const volatile struct perch_shared *sh = shared;
    uint32_t n = sh->stats.nr_trapped_callers;

    fprintf(out, "  guest-kernel hypercalls by syscall (a trap each), by the address after it:%s\n",
            n ? "" : " none");
    for (uint32_t i = 0; i < n && i < PERCH_TRAPPED_CALLERS; i++) {
        char where[96];

        name_address(where, sizeof(where), syms, sh->stats.trapped_callers[i].rip);
        fprintf(out, "    %-40s %12" PRIu64 "\n", where, sh->stats.trapped_callers[i].count);
    }
    if (sh->stats.trapped_callers_unlisted)
        fprintf(out, "    %-40s %12" PRIu64 "\n", "(callers past the table)",
                sh->stats.trapped_callers_unlisted);
}

void stats_print_with_symbols(FILE *out, const struct perch_shared *sh,
                              const struct kernel_symbols *syms)
{
    print_patches(out, sh, syms);
    print_trapped_callers(out, sh, syms);
}
