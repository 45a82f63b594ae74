/*
 * The Host's environment for the unit tests (see host_env.h and host/core/env.h).
 *
 * Linked into every unit-test binary, including those that never call the
 * Host: it defines no main() and only host_env_* names besides the env_*
 * functions the Host calls.
 */
#include "host_env.h"

#include "../../host/core/vcpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/core/env.h"
#include "../../launcher/vm/hole.h"
#include "../../launcher/boot/initramfs.h"
#include "../../host/cpu/cpuid.h"
#include "../../host/core/where.h"
#include "../../lib/cpuid_table.h"

uint8_t *host_env_memory;
uint64_t host_env_frames;
static uint64_t next_table_frame;

struct host_env_request host_env_log[HOST_ENV_LOG_MAX];
unsigned host_env_nr_requests;
unsigned host_env_requests_of[PERCH_REQ_COUNT + 1];
unsigned host_env_doorbells;
unsigned host_env_switcher_roundtrips;

uint8_t host_env_console[HOST_ENV_CONSOLE_MAX];
size_t host_env_console_len;
uint32_t host_env_console_cons;
int host_env_console_broken;
int host_env_flush_stalls;
static unsigned stalled_flushes;

jmp_buf *host_env_stop_jmp;

enum host_env_exit host_env_exit_kind;
struct cpu_regs host_env_exit_regs;
uint64_t host_env_exit_cr3;
unsigned host_env_exits;
uint64_t host_env_syscall_entry = HOST_IMAGE_VA + 0x1000;
uint64_t host_env_user_rax;
uint64_t host_env_kernel_cr3_slot;
uint64_t host_env_fault_address[3];
uint64_t host_env_fs_base, host_env_gs_base;

/* A Host that keeps asking is stuck in a loop: no test needs this many. */
#define REQUEST_LIMIT 1000000u

void host_env_reset(uint64_t frames)
{
    /* The same size again (the fuzz harnesses' every run): the same buffer. */
    if (frames != host_env_frames || !frames) {
        free(host_env_memory);
        host_env_memory = NULL;
    }
    if (frames && !host_env_memory) {
        host_env_memory = aligned_alloc(4096, frames * 4096);
        if (!host_env_memory) {
            fprintf(stderr, "host_env: cannot allocate %lu frames\n",
                    (unsigned long)frames);
            abort();
        }
    }
    if (frames)
        memset(host_env_memory, 0, frames * 4096);
    host_env_frames = frames;
    next_table_frame = frames;
    memset(&perch_shared, 0, sizeof(perch_shared));
    memset(host_env_cpus, 0, sizeof(host_env_cpus));
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++)
        host_env_cpus[i].vcpu.id = i;
    host_env_cpus[0].vcpu.state = VCPU_UP;
    host_env_cpu_now = 0;
    host_env_ipis = host_env_ipi_cpu = host_env_ipi_vector = host_env_serialized = 0;
    host_nr_vcpus = 1;
    memset(&where_last, 0, sizeof(where_last));
    current->in_kernel = true;
    perch_shared.boot.machine_frames = frames;
    perch_shared.boot.nr_vcpus = 1;

    memset(host_env_log, 0, sizeof(host_env_log));
    host_env_nr_requests = 0;
    memset(host_env_requests_of, 0, sizeof(host_env_requests_of));
    host_env_doorbells = 0;
    host_env_switcher_roundtrips = 0;
    host_env_console_len = 0;
    host_env_console_cons = 0;
    host_env_console_broken = 0;
    host_env_flush_stalls = 0;
    stalled_flushes = 0;
    host_env_stop_jmp = NULL;
    host_env_exit_kind = HOST_ENV_EXIT_NONE;
    memset(&host_env_exit_regs, 0, sizeof(host_env_exit_regs));
    host_env_exit_cr3 = 0;
    host_env_exits = 0;
    host_env_syscall_entry = HOST_IMAGE_VA + 0x1000;
    host_env_user_rax = 0;
    host_env_kernel_cr3_slot = 0;
    memset(host_env_fault_address, 0, sizeof(host_env_fault_address));
    host_env_fs_base = host_env_gs_base = 0;
    host_env_gdb_answer = NULL;
    host_env_gdb_stops = 0;
    host_env_gdb_last_why = 0;
}

void *host_env_frame(uint64_t mfn)
{
    if (mfn >= host_env_frames) {
        fprintf(stderr, "host_env: frame %#lx outside machine memory (%lu frames)\n",
                (unsigned long)mfn, (unsigned long)host_env_frames);
        abort();
    }
    return host_env_memory + mfn * 4096;
}

