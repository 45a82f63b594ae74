/*
 * The unit tests' stand-in for the Host's environment (host/core/env.h), in
 * tests/unit/host_env.c: "machine memory" is a heap buffer, the Launcher is
 * a function that logs each request and acts on it as the real one would,
 * and helpers build guest page tables in that memory.
 *
 * host_env.c is linked into every unit-test binary; everything it defines is
 * prefixed host_env_ (or is one of the env_* functions of host/core/env.h).
 */
#ifndef PERCH_TESTS_HOST_ENV_H
#define PERCH_TESTS_HOST_ENV_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "../../host/core/host.h"
#include "../../host/core/vcpu.h"

/* ---- Machine memory ------------------------------------------------------ */

/* What env_alias_base() returns: machine address 0. */
extern uint8_t *host_env_memory;
extern uint64_t host_env_frames;

/*
 * Start afresh: `frames` zeroed frames of machine memory, perch_shared zeroed
 * with boot.machine_frames = frames (kernel_cr3 = 0: no page tables yet),
 * the request log, console output and counters emptied, the Launcher in its
 * usual behaviour.
 */
void host_env_reset(uint64_t frames);

/* Describe the CPU to the Host (perch_shared.boot.cpu) as the Launcher
 * would: leaves 0-0x20 and 0x80000000-0x80000028 as cpuid() answers them
 * (a few subleaves each), and the XCR0 guest code runs with. After
 * host_env_reset(), which leaves no CPU described. */
void host_env_describe_cpu(void (*cpuid)(uint32_t leaf, uint32_t subleaf, uint32_t out[4]),
                           uint64_t xcr0);

/* Pointer to machine frame `mfn` (must be < host_env_frames). */
void *host_env_frame(uint64_t mfn);

/* A zeroed frame for page tables: handed out from the top of memory down,
 * so tests can use low frame numbers for data. */
uint64_t host_env_alloc_frame(void);

/* ---- vCPUs ------------------------------------------------------------- */

/* Every vCPU's area (ids set, the rest zeroed by host_env_reset()), and
 * which one the Host serves now (`current`; 0 after a reset). */
extern struct host_cpu host_env_cpus[PERCH_MAX_VCPUS];
extern unsigned host_env_cpu_now;
/* IPIs sent (env_send_ipi), and the last one's target and vector. */
extern unsigned host_env_ipis, host_env_ipi_cpu, host_env_ipi_vector;
/* env_serialize() calls. */
extern unsigned host_env_serialized;

/* ---- Guest page tables ---------------------------------------------------- */

/* Flags of the intermediate entries host_env_map() creates. */
#define HOST_ENV_TABLE_FLAGS (PTE_P | PTE_RW | PTE_US | PTE_A)
/* The usual leaf flags: a writable guest-kernel page (user, as PV wants). */
#define HOST_ENV_RW  (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define HOST_ENV_RO  (PTE_P | PTE_US | PTE_A)

/*
 * Map the 4 KiB page at `va` to machine frame `mfn` with leaf `flags` in the
 * tree rooted at perch_shared.boot.kernel_cr3, allocating the root (and
 * setting kernel_cr3) and missing tables on the way. Returns the machine
 * address of the L1 entry.
 */
uint64_t host_env_map(uint64_t va, uint64_t mfn, uint64_t flags);

/* host_env_map() for `pages` consecutive pages and frames. */
void host_env_map_range(uint64_t va, uint64_t mfn, uint64_t pages, uint64_t flags);

/*
 * The entry that translates `va` at `level` (3 = L4 ... 0 = L1), following
 * the tree as it is now; NULL if a table on the way is missing or outside
 * machine memory. For tests that break one entry.
 */
uint64_t *host_env_pte(uint64_t va, int level);

/* ---- The Launcher ------------------------------------------------------- */

struct host_env_request {
    uint32_t reason;                      /* enum perch_request */
    uint64_t arg0;
    char message[PERCH_FATAL_MSG_BYTES + 1];
};

/* The first HOST_ENV_LOG_MAX requests since host_env_reset(), in order;
 * host_env_nr_requests counts all of them. */
#define HOST_ENV_LOG_MAX 64
extern struct host_env_request host_env_log[HOST_ENV_LOG_MAX];
extern unsigned host_env_nr_requests;
extern unsigned host_env_requests_of[PERCH_REQ_COUNT + 1];  /* last: unknown */

/* The Launcher's side of a stop for gdb (perch_shared.gdb.cpu[].stopped):
 * called while the "vCPU" waits, to write perch_shared.gdb's answer;
 * NULL: continue with nothing changed. host_env_gdb_stops counts them,
 * host_env_gdb_last_why is the last one's PERCH_GDB_STOP_*. */
