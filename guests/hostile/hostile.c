/*
 * hostile: a guest kernel that attacks perch from the inside, one attack
 * per boot, chosen by the command line (attack=NAME; tests/guests/hostile.sh
 * runs them all and checks how perch ends).
 *
 * By design the guest kernel reaches perch's Host memory: the Host image
 * is mapped user-accessible in every guest-kernel address space, and so
 * are the Switcher's service gates, the IST stacks, the doorbell and the
 * local APIC page. The guest finds struct perch_shared through the Host
 * image header at HOST_IMAGE_VA (field shared_page) and scribbles over
 * what the Launcher reads (the console ring indices, the request), calls
 * the EXIT and RESUME gates itself, overwrites Host code, and pokes the
 * MMIO pages. Whatever it does, the Launcher must stay sane: stop the guest
 * with one clear line and status 5, or carry on, never crash or hang.
 *
 * Each attack first prints "hostile: attack NAME"; the attacks the guest
 * is meant to survive end with "PASS hostile/NAME" and a power-off.
 */
#include "../../abi/xen/memory.h"
#include "../../abi/xen/physdev.h"
#include "rt.h"
#include "events.h"
#include "../../abi/layout.h"

const char guest_name[] = "hostile";


/* ring0.S */
void ring0_run(const void *body);
extern char r0_probe[], r0_out80[], r0_hang[], r0_triple[], r0_timer_sti[];
extern uint64_t ring0_cs, ring0_cr0;

static const struct host_image_header *const header =
    (const struct host_image_header *)HOST_IMAGE_VA;
static volatile struct perch_shared *sh;
static const struct start_info *start;

/* Linux's own entry functions (guests/rt/linux_calls.S), patched by perch. */
extern char xen_hypercall_pv[], xen_iret[];