uint64_t host_env_alloc_frame(void)
{
    if (next_table_frame == 0) {
        fprintf(stderr, "host_env: out of frames for page tables\n");
        abort();
    }
    next_table_frame--;
    memset(host_env_frame(next_table_frame), 0, 4096);
    return next_table_frame;
}

static unsigned va_index(uint64_t va, int level)
{
    return (va >> (12 + 9 * level)) & 511;
}

uint64_t host_env_map(uint64_t va, uint64_t mfn, uint64_t flags)
{
    uint64_t table;

    if (!(current->kernel_cr3 & PTE_ADDR_MASK))
        current->kernel_cr3 = perch_shared.boot.kernel_cr3 = host_env_alloc_frame() << 12;
    table = current->kernel_cr3 & PTE_ADDR_MASK;
    for (int level = 3; level > 0; level--) {
        uint64_t *entry = (uint64_t *)host_env_frame(table >> 12) + va_index(va, level);

        if (!(*entry & PTE_P))
            *entry = (host_env_alloc_frame() << 12) | HOST_ENV_TABLE_FLAGS;
        table = *entry & PTE_ADDR_MASK;
    }
    ((uint64_t *)host_env_frame(table >> 12))[va_index(va, 0)] = (mfn << 12) | flags;
    return table + va_index(va, 0) * 8;
}

void host_env_map_range(uint64_t va, uint64_t mfn, uint64_t pages, uint64_t flags)
{
    for (uint64_t i = 0; i < pages; i++)
        host_env_map(va + i * 4096, mfn + i, flags);
}

uint64_t *host_env_pte(uint64_t va, int level)
{
    uint64_t table = current->kernel_cr3 & PTE_ADDR_MASK;

    for (int l = 3;; l--) {
        uint64_t *entry;

        if ((table >> 12) >= host_env_frames)
            return NULL;
        entry = (uint64_t *)(host_env_memory + table) + va_index(va, l);
        if (l == level)
            return entry;
        if (!(*entry & PTE_P))
            return NULL;
        table = *entry & PTE_ADDR_MASK;
    }
}

const struct host_env_request *host_env_last_request(void)
{
    static const struct host_env_request none;
    unsigned n = host_env_nr_requests;

    if (n == 0)
        return &none;
    return &host_env_log[(n < HOST_ENV_LOG_MAX ? n : HOST_ENV_LOG_MAX) - 1];
}

int host_env_console_drain(void)
{
    uint32_t prod = perch_shared.console_prod;
    uint32_t used = prod - host_env_console_cons;

    if (used > PERCH_CONSOLE_RING_BYTES) {
        host_env_console_broken = 1;
        return -1;
    }
    for (uint32_t i = 0; i < used; i++) {
        uint8_t c = perch_shared.console_ring[(host_env_console_cons + i) %
                                              PERCH_CONSOLE_RING_BYTES];

        if (host_env_console_len < HOST_ENV_CONSOLE_MAX)
            host_env_console[host_env_console_len++] = c;
    }
    host_env_console_cons = prod;
    perch_shared.console_cons = prod;
    return 0;
}

/* The real Launcher never resumes the vCPU after this request. */
static void stop(const char *why)
{
    host_env_exit_kind = HOST_ENV_EXIT_STOP;
    if (host_env_stop_jmp)
        longjmp(*host_env_stop_jmp, 1);
    fprintf(stderr, "host_env: the Host made a request that stops the guest "
            "(%s) with no HOST_ENV_EXPECT_STOP armed; message: \"%.*s\"\n",
            why, (int)PERCH_FATAL_MSG_BYTES, perch_shared.request.message);
    abort();
}

void (*host_env_gdb_answer)(void);
unsigned host_env_gdb_stops;
uint64_t host_env_gdb_last_why;

/* A stop for gdb (launcher_gdb_stop) is no request: the stopped vCPU's
 * slot says it, and the Launcher looks there first. */
static bool gdb_stop(void)
{
    for (unsigned i = 0; i < PERCH_MAX_VCPUS; i++)
        if ((host_env_gdb_last_why = __atomic_exchange_n(&perch_shared.gdb.cpu[i].stopped,
                                                         0, __ATOMIC_SEQ_CST))) {
            host_env_gdb_stops++;
            if (host_env_gdb_answer)
                host_env_gdb_answer();
            return true;
        }
    return false;
}

