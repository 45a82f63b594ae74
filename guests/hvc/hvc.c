/*
 * hvc: the ring console (Xen's console page; hvc0 in Linux) as a PV guest
 * uses it, against perch's Launcher back end (tests/guests/hvc.sh checks
 * what reaches perch's stdout and status):
 *
 *   1. start_info names a console page and a nonzero event channel, an
 *      interdomain port (EVTCHNOP_status);
 *   2. output: bytes into out[], then out_prod, then EVTCHNOP_send, as
 *      Linux's hvc_xen does; the Launcher takes them (out_cons catches up):
 *      a line, lines that wrap the ring, a ring filled exactly, and a
 *      scribbled out_cons, which must not make the Launcher repeat output;
 *   3. input=sum: perch's stdin arrives in in[] with an upcall on the
 *      console port; the guest takes it, gives the slots back and says so
 *      with EVTCHNOP_send (as Linux does), until a line "end", and reports
 *      the bytes and a hash for hvc.sh to compare; input=hex: prints every
 *      piece of input in hex, until perch is quit (Ctrl-A x);
 *   4. exit=N: the exit-status sequence, split over two sends, then
 *      poweroff: perch must exit with N;
 *   5. corrupt=out | corrupt=in: a bad ring index, after which perch must
 *      stop the guest (status 5).
 */
#include "../../abi/xen/callback.h"
#include "../../abi/xen/event_channel.h"
#include "../../abi/xen/io/console.h"
#include "rt.h"

const char guest_name[] = "hvc";

#define PTE_KERNEL_RW (PTE_P | PTE_RW | PTE_US | PTE_A | PTE_D)
#define BARRIER()     __asm__ volatile("" ::: "memory")
#define NS_PER_MS     1000000ull
#define WAIT_MS       5000ull

static uint8_t shinfo_window[4096] __attribute__((aligned(4096)));
static const struct start_info *si;
static volatile struct shared_info *sh;
static volatile struct vcpu_info *vi;
static volatile struct xencons_interface *ring;
static uint32_t console_port, timer_port;

/* What the event callback saw; written only by hvc_upcall. */
static volatile unsigned console_events, timer_events, other_events;

extern char event_callback[];
void hvc_upcall(void);

/* ---- Events and time ---------------------------------------------------- */

static long evtchn_op(unsigned cmd, void *arg)
{
    return hypercall2(HYPERVISOR_event_channel_op, cmd, (unsigned long)arg);
}

static long send_console(void)
{
    uint32_t port = console_port;

    return evtchn_op(EVTCHNOP_send, &port);
}

static long unmask(uint32_t port)
{
    return evtchn_op(EVTCHNOP_unmask, &port);
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return (uint64_t)hi << 32 | lo;
}

