/*
 * libFuzzer harness of --gdb's input (launcher/gdb/): the bytes a client
 * sends, through the framing and every packet, against a stopped guest
 * whose memory and page tables are built here. Besides ASan and UBSan:
 * no reply is longer than the packet size, perch's own frames and the
 * guest's page tables are never written, the Host's breakpoint table is
 * the Launcher's, no resume steps a vCPU not up or names one the guest
 * does not have, and the detach at the end leaves no int3 behind.
 */
#include "fuzz.h"

#include "../../abi/xen/xen.h"
#include "../../launcher/gdb/gdb_commands.h"
#include "../../launcher/gdb/gdb_frame.h"
#include "../../launcher/gdb/gdb_target.h"
#include "../../launcher/vm/pagetable.h"

#define PRIVATE 4
#define PAGES 8
#define TEXT 0xffffffff81000000ull
#define VCPUS 2   /* vCPU 1 not up: threads, one without registers */

static struct guest_memory gm;
static struct perch_shared shared;
static struct gdb_target t;
static struct gdb_framer f;
static struct gdb_reply r;
static uint8_t pristine[(PRIVATE + PAGES) * 4096];

static uint64_t *frame(uint64_t mfn)
{
    return gm_frame(&gm, mfn);
}

/* Frames base+0..3 the tables; TEXT maps base+4, base+5 and, forged, a
 * private frame; base+6 is a superpage's. */
static void build_once(void)
{
    uint64_t b;

    if (gm.base)
        return;
    FUZZ_ASSERT(guest_memory_init(&gm, PRIVATE, PAGES) == 0);
    b = gm.guest_mfn_base;
    frame(b)[pt_index(TEXT, 4)] = (b + 1) << 12 | PTE_P;
    frame(b + 1)[pt_index(TEXT, 3)] = (b + 2) << 12 | PTE_P;
    frame(b + 2)[pt_index(TEXT, 2)] = (b + 3) << 12 | PTE_P;
    frame(b + 2)[pt_index(TEXT, 2) + 1] = (b + 6) << 12 | PTE_P | PTE_PS;
    frame(b + 3)[0] = (b + 4) << 12 | PTE_P;
    frame(b + 3)[1] = (b + 5) << 12 | PTE_P;
    frame(b + 3)[2] = 1ull << 12 | PTE_P;
    frame(b + 3)[3] = (b + PAGES) << 12 | PTE_P;
    for (int i = 0; i < 4096; i++)
        ((uint8_t *)frame(b + 4))[i] = (uint8_t)(i * 7);
    memset(frame(1), 0xee, 4096);
    memcpy(pristine, gm.base, sizeof(pristine));
}

static void reset(void)
{
    memcpy(gm.base, pristine, sizeof(pristine));
    memset(&shared, 0, sizeof(shared));
    memset(&t, 0, sizeof(t));
    t.shared = &shared;
    t.gm = &gm;
    t.nr_vcpus = VCPUS;
    t.step_cpu = -1;
    for (unsigned cpu = 0; cpu < VCPUS; cpu++) {
        shared.gdb.cpu[cpu].regs.kernel_cr3 = gm.guest_mfn_base << 12;
        shared.gdb.cpu[cpu].regs.in_kernel = 1;
        shared.gdb.cpu[cpu].regs.rip = TEXT + 0x10;
        gdb_target_stopped(&t, cpu, cpu == 0);   /* the second is not up */
    }
    gdb_frame_reset(&f);
}

/* Nothing outside the guest's data frames changed: perch's frames and
 * the tables (frames 0 .. base+3) are as built. */
static void check_untouched(void)
{
    size_t tables_end = (gm.guest_mfn_base + 4) * 4096;

    FUZZ_ASSERT(!memcmp(gm.base, pristine, tables_end));
}

static void check_breakpoints(void)
{
    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++)
        FUZZ_ASSERT(shared.gdb.breakpoints[i] == (t.bp[i].used ? t.bp[i].va : 0));
}

static void serve(bool *no_ack)
{
    static const struct gdb_stop stop = { PERCH_GDB_STOP_TRAP, 0 };
    enum gdb_action a = gdb_command(&t, &stop, f.data, f.len, &r);

    FUZZ_ASSERT(r.len <= GDB_PACKET_MAX);
    switch (a) {
    case GDB_NO_ACK:
        *no_ack = true;
        break;
    case GDB_RESUME:   /* the guest runs and stops again at once */
        for (unsigned cpu = 0; cpu < VCPUS; cpu++) {
            FUZZ_ASSERT(t.go[cpu] <= GDB_GO_STEP);
            FUZZ_ASSERT(t.go[cpu] != GDB_GO_STEP || cpu == 0);   /* no step of one not up */
            gdb_target_resume(&t, cpu, t.go[cpu] == GDB_GO_STEP ? PERCH_GDB_STEP
                                                                 : PERCH_GDB_CONTINUE);
            gdb_target_stopped(&t, cpu, cpu == 0);
        }
        for (unsigned cpu = VCPUS; cpu < PERCH_MAX_VCPUS; cpu++)
            FUZZ_ASSERT(t.go[cpu] == GDB_GO_STAY);
        FUZZ_ASSERT(t.cpu < VCPUS);
        break;
    case GDB_DETACH:
        gdb_target_remove_all(&t);
        break;
    default:
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool no_ack = false;

    build_once();
    reset();
    for (size_t i = 0; i < size; i++)
        if (gdb_frame_byte(&f, (char)data[i], no_ack) == GDB_FRAME_PACKET)
            serve(&no_ack);
    check_untouched();
    check_breakpoints();
    gdb_target_remove_all(&t);
    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++)
        FUZZ_ASSERT(!t.bp[i].used && !shared.gdb.breakpoints[i]);
    return 0;
}