void env_call_launcher(void)
{
    uint32_t reason = perch_shared.request.reason;
    struct host_env_request *r = NULL;

    if (gdb_stop())
        return;
    if (host_env_nr_requests < HOST_ENV_LOG_MAX)
        r = &host_env_log[host_env_nr_requests];
    host_env_nr_requests++;
    host_env_requests_of[reason < PERCH_REQ_COUNT ? reason : PERCH_REQ_COUNT]++;
    if (r) {
        r->reason = reason;
        r->arg0 = perch_shared.request.arg[0];
        memcpy(r->message, perch_shared.request.message, PERCH_FATAL_MSG_BYTES);
        r->message[PERCH_FATAL_MSG_BYTES] = '\0';
    }
    if (host_env_nr_requests > REQUEST_LIMIT) {
        fprintf(stderr, "host_env: %u requests to the Launcher: the Host loops\n",
                host_env_nr_requests);
        abort();
    }

    switch (reason) {
    case PERCH_REQ_SHUTDOWN:
        stop("shutdown");
        break;
    case PERCH_REQ_FATAL:
        stop("fatal");
        break;
    case PERCH_REQ_CONSOLE_FLUSH:
        if (host_env_flush_stalls) {
            if (++stalled_flushes >= HOST_ENV_STALL_LIMIT)
                stop("console flush: the Launcher stalls");
            break;
        }
        if (host_env_console_drain())
            stop("console ring index corrupted");
        break;
    default:
        break;   /* PERCH_REQ_PING and the like: nothing to do */
    }
}

void env_ring_doorbell(void)
{
    host_env_doorbells++;
}

/* Weak: added to host/core/env.h after this stand-in was written; whoever owns
 * perch_op may bring their own. */
__attribute__((weak)) void env_switcher_roundtrip(void)
{
    host_env_switcher_roundtrips++;
}

__attribute__((weak)) void env_switcher_probe(uint64_t gate)
{
    (void)gate;
    host_env_switcher_roundtrips++;
}

uint8_t *env_alias_base(void)
{
    return host_env_memory;
}

/*
 * launcher/run/launch.c calls vm_images_get(), which lives in launcher/boot/images.c
 * with the embedded images the unit tests do not link: no images here. Weak
 * so that a test that wants real ones can define its own.
 */
__attribute__((weak)) void vm_images_get(struct vm_images *images)
{
    memset(images, 0, sizeof(*images));
}

/* Their CRC-32 (launcher/boot/images.c too), which launch.c writes into a
 * snapshot and restore.c checks: that of no images. */
__attribute__((weak)) uint32_t vm_images_crc(const struct vm_images *images)
{
    (void)images;
    return 0;
}

/* Likewise perch's /init (launcher/boot/images.c): an empty one. */
__attribute__((weak)) void initramfs_init_image(const uint8_t **bytes,
                                                size_t *size)
{
    *bytes = NULL;
    *size = 0;
}

/* And perchbench (launcher/boot/images.c): none. */
__attribute__((weak)) void initramfs_bench_image(const uint8_t **bytes,
                                                 size_t *size)
{
    *bytes = NULL;
    *size = 0;
}

/* And the library perch bench gives UML (launcher/boot/images.c): none. */
__attribute__((weak)) void images_uml_preload(const uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
}

/*
 * The world switch's part of host/core/env.h. Weak, like env_switcher_roundtrip:
 * it arrived while these stand-ins were written, and its owner may bring
 * their own.
 */
static _Noreturn void leave(enum host_env_exit kind, struct cpu_regs *regs)
{
    host_env_exit_kind = kind;
    host_env_exit_regs = *regs;
    host_env_exits++;
    if (host_env_stop_jmp)
        longjmp(*host_env_stop_jmp, 1);
    fprintf(stderr, "host_env: the Host left for the guest (exit kind %d, rip "
            "%#lx) with no HOST_ENV_EXPECT_STOP armed\n", (int)kind,
            (unsigned long)regs->rip);
    abort();
}

__attribute__((weak)) _Noreturn void switcher_resume(struct cpu_regs *regs)
{
    leave(HOST_ENV_EXIT_RESUME, regs);
}

__attribute__((weak)) _Noreturn void switcher_resume_cr3(struct cpu_regs *regs, uint64_t cr3)
{
    host_env_exit_cr3 = cr3;
    leave(HOST_ENV_EXIT_RESUME_CR3, regs);
}

__attribute__((weak)) _Noreturn void resume_native(struct cpu_regs *regs)
{
    leave(HOST_ENV_EXIT_RETURN_NATIVE, regs);
}

struct host_cpu host_env_cpus[PERCH_MAX_VCPUS];
unsigned host_env_cpu_now;

struct host_cpu *this_cpu(void)
{
    return &host_env_cpus[host_env_cpu_now];
}

struct host_cpu *host_cpu(unsigned id)
{
    return &host_env_cpus[id];
}

unsigned env_cpu_id(void)
{
    return host_env_cpu_now;
}

void env_cpu_init(void)
{
}