extern void (*host_env_gdb_answer)(void);
extern unsigned host_env_gdb_stops;
extern uint64_t host_env_gdb_last_why;

/* The most recent request (zeroed if there is none yet). */
const struct host_env_request *host_env_last_request(void);

/* env_ring_doorbell() and env_switcher_roundtrip() calls. */
extern unsigned host_env_doorbells;
/* Interrupts acknowledged through env_interrupt_ack(). */
extern unsigned host_env_interrupt_acks;
extern unsigned host_env_switcher_roundtrips;

/*
 * Console output the stand-in drained from the ring (on
 * PERCH_REQ_CONSOLE_FLUSH, or host_env_console_drain()). Like the real
 * Launcher (launcher/console/console.c) it keeps its own consumer index and writes
 * it to perch_shared.console_cons, so a guest-corrupted console_cons is
 * repaired; a producer index more than a ring ahead is a broken ring: the
 * request then does not return (see HOST_ENV_EXPECT_STOP) and
 * host_env_console_broken is set.
 */
#define HOST_ENV_CONSOLE_MAX (1u << 20)
extern uint8_t host_env_console[HOST_ENV_CONSOLE_MAX];
extern size_t host_env_console_len;
extern uint32_t host_env_console_cons;
extern int host_env_console_broken;

/* Drain the ring now (what console_stop does at the end); 0, or -1 if its
 * indices are corrupt. */
int host_env_console_drain(void);

/*
 * When set, a PERCH_REQ_CONSOLE_FLUSH request drains nothing: a Launcher
 * that does not keep up. The stand-in gives up (stops, as for a broken
 * ring) after this many flushes in a row without progress.
 */
extern int host_env_flush_stalls;
#define HOST_ENV_STALL_LIMIT 1000

/*
 * Requests after which the real Launcher never resumes the vCPU (shutdown,
 * fatal, a broken console ring) longjmp to the jump buffer armed by
 * HOST_ENV_EXPECT_STOP, or abort() the test binary if none is armed.
 *
 *     if (!HOST_ENV_EXPECT_STOP(do_sched_op(SCHEDOP_shutdown, va, 0, 0, 0)))
 *         ... it returned: the Host went on after a stop ...
 *
 * Evaluates to 1 if the statement was stopped, 0 if it ran to its end.
 */
extern jmp_buf *host_env_stop_jmp;
#define HOST_ENV_EXPECT_STOP(stmt)                                          \
    __extension__({                                                        \
        jmp_buf host_env_jb_;                                              \
        volatile int host_env_stopped_ = 0;                                \
        host_env_stop_jmp = &host_env_jb_;                                 \
        if (setjmp(host_env_jb_) == 0) {                                   \
            stmt;                                                          \
        } else {                                                           \
            host_env_stopped_ = 1;                                         \
        }                                                                  \
        host_env_stop_jmp = NULL;                                          \
        host_env_stopped_;                                                 \
    })

/*
 * The rest of host/core/env.h, for the world switch: leaving for the guest
 * (switcher_resume, switcher_resume_cr3, resume_native) records how and with
 * what, then does not return either (HOST_ENV_EXPECT_STOP catches it,
 * host_env_exit_kind says which); the Switcher's slots and the segment
 * bases are plain variables.
 */
enum host_env_exit {
    HOST_ENV_EXIT_NONE = 0,
    HOST_ENV_EXIT_STOP,            /* a request the Launcher never resumes */
    HOST_ENV_EXIT_RESUME,
    HOST_ENV_EXIT_RESUME_CR3,
    HOST_ENV_EXIT_RETURN_NATIVE,
};
extern enum host_env_exit host_env_exit_kind;   /* the last one */
extern struct cpu_regs host_env_exit_regs;      /* its frame */
extern uint64_t host_env_exit_cr3;              /* for RESUME_CR3 */
extern unsigned host_env_exits;                 /* resumes and returns */

/* Where env_direct_entry() says the direct entry is, and its `ud2`. */
#define HOST_ENV_DIRECT_ENTRY  (HOST_IMAGE_VA + 0x3000)
#define HOST_ENV_DIRECT_UNSURE 0x20
extern uint64_t host_env_syscall_entry;         /* vCPU 0's, env_at_syscall_entry */
extern uint64_t host_env_user_rax;              /* env_user_rax() */
extern uint64_t host_env_kernel_cr3_slot;       /* env_set_kernel_cr3_slot() */
extern uint64_t host_env_fault_address[3];      /* [enum fault_address_source] */
extern uint64_t host_env_fs_base, host_env_gs_base;

#endif