/* System time from vcpu_info's pvclock, with its version protocol. */
static uint64_t now_ns(void)
{
    volatile struct vcpu_time_info *t = &vi->time;
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

/* The 2-level scan, as a PV kernel's upcall does it. */
void hvc_upcall(void)
{
    do {
        uint64_t sel;

        vi->evtchn_upcall_pending = 0;
        sel = __atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
        while (sel) {
            unsigned w = (unsigned)__builtin_ctzll(sel);
            uint64_t bits = sh->evtchn_pending[w] & ~sh->evtchn_mask[w];

            sel &= sel - 1;
            while (bits) {
                uint32_t port = w * 64 + (unsigned)__builtin_ctzll(bits);

                bits &= bits - 1;
                __atomic_fetch_and(&sh->evtchn_pending[w], ~(1ull << (port % 64)),
                                   __ATOMIC_SEQ_CST);
                if (port == console_port)
                    console_events++;
                else if (port == timer_port)
                    timer_events++;
                else
                    other_events++;
            }
        }
    } while (vi->evtchn_upcall_pending);
}

/* Events off, as local_irq_disable does under Xen. */
static void events_off(void)
{
    vi->evtchn_upcall_mask = 1;
    BARRIER();
}

/* Sleep until an event or `ms` have passed: a one-shot timer, then
 * SCHEDOP_block, which turns events on; pending upcalls run on return. */
static void nap(uint64_t ms)
{
    hypercall1(HYPERVISOR_set_timer_op, now_ns() + ms * NS_PER_MS);
    hc_sched_op(SCHEDOP_block, NULL);
}

static bool setup_events(void)
{
    struct callback_register cb = {
        .type = CALLBACKTYPE_event, .flags = CALLBACKF_mask_events,
        .address = (uint64_t)event_callback,
    };
    struct evtchn_bind_virq bv = { .virq = VIRQ_TIMER };
    long rc = hypercall3(HYPERVISOR_update_va_mapping, (unsigned long)shinfo_window,
                         si->shared_info | PTE_KERNEL_RW, UVMF_INVLPG);

    if (!check_eq("map_shared_info", rc, 0))
        return false;
    sh = (volatile struct shared_info *)shinfo_window;
    vi = &sh->vcpu_info[0];
    rc = hypercall2(HYPERVISOR_callback_op, CALLBACKOP_register, (unsigned long)&cb);
    if (!check_eq("register_event_callback", rc, 0))
        return false;
    rc = evtchn_op(EVTCHNOP_bind_virq, &bv);
    if (!check("bind_virq_timer", rc == 0 && bv.port && bv.port != console_port,
               "bind_virq(TIMER) = %ld, port %u (console port %u)", rc, bv.port,
               console_port))
        return false;
    timer_port = bv.port;
    return check_eq("unmask_timer_port", unmask(timer_port), 0) &&
           check_eq("unmask_console_port", unmask(console_port), 0);
}

/* ---- The console page -------------------------------------------------- */

/* The page's pfn, found in the p2m list; mapped at VIRT_BASE + pfn * 4 KiB
 * like the rest of the builder's pages. */
static bool find_console_page(void)
{
    const uint64_t *p2m = (const uint64_t *)si->mfn_list;
    uint64_t mfn = si->console.domU.mfn;

    for (uint64_t pfn = 0; pfn < si->nr_pages; pfn++) {
        if (p2m[pfn] == mfn) {
            ring = (volatile struct xencons_interface *)(RT_VIRT_BASE + pfn * 4096);
            return true;
        }
    }
    return false;
}

/* Bytes into out[] as hvc_xen does: what fits, the index after the bytes,
 * EVTCHNOP_send; when full, yield and try again. False if it stayed full
 * for WAIT_MS or a send failed. */
static bool ring_put(const char *s, size_t n)
{
    uint64_t deadline = now_ns() + WAIT_MS * NS_PER_MS;

    while (n) {
        uint32_t prod = ring->out_prod;
        uint32_t room = XENCONS_OUT_BYTES - (prod - ring->out_cons);
        size_t k = n < room ? n : room;

        for (size_t i = 0; i < k; i++)
            ring->out[(prod + i) % XENCONS_OUT_BYTES] = s[i];
        __atomic_store_n(&ring->out_prod, prod + (uint32_t)k, __ATOMIC_RELEASE);
        s += k;
        n -= k;
        if (k && send_console() != 0)
            return false;
        if (n) {
            hc_sched_op(SCHEDOP_yield, NULL);
            if (now_ns() > deadline)
                return false;
        }
    }
    return true;
}

static bool ring_print(const char *s)
{
    return ring_put(s, strlen(s));
}

/* Wait until the Launcher has taken everything (out_cons == out_prod). */
static bool ring_drained(void)
{
    uint64_t deadline = now_ns() + WAIT_MS * NS_PER_MS;

    while (__atomic_load_n(&ring->out_cons, __ATOMIC_ACQUIRE) != ring->out_prod) {
        if (now_ns() > deadline)
            return false;
        hc_sched_op(SCHEDOP_yield, NULL);
    }
    return true;
}

/* ---- 1. start_info ------------------------------------------------------ */

static bool test_start_info(void)
{
    struct evtchn_status st = { .dom = DOMID_SELF };
    long rc;

    console_port = si->console.domU.evtchn;
    printk("hvc: console mfn %#lx, event channel %u\n",
           (unsigned long)si->console.domU.mfn, console_port);
    if (!check("start_info_console_evtchn", console_port != 0 && console_port < 4096,
               "console.domU.evtchn is %u", console_port))
        return false;
    if (!check("console_page_found", find_console_page(),
               "mfn %#lx is not in the p2m list", (unsigned long)si->console.domU.mfn))
        return false;
    check("console_page_empty", ring->out_prod == 0 && ring->out_cons == 0,
          "out_prod %u out_cons %u", ring->out_prod, ring->out_cons);
    st.port = console_port;
    rc = evtchn_op(EVTCHNOP_status, &st);
    check("console_port_interdomain", rc == 0 && st.status == EVTCHNSTAT_interdomain,
          "EVTCHNOP_status = %ld, status %u", rc, st.status);
    return true;
}

/* ---- 2. Output ------------------------------------------------------------- */

static void test_output(void)
{
    char line[128];
    static char full[XENCONS_OUT_BYTES];
    uint32_t start;
    bool ok = true;

    check("out_line", ring_print("hvc: hello through out[]\n") && ring_drained(),
          "out_cons %u, out_prod %u", ring->out_cons, ring->out_prod);

    start = ring->out_prod;
    for (int i = 0; ok && i < 40; i++) {
        int n = fmt_snprintf(line, sizeof(line), "hvc: wrap line %02d ", i);

        for (; n < 98; n++)
            line[n] = 'a' + (i + n) % 26;
        line[n++] = '\n';
        ok = ring_put(line, n);
    }
    check("out_wraps", ok && ring_drained() && ring->out_prod - start == 40 * 99,
          "40 lines of 99 bytes: out_prod moved %u, out_cons %u",
          ring->out_prod - start, ring->out_cons);

    /* Exactly one ring's worth in one go, into an empty ring. */
    memset(full, '=', sizeof(full));
    memcpy(full, "hvc: full ring ", 15);
    full[sizeof(full) - 1] = '\n';
    check("out_full_ring", ring_put(full, sizeof(full)) && ring_drained(),
          "out_cons %u, out_prod %u", ring->out_cons, ring->out_prod);

    /* A lie about out_cons: the Launcher keeps its own and puts it back. */
    ring->out_cons = ring->out_prod - 100;
    check("out_cons_scribbled", ring_print("hvc: after a scribbled out_cons\n") &&
          ring_drained(), "out_cons %u, out_prod %u", ring->out_cons, ring->out_prod);
}

/* ---- 3. Input ---------------------------------------------------------------- */

/* Take what in[] holds (Linux's way: check the indices, copy, give the
 * slots back, tell the back end). Returns the bytes, or -1 if the
 * Launcher's in_prod is more than a ring ahead. */
static long take_input(uint8_t *buf, size_t size)
{
    uint32_t cons = ring->in_cons;
    uint32_t prod = __atomic_load_n(&ring->in_prod, __ATOMIC_ACQUIRE);
    size_t n = 0;

    if (prod - cons > XENCONS_IN_BYTES)
        return -1;
    while (cons != prod && n < size)
        buf[n++] = ring->in[cons++ % XENCONS_IN_BYTES];
    __atomic_store_n(&ring->in_cons, cons, __ATOMIC_RELEASE);
    if (n)
        send_console();
    return (long)n;
}

/* Input until `done` says so or `ms` pass; events off while looking, on
 * while asleep. */
static long wait_input(uint8_t *buf, size_t size, uint64_t ms)
{
    uint64_t deadline = now_ns() + ms * NS_PER_MS;
    long n = 0;

    while (n == 0 && now_ns() < deadline) {
        events_off();
        n = take_input(buf, size);
        if (n == 0)
            nap(20);
    }
    vi->evtchn_upcall_mask = 0;
    return n;
}

struct input_summary {
    uint64_t bytes, hash;
    char tail[5];
    char first_line[64];
    size_t first_len;
    bool first_done;
};

/* The hash hvc.sh computes with awk: h = (h * 31 + byte) mod 1000000007. */
static void summarize(struct input_summary *s, const uint8_t *buf, long n)
{
    for (long i = 0; i < n; i++) {
        s->hash = (s->hash * 31 + buf[i]) % 1000000007ull;
        s->bytes++;
        memmove(s->tail, s->tail + 1, 4);
        s->tail[4] = (char)buf[i];
        if (!s->first_done && buf[i] != '\n' && s->first_len < sizeof(s->first_line) - 1)
            s->first_line[s->first_len++] = (char)buf[i];
        else
            s->first_done = true;
    }
}

static void test_input_sum(void)
{
    static uint8_t buf[XENCONS_IN_BYTES];
    struct input_summary s = { 0 };
    uint64_t deadline = now_ns() + 30000 * NS_PER_MS;
    bool ended = false, indices_ok = true;
    char line[160];

    while (!ended && now_ns() < deadline) {
        long n = wait_input(buf, sizeof(buf), 1000);

        if (n < 0) {
            indices_ok = false;
            break;
        }
        summarize(&s, buf, n);
        ended = s.bytes >= 5 && !memcmp(s.tail, "\nend\n", 5);
    }
    fmt_snprintf(line, sizeof(line), "hvc: first input line: %s\n", s.first_line);
    ring_print(line);
    printk("hvc: input %lu bytes, hash %lu, %u console events\n",
           (unsigned long)s.bytes, (unsigned long)s.hash, console_events);
    check("input_indices", indices_ok, "in_prod more than a ring ahead of in_cons");
    check("input_until_end", ended, "no \"end\" line within 30 s (%lu bytes)",
          (unsigned long)s.bytes);
    check("input_upcall", console_events > 0, "no event on the console port");
}

/* Every piece of input in hex, until perch is quit or 60 s pass. */
static void test_input_hex(void)
{
    uint8_t buf[64];
    char line[8 + 3 * sizeof(buf) + 3];
    uint64_t deadline = now_ns() + 60000 * NS_PER_MS;

    ring_print("hvc: ready for input\r\n");
    while (now_ns() < deadline) {
        long n = wait_input(buf, sizeof(buf), 1000);
        int len = fmt_snprintf(line, sizeof(line), "hvc: in");

        for (long i = 0; i < n; i++)
            len += fmt_snprintf(line + len, sizeof(line) - len, " %02x", buf[i]);
        if (n > 0) {
            fmt_snprintf(line + len, sizeof(line) - len, "\r\n");
            ring_print(line);
        }
    }
    test_fail("input_hex_quit", "perch was not quit within 60 s");
}

/* ---- 4. The exit status --------------------------------------------------- */

static _Noreturn void exit_with(const char *n)
{
    char tail[16];

    ring_print("hvc: exit status follows\n");
    ring_drained();
    ring_print("\033]perch-ex");     /* split across two reads */
    ring_drained();
    fmt_snprintf(tail, sizeof(tail), "it;%s\007", n);
    ring_print(tail);
    ring_drained();
    printk("hvc: %u passed, %u failed\n", tests_passed, tests_failed);
    xen_shutdown(SHUTDOWN_poweroff);
}

/* ---- 5. Corruption --------------------------------------------------------- */

/* Having broken a rule, wait to be stopped. */
static void expect_stop(const char *name)
{
    for (int i = 0; i < 250; i++)
        nap(20);
    test_fail(name, "perch did not stop the guest within 5 s");
}

static void corrupt(const char *what)
{
    uint8_t buf[16];

    if (!strcmp(what, "out")) {
        printk("hvc: corrupting out_prod\n");
        ring->out_prod = ring->out_cons + 5000;
        send_console();
        expect_stop("corrupt_out_stopped");
        return;
    }
    /* in: once the Launcher has written, claim to have read past it; its
     * next write must find out. */
    if (!check("corrupt_in_first_input", wait_input(buf, sizeof(buf), 10000) > 0,
               "no input"))
        return;
    printk("hvc: corrupting in_cons\n");
    ring->in_cons = ring->in_prod + 77;
    expect_stop("corrupt_in_stopped");
}

void guest_main(const struct start_info *start)
{
    const char *input = cmdline_get(start, "input");
    const char *exit_n = cmdline_get(start, "exit");
    const char *bad = cmdline_get(start, "corrupt");

    si = start;
    if (!test_start_info() || !setup_events())
        return;
    if (bad)
        corrupt(bad);
    else
        test_output();
    if (input && !strcmp(input, "sum"))
        test_input_sum();
    else if (input && !strcmp(input, "hex"))
        test_input_hex();
    if (exit_n)
        exit_with(exit_n);
    printk("hvc: %u passed, %u failed\n", tests_passed, tests_failed);
}