__attribute__((weak)) long env_syscall_entry_offset(uint64_t rip)
{
    uint64_t offset = rip - host_env_syscall_entry;

    if (offset >= host_nr_vcpus * SYSCALL_ENTRY_STRIDE)
        return -1;
    return (long)(offset % SYSCALL_ENTRY_STRIDE);
}

__attribute__((weak)) uint64_t env_direct_entry(void)
{
    return HOST_ENV_DIRECT_ENTRY;
}

__attribute__((weak)) bool env_direct_entry_unsure(uint64_t rip)
{
    return rip == HOST_ENV_DIRECT_ENTRY + HOST_ENV_DIRECT_UNSURE;
}

__attribute__((weak)) uint64_t env_user_rax(void)
{
    return host_env_user_rax;
}

__attribute__((weak)) void env_set_kernel_cr3_slot(uint64_t cr3)
{
    host_env_kernel_cr3_slot = cr3;
}

__attribute__((weak)) uint64_t env_fault_address(enum fault_address_source from)
{
    return host_env_fault_address[from];
}

__attribute__((weak)) void env_write_fs_base(uint64_t base)
{
    host_env_fs_base = base;
}

__attribute__((weak)) uint64_t env_read_gs_base(void)
{
    return host_env_gs_base;
}

__attribute__((weak)) void env_write_gs_base(uint64_t base)
{
    host_env_gs_base = base;
}

/* ---- Stand-ins for the environment of the events, time, MMU and
 * emulation code. Weak: a test that exercises them defines its own. ---- */

unsigned host_env_backend_notifications;

__attribute__((weak)) void env_notify_backend(unsigned line)
{
    (void)line;
    host_env_backend_notifications++;
}

__attribute__((weak)) uint64_t env_rdtsc(void)
{
    return 0;
}

__attribute__((weak)) void env_timer_arm(uint64_t deadline_ns, uint64_t now_ns)
{
    (void)deadline_ns, (void)now_ns;
}

__attribute__((weak)) void env_timer_cancel(void)
{
}

/* Nothing would ever wake a blocked vCPU here: a test that blocks must
 * provide its own. */
__attribute__((weak)) void env_idle(void)
{
    fprintf(stderr, "host_env: env_idle() without a stand-in\n");
    abort();
}

/* How many subleaves a stand-in CPU answers for, by leaf. */
static uint32_t described_subleaves(uint32_t leaf)
{
    if (!cpuid_leaf_has_subleaves(leaf))
        return 1;
    return leaf == 0xd ? 20 : leaf == 4 ? 8 : 4;
}

static void describe_range(uint32_t first, uint32_t last,
                           void (*cpuid)(uint32_t, uint32_t, uint32_t[4]))
{
    for (uint32_t leaf = first; leaf <= last; leaf++)
        for (uint32_t sub = 0; sub < described_subleaves(leaf); sub++) {
            uint32_t r[4];

            cpuid(leaf, sub, r);
            if (!cpuid_table_write(&perch_shared.boot.cpu, leaf, sub, r)) {
                fprintf(stderr, "host_env: the stand-in CPU has too many leaves\n");
                abort();
            }
        }
}

void host_env_describe_cpu(void (*cpuid)(uint32_t, uint32_t, uint32_t[4]), uint64_t xcr0)
{
    memset(&perch_shared.boot.cpu, 0, sizeof(perch_shared.boot.cpu));
    describe_range(0, 0x20, cpuid);
    describe_range(0x80000000u, 0x80000028u, cpuid);
    perch_shared.boot.cpu.xcr0 = xcr0;
}

unsigned host_env_interrupt_acks;

__attribute__((weak)) void env_interrupts_init(void)
{
}

__attribute__((weak)) void env_interrupt_ack(void)
{
    host_env_interrupt_acks++;
}

unsigned host_env_ipis, host_env_ipi_cpu, host_env_ipi_vector;

__attribute__((weak)) void env_wake_clear(void)
{
}

unsigned host_env_serialized;

__attribute__((weak)) void env_serialize(void)
{
    host_env_serialized++;
}

__attribute__((weak)) void env_send_ipi(unsigned cpu, unsigned vector)
{
    host_env_ipis++;
    host_env_ipi_cpu = cpu;
    host_env_ipi_vector = vector;
}

__attribute__((weak)) bool env_timer_due(uint64_t now_ns)
{
    (void)now_ns;
    return true;
}

__attribute__((weak)) void env_timer_nudge(uint64_t delay_ns, uint64_t now_ns)
{
    (void)delay_ns, (void)now_ns;
}

unsigned host_env_tlb_flushes;

__attribute__((weak)) void env_flush_tlb(uint64_t cr3, bool interrupts_on)
{
    (void)cr3, (void)interrupts_on;
    host_env_tlb_flushes++;
}