static void call_exit_gate(void)
{
    __asm__ volatile("call *%0" :: "r"(SW_GATE_EXIT) : "memory", "cc");
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* Busy-wait at CPL3 without an exit (the TSC rate is in the shared page). */
static void spin_ms(uint64_t ms)
{
    uint64_t khz = sh->boot.tsc_khz ? sh->boot.tsc_khz : 1000000;
    uint64_t end = rdtsc() + ms * khz;

    while (rdtsc() < end)
        __asm__ volatile("pause");
}

/* Until the Launcher's console thread has drained everything (bounded). */
static void wait_drained(void)
{
    for (int i = 0; i < 2000 && sh->console_cons != sh->console_prod; i++)
        spin_ms(1);
}

static void doorbell(void)
{
    *(volatile uint32_t *)HOST_DOORBELL_VA = 1;
}

static _Noreturn void poweroff(void)
{
    xen_shutdown(SHUTDOWN_poweroff);
}

/* The attack should have ended the guest; say so if it did not. */
static _Noreturn void survived(const char *name)
{
    test_fail(name, "perch let the guest go on after the attack");
    poweroff();
}

/* ---- The console ring ---------------------------------------------------- */

/* Move console_prod to cons + delta (prod itself when absolute), then
 * print: the Host finds the ring full and asks the Launcher to drain it. */
static void prod_then_print(const char *name, uint32_t delta, bool absolute)
{
    wait_drained();
    printk("hostile: prod %u cons %u\n", sh->console_prod, sh->console_cons);
    wait_drained();
    sh->console_prod = absolute ? delta : sh->console_cons + delta;
    printk("hostile: %s: this line must not reach stdout\n", name);
}

static void attack_console_prod(const char *name)
{
    prod_then_print(name, 100000, false);
    survived(name);
}

static void attack_console_prod_4097(const char *name)
{
    prod_then_print(name, 4097, false);
    survived(name);
}

static void attack_console_prod_max(const char *name)
{
    prod_then_print(name, 0xffffffffu, true);
    survived(name);
}

static void attack_console_prod_back(const char *name)
{
    prod_then_print(name, (uint32_t)-1, false);
    survived(name);
}

/* Exactly a full ring is legal: the Launcher drains 4096 stale bytes. */
static void attack_console_prod_full(const char *name)
{
    prod_then_print(name, PERCH_CONSOLE_RING_BYTES, false);
    printk("\nhostile: console still works\n");
    test_pass(name);
}

/* A corrupt producer and a doorbell, no console_io: only the Launcher's
 * console thread sees it and must kick the vCPU out of KVM_RUN. Two
 * seconds of spinning later the index is put back and the guest powers
 * off: a status 0 means the corruption went unnoticed. */
static void attack_console_prod_doorbell(const char *name)
{
    uint32_t prod;

    (void)name;
    wait_drained();
    prod = sh->console_prod;
    sh->console_prod = prod + 100000;
    doorbell();
    spin_ms(2000);
    sh->console_prod = prod;
    poweroff();
}

/* The same, but the vCPU keeps leaving KVM_RUN (PING requests through the
 * EXIT gate) while the console thread sends its kick: the kick may land
 * while the vCPU thread is outside KVM_RUN. */
static void attack_console_kick_race(const char *name)
{
    uint32_t prod;

    (void)name;
    wait_drained();
    prod = sh->console_prod;
    sh->console_prod = prod + 100000;
    doorbell();
    for (int i = 0; i < 20000; i++) {
        sh->request.reason = PERCH_REQ_PING;
        call_exit_gate();
    }
    sh->console_prod = prod;
    poweroff();
}

/* A corrupt producer left behind at power-off: only the Launcher's last
 * drain sees it. */
static void attack_console_prod_poweroff(const char *name)
{
    (void)name;
    wait_drained();
    sh->console_prod = sh->console_cons + 100000;
    poweroff();
}

/* console_cons is the Launcher's to write (it keeps its own copy): a
 * guest that moves it only fools the Host about the free space. Here the
 * Host thinks the ring full and asks for a drain each time, which puts
 * console_cons back: every line must come out. */
static void attack_console_cons(const char *name)
{
    for (int i = 0; i < 3; i++) {
        sh->console_cons = 0xdeadbeef;
        printk("hostile: console_cons marker %d\n", i);
    }
    for (int i = 0; i < 1000; i++) {
        sh->console_cons = sh->console_prod + 1;
        printk("hostile: console_cons loop %d\n", i);
    }
    test_pass(name);
}

/* Here the Host thinks the ring empty while the Launcher has not drained
 * it: the Host overwrites bytes the Launcher has not read. The Launcher
 * may print garbage or stop the guest over the index; nothing worse. */
static void attack_console_cons_overrun(const char *name)
{
    static char big[3001];

    for (int i = 0; i < 3000; i++)
        big[i] = i % 64 == 63 ? '\n' : 'a' + i % 26;
    for (int i = 0; i < 20; i++) {
        hc_console_write(big, 3000);
        sh->console_cons = sh->console_prod;   /* "all consumed" */
    }
    printk("\nhostile: console_cons_overrun end\n");
    test_pass(name);
}

/* ---- Requests through the EXIT gate -------------------------------------- */

static void attack_request(const char *name, uint32_t reason)
{
    wait_drained();
    sh->request.reason = reason;
    call_exit_gate();
    survived(name);
}

static void attack_request_garbage(const char *name)
{
    attack_request(name, 0xdeadbeef);
}

static void attack_request_none(const char *name)
{
    attack_request(name, PERCH_REQ_NONE);
}

static void attack_request_count(const char *name)
{
    attack_request(name, PERCH_REQ_COUNT);
}

/* FATAL with 160 bytes that are neither printable nor terminated, among
 * them newline, carriage return, escape, DEL and bytes above 0x7f. */
static void attack_request_message(const char *name)
{
    for (unsigned i = 0; i < PERCH_FATAL_MSG_BYTES; i++) {
        static const uint8_t nasty[] = { '\n', '\r', 0x1b, 0x7f, 0x80, 0xff,
                                         0x07, 0x9b, 0x01, '[', '2', 'J' };

        sh->request.message[i] = (char)nasty[i % sizeof(nasty)];
    }
    attack_request(name, PERCH_REQ_FATAL);
}

/* FATAL with 160 printable bytes and no NUL, then more printable bytes
 * (the counters that follow the message): the Launcher must stop at 160. */
static void attack_request_message_bound(const char *name)
{
    volatile uint8_t *after = (volatile uint8_t *)&sh->stats;

    wait_drained();
    for (unsigned i = 0; i < PERCH_FATAL_MSG_BYTES; i++)
        sh->request.message[i] = 'X';
    for (unsigned i = 0; i < 256; i++)
        after[i] = 'Y';
    attack_request(name, PERCH_REQ_FATAL);
}

/* SHUTDOWN with a reason no Xen knows, through the gate (64 bits) and
 * through the hypercall (32 bits). */
static void attack_shutdown_reason(const char *name)
{
    wait_drained();
    sh->request.arg[0] = ~0ull;
    attack_request(name, PERCH_REQ_SHUTDOWN);
}

static void attack_shutdown_reason_hc(const char *name)
{
    struct sched_shutdown s = { .reason = 0xffffffffu };

    wait_drained();
    hc_sched_op(SCHEDOP_shutdown, &s);
    survived(name);
}

static void attack_exit_flood(const char *name)
{
    for (int i = 0; i < 100000; i++) {
        sh->request.reason = PERCH_REQ_PING;
        call_exit_gate();
    }
    printk("hostile: 100000 exits through the EXIT gate\n");
    test_pass(name);
}

/* Exits for ever: a signal to the Launcher must still stop it. */
static void attack_exit_forever(const char *name)
{
    (void)name;
    printk("hostile: exit_forever: PING requests from now on\n");
    wait_drained();
    for (;;) {
        sh->request.reason = PERCH_REQ_PING;
        call_exit_gate();
    }
}

/* ---- Host and Switcher memory -------------------------------------------- */

static void overwrite(uint64_t va, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((volatile uint8_t *)va)[i] = bytes[i];
}

/* Host code at LSTAR, then a hypercall: the Host faults at CPL3 in its
 * own code. */
static void attack_host_code(const char *name)
{
    static const uint8_t ud2[] = { 0x0f, 0x0b, 0x0f, 0x0b };

    printk("hostile: LSTAR %#lx\n", (unsigned long)header->syscall_entry);
    wait_drained();
    overwrite(header->syscall_entry, ud2, sizeof(ud2));
    hc_console_write("x", 1);
    survived(name);
}

static void attack_host_code_int3(const char *name)
{
    static const uint8_t int3[16] = { 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
                                      0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
                                      0xcc, 0xcc, 0xcc, 0xcc };

    printk("hostile: LSTAR %#lx\n", (unsigned long)header->syscall_entry);
    wait_drained();
    overwrite(header->syscall_entry, int3, sizeof(int3));
    hc_console_write("x", 1);
    survived(name);
}

/* `hlt` at CPL3 in the Host: #GP at a Host address. */
static void attack_host_code_hlt(const char *name)
{
    static const uint8_t hlt[] = { 0xf4, 0xf4 };

    wait_drained();
    overwrite(header->syscall_entry, hlt, sizeof(hlt));
    hc_console_write("x", 1);
    survived(name);
}

/* The Host's #UD entries (through the Switcher and through the DPL3 gate)
 * as well as LSTAR: every #UD comes back to a ud2. The guest livelocks in
 * exceptions; the Launcher must still obey SIGTERM. */
static void attack_host_livelock(const char *name)
{
    static const uint8_t ud2[] = { 0x0f, 0x0b };

    (void)name;
    printk("hostile: host_livelock: looping in #UD from now on\n");
    wait_drained();
    overwrite(header->vector_entries + 6 * header->vector_entry_stride, ud2,
              sizeof(ud2));
    overwrite(header->cpl3_vector_entries + 6 * header->cpl3_vector_entry_stride,
              ud2, sizeof(ud2));
    overwrite(header->syscall_entry, ud2, sizeof(ud2));
    hc_console_write("x", 1);
    for (;;)
        ;
}

/* A store to a supervisor-only page of the hole: #PF to the guest. */
static void write_supervisor(const char *name, uint64_t va)
{
    printk("hostile: %s: writing %#lx\n", name, (unsigned long)va);
    wait_drained();
    *(volatile uint64_t *)va = 0x4141414141414141ull;
    survived(name);
}

static void attack_host_stack(const char *name)
{
    write_supervisor(name, SW_HANDOFF_VA + 14 * SW_HANDOFF_FRAME_BYTES);
}

static void attack_host_idt(const char *name)
{
    write_supervisor(name, SW_IDT_VA + 14 * 16);
}

static void attack_host_gdt(const char *name)
{
    write_supervisor(name, SW_GDT_VA + (SW_CS0_SEL & ~7));
}

static void attack_host_tss(const char *name)
{
    write_supervisor(name, SW_TSS_VA + 4);
}

static void attack_switcher_code(const char *name)
{
    write_supervisor(name, SW_CODE_VA);
}

static void attack_df_stack(const char *name)
{
    write_supervisor(name, SW_DF_STACK_VA + 0xff8);
}

/* The IST stacks are the Host's to read, hence writable to the guest
 * kernel: fill them with garbage and go on with hypercalls, a Switcher
 * round trip and a Launcher round trip. */
static void attack_ist_scribble(const char *name)
{
    static const uint64_t pages[] = { SW_EXC_STACK_VA, SW_IRQ_STACK_VA,
                                      SW_BP_STACK_VA };

    for (unsigned p = 0; p < 3; p++)
        for (unsigned i = 0; i < 4096 / 8; i++)
            ((volatile uint64_t *)pages[p])[i] = 0x4141414141414141ull;
    printk("hostile: IST stacks scribbled\n");
    check_eq("ist_scribble_switcher_roundtrip",
             hypercall1(HYPERVISOR_perch_op, PERCH_OP_switcher_roundtrip), 0);
    check_eq("ist_scribble_launcher_roundtrip",
             hypercall1(HYPERVISOR_perch_op, PERCH_OP_launcher_roundtrip), 0);
    test_pass(name);
}

/* Every counter set to all ones: --stats sums them. */
static void attack_stats_scribble(const char *name)
{
    volatile uint8_t *p = (volatile uint8_t *)&sh->stats;

    wait_drained();
    for (size_t i = 0; i < sizeof(sh->stats); i++)
        p[i] = 0xff;
    test_pass(name);
}

/* The boot facts the Host keeps reading later (CR3, M2P, frame table):
 * garbage, then hypercalls. The Host may fault, the Launcher must not. */
static void attack_boot_scribble(const char *name)
{
    volatile uint8_t *p = (volatile uint8_t *)&sh->boot;

    wait_drained();
    for (size_t i = 0; i < sizeof(sh->boot); i++)
        p[i] = 0x41;
    printk("hostile: boot facts scribbled\n");
    test_pass(name);
}

/* ---- Ring 0 through the RESUME gate --------------------------------------- */

static void attack_gate_resume_forged(const char *name)
{
    wait_drained();
    ring0_run(r0_probe);
    printk("hostile: gate_resume_forged: came back from cs %#lx (CPL %lu), "
           "cr0 %#lx read in ring 0\n", (unsigned long)ring0_cs,
           (unsigned long)(ring0_cs & 3), (unsigned long)ring0_cr0);
    wait_drained();
    ring0_run(r0_out80);
    survived(name);
}

static void attack_ring0_triple(const char *name)
{
    wait_drained();
    ring0_run(r0_triple);
    survived(name);
}

static void attack_ring0_interrupt(const char *name)
{
    wait_drained();
    ring0_run(r0_timer_sti);
    survived(name);
}

static void attack_ring0_hang(const char *name)
{
    (void)name;
    printk("hostile: ring0_hang: halting in ring 0 with interrupts off\n");
    wait_drained();
    ring0_run(r0_hang);
    for (;;)
        ;
}

/* ---- Hypercalls over memory ------------------------------------------------ */

/* console_io over the whole mapped kernel image and on, until the first
 * unmapped page: -EFAULT, and the guest lives on. */
static void attack_mmio(const char *name)
{
    long rc[4];

    /* All four calls before any PASS line is formatted on the stack, which
     * the first two dump. */
    rc[0] = hc_console_io(CONSOLEIO_write, 1ull << 40, _image_start);
    rc[1] = hc_console_io(CONSOLEIO_write, ~0ull, rt_stack_bottom);
    rc[2] = hc_console_io(CONSOLEIO_write, 1ull << 40, (void *)HOST_IMAGE_VA);
    rc[3] = hc_console_io(CONSOLEIO_write, 1ull << 40,
                          (void *)&sh->console_ring[0]);
    printk("\nhostile: console_io of 2^40 and 2^64-1 bytes returned %ld, %ld\n",
           rc[0], rc[1]);
    check_eq("mmio_2_40", rc[0], -XEN_EFAULT);
    check_eq("mmio_2_64", rc[1], -XEN_EFAULT);
    check_eq("mmio_host_image", rc[2], -XEN_EFAULT);
    check_eq("mmio_console_ring", rc[3], -XEN_EFAULT);
    test_pass(name);
}

/* ---- MMIO pages: doorbell and local APIC ------------------------------------ */

static void attack_doorbell(const char *name)
{
    for (int i = 0; i < 1000000; i++)
        doorbell();
    printk("hostile: 1000000 doorbell writes\n");
    test_pass(name);
}

/* The ioeventfd matches 4-byte stores only: any other access to the
 * doorbell is an MMIO exit to an unbacked address. */
static void attack_doorbell_wide(const char *name)
{
    wait_drained();
    *(volatile uint64_t *)HOST_DOORBELL_VA = 1;
    survived(name);
}

static void attack_doorbell_byte(const char *name)
{
    wait_drained();
    *(volatile uint8_t *)HOST_DOORBELL_VA = 1;
    survived(name);
}

static void attack_doorbell_read(const char *name)
{
    wait_drained();
    (void)*(volatile uint32_t *)HOST_DOORBELL_VA;
    survived(name);
}

#define APIC_ICR_LO 0x300
#define APIC_ICR_HI 0x310
#define ICR_ALL_INCLUDING_SELF (2u << 18)
#define ICR_ASSERT (1u << 14)
#define ICR_FIXED  (0u << 8)
#define ICR_NMI    (4u << 8)
#define ICR_INIT   (5u << 8)

static void apic_ipi(uint32_t lo)
{
    *(volatile uint32_t *)(HOST_APIC_VA + APIC_ICR_HI) = 0;
    *(volatile uint32_t *)(HOST_APIC_VA + APIC_ICR_LO) = lo;
}

/* An NMI to itself through the local APIC page. */
static void attack_apic_nmi(const char *name)
{
    wait_drained();
    apic_ipi(ICR_NMI | ICR_ASSERT | ICR_ALL_INCLUDING_SELF);
    spin_ms(1000);
    survived(name);
}

/* INIT to itself: KVM resets the vCPU to real mode at 0xfffffff0. */
static void attack_apic_init(const char *name)
{
    wait_drained();
    apic_ipi(ICR_INIT | ICR_ASSERT | ICR_ALL_INCLUDING_SELF);
    spin_ms(1000);
    survived(name);
}

/* A fixed interrupt with vector 18: the #MC gate, through the IDT. */
static void attack_apic_vector18(const char *name)
{
    wait_drained();
    apic_ipi(ICR_FIXED | ICR_ASSERT | ICR_ALL_INCLUDING_SELF | 18);
    spin_ms(1000);
    survived(name);
}

/* ---- Port I/O from the guest kernel ----------------------------------------- */

static void attack_out_of_ring0(const char *name)
{
    wait_drained();
    __asm__ volatile("mov $0x42, %%al; out %%al, $0x80" ::: "rax", "memory");
    survived(name);
}

static void attack_out_exit_port(const char *name)
{
    wait_drained();
    sh->request.reason = 0xdeadbeef;
    __asm__ volatile("out %%al, $0xe0" ::: "memory");
    survived(name);
}

/* With a virtual IOPL the Host emulates in/out as a domU's: writes go
 * nowhere, reads give all ones; nothing reaches the Launcher's ports. */
static void attack_out_iopl(const char *name)
{
    uint32_t iopl = 3;
    uint32_t in;

    check_eq("out_iopl_set", hypercall2(HYPERVISOR_physdev_op,
                                        PHYSDEVOP_set_iopl,
                                        (unsigned long)&iopl), 0);
    wait_drained();
    sh->request.reason = 0xdeadbeef;
    __asm__ volatile("out %%al, $0xe0" ::: "memory");
    __asm__ volatile("out %%al, $0xe1" ::: "memory");
    __asm__ volatile("mov $0xe0, %%dx; out %%eax, %%dx" ::: "rdx", "memory");
    __asm__ volatile("xor %%eax, %%eax; in $0xe0, %%eax" : "=a"(in) :: "memory");
    sh->request.reason = PERCH_REQ_NONE;
    check_eq("out_iopl_in_reads_ones", in, 0xffffffff);
    test_pass(name);
}

/* ---- The direct entry (host/env/entry.S host_direct_entry) ---------------- */

/* The pointer perch wrote at xen_iret + 8, to jump there as Linux would. */
static uint64_t direct_entry(void)
{
    return *(volatile uint64_t *)(xen_iret + 8);
}

/* Into the entry with an rsp nothing maps: it cannot keep rax and rcx
 * there, and the guest is stopped naming the rsp. */
static void attack_direct_bad_rsp(const char *name)
{
    printk("hostile: direct entry %#lx\n", (unsigned long)direct_entry());
    wait_drained();
    __asm__ volatile("mov $0xdead000, %%rsp; jmp *%0"
                     :: "r"(direct_entry()) : "memory");
    survived(name);
}

/* A Linux hypercall through the patched xen_hypercall_pv, with every
 * register the entry must keep set to a known value and checked after. */
static bool direct_xen_version(long want)
{
    register uint64_t cmd asm("rdi") = XENVER_version, arg asm("rsi") = 0;
    register uint64_t rcx asm("rcx") = 0x1c, r9 asm("r9") = 0x19, r11 asm("r11") = 0x11;
    register uint64_t r12 asm("r12") = 0x12, r13 asm("r13") = 0x13, r14 asm("r14") = 0x14;
    register uint64_t r15 asm("r15") = 0x15;
    long rc;

    __asm__ volatile("call xen_hypercall_pv"
                     : "=a"(rc), "+r"(cmd), "+r"(arg), "+r"(rcx), "+r"(r9), "+r"(r11),
                       "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15)
                     : "a"((unsigned long)HYPERVISOR_xen_version)
                     : "rdx", "r8", "r10", "memory");
    return rc == want && rcx == 0x1c && r9 == 0x19 && r11 == 0x11 && r12 == 0x12 &&
           r13 == 0x13 && r14 == 0x14 && r15 == 0x15;
}

/* Timer interrupts landing anywhere in a loop of direct hypercalls, the
 * Host's entry among those places: every call answers right and keeps
 * the registers, and every timer armed fires (no event lost). */
#define STORM_ROUNDS 2000
#define STORM_CALLS  1000
static bool timer_fired(void *arg)
{
    (void)arg;
    return rt_event_take(rt_timer_port());
}

static void attack_direct_storm(const char *name)
{
    long want = hc_xen_version(XENVER_version, NULL);
    unsigned wrong = 0, fired = 0;

    if (!rt_events_init(start))
        return;
    for (unsigned r = 0; r < STORM_ROUNDS; r++) {
        hypercall1(HYPERVISOR_set_timer_op, rt_now_ns() + 5000 + (r % 13) * 1000);
        for (unsigned i = 0; i < STORM_CALLS; i++)
            wrong += !direct_xen_version(want);
        if (rt_wait(timer_fired, NULL, 1000))
            fired++;
    }
    printk("hostile: direct_storm: %u of %u timers fired, %u wrong calls\n", fired,
           STORM_ROUNDS, wrong);
    if (check_eq("direct_storm_wrong_calls", wrong, 0) &&
        check_eq("direct_storm_timers_fired", fired, STORM_ROUNDS))
        test_pass(name);
}

/* The kernel puts its own bytes back (a text rewrite after the patch):
 * xen_hypercall_pv is a `syscall` again, and served as one. */
static void attack_direct_rewritten(const char *name)
{
    static const uint8_t linux_bytes[] = { 0x51, 0x41, 0x53, 0x0f, 0x05, 0x41, 0x5b, 0x59 };
    long want = hc_xen_version(XENVER_version, NULL);

    if (!check_eq("direct_rewritten_was_patched", xen_hypercall_pv[0], 0x6a))
        return;
    overwrite((uint64_t)xen_hypercall_pv, linux_bytes, sizeof(linux_bytes));
    if (check_eq("direct_rewritten_served", direct_xen_version(want), 1))
        test_pass(name);
}

/* ---- The balloon (host/mm/reservation.c) --------------------------------- */

/* decrease_reservation over the frames given. */
static long give_back(const uint64_t *frames, unsigned n)
{
    struct xen_memory_reservation r = { .extent_start = (uint64_t)frames, .nr_extents = n,
                                        .domid = DOMID_SELF };

    return hypercall2(HYPERVISOR_memory_op, XENMEM_decrease_reservation, (unsigned long)&r);
}

/* A frame perch keeps for itself (frame 1: below the guest's). */
static void attack_balloon_foreign(const char *name)
{
    static const uint64_t frames[] = { 1 };

    give_back(frames, 1);
    survived(name);
}

/* The guest's last frame, which this small kernel never uses, twice. */
static void attack_balloon_twice(const char *name)
{
    uint64_t last = ((const uint64_t *)start->mfn_list)[start->nr_pages - 1];
    const uint64_t frames[] = { last, last };

    give_back(frames, 2);
    survived(name);
}

/* Forged ranges for the Launcher to drop: a frame that is perch's. */
static void attack_release_forged(const char *name)
{
    wait_drained();
    sh->release.nr = 1;
    sh->release.range[0].first_mfn = 1;
    sh->release.range[0].frames = 1;
    sh->request.reason = PERCH_REQ_RELEASE_FRAMES;
    call_exit_gate();
    survived(name);
}

/* More ranges than the shared page holds. */
static void attack_release_count(const char *name)
{
    wait_drained();
    sh->release.nr = 0x7fffffff;
    sh->request.reason = PERCH_REQ_RELEASE_FRAMES;
    call_exit_gate();
    survived(name);
}

/* ---- Dispatch ------------------------------------------------------------ */

static const struct rt_case attacks[] = {
    { "console_prod", attack_console_prod },
    { "console_prod_4097", attack_console_prod_4097 },
    { "console_prod_max", attack_console_prod_max },
    { "console_prod_back", attack_console_prod_back },
    { "console_prod_full", attack_console_prod_full },
    { "console_prod_doorbell", attack_console_prod_doorbell },
    { "console_kick_race", attack_console_kick_race },
    { "console_prod_poweroff", attack_console_prod_poweroff },
    { "console_cons", attack_console_cons },
    { "console_cons_overrun", attack_console_cons_overrun },
    { "request_garbage", attack_request_garbage },
    { "request_none", attack_request_none },
    { "request_count", attack_request_count },
    { "request_message", attack_request_message },
    { "request_message_bound", attack_request_message_bound },
    { "shutdown_reason", attack_shutdown_reason },
    { "shutdown_reason_hc", attack_shutdown_reason_hc },
    { "exit_flood", attack_exit_flood },
    { "exit_forever", attack_exit_forever },
    { "host_code", attack_host_code },
    { "host_code_int3", attack_host_code_int3 },
    { "host_code_hlt", attack_host_code_hlt },
    { "host_livelock", attack_host_livelock },
    { "host_stack", attack_host_stack },
    { "host_idt", attack_host_idt },
    { "host_gdt", attack_host_gdt },
    { "host_tss", attack_host_tss },
    { "switcher_code", attack_switcher_code },
    { "df_stack", attack_df_stack },
    { "ist_scribble", attack_ist_scribble },
    { "stats_scribble", attack_stats_scribble },
    { "boot_scribble", attack_boot_scribble },
    { "gate_resume_forged", attack_gate_resume_forged },
    { "ring0_triple", attack_ring0_triple },
    { "ring0_hang", attack_ring0_hang },
    { "ring0_interrupt", attack_ring0_interrupt },
    { "mmio", attack_mmio },
    { "doorbell", attack_doorbell },
    { "doorbell_wide", attack_doorbell_wide },
    { "doorbell_byte", attack_doorbell_byte },
    { "doorbell_read", attack_doorbell_read },
    { "apic_nmi", attack_apic_nmi },
    { "apic_init", attack_apic_init },
    { "apic_vector18", attack_apic_vector18 },
    { "out_of_ring0", attack_out_of_ring0 },
    { "out_exit_port", attack_out_exit_port },
    { "out_iopl", attack_out_iopl },
    { "direct_bad_rsp", attack_direct_bad_rsp },
    { "direct_storm", attack_direct_storm },
    { "direct_rewritten", attack_direct_rewritten },
    { "balloon_foreign", attack_balloon_foreign },
    { "balloon_twice", attack_balloon_twice },
    { "release_forged", attack_release_forged },
    { "release_count", attack_release_count },
};

void guest_main(const struct start_info *si)
{
    const struct rt_case *attack;

    start = si;
    sh = (volatile struct perch_shared *)header->shared_page;
    if (header->magic != HOST_IMAGE_MAGIC) {
        test_fail("header", "no Host image header at %#lx (magic %#lx)",
                  (unsigned long)HOST_IMAGE_VA, (unsigned long)header->magic);
        return;
    }
    attack = rt_case_chosen(si, "attack", attacks, sizeof(attacks) / sizeof(attacks[0]));
    if (!attack)
        return;
    printk("hostile: attack %s (shared page %#lx, LSTAR %#lx)\n", attack->name,
           (unsigned long)header->shared_page, (unsigned long)header->syscall_entry);
    attack->fn(attack->name);
}
