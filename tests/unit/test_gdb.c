/*
 * Unit tests of --gdb's packets and target (launcher/gdb/gdb_commands.c,
 * gdb_target.c) on a guest memory built here: reads through the guest's
 * own page tables only, never perch's frames, the hole or a superpage;
 * breakpoints written and taken out again; registers; two vCPUs as two
 * threads; every number of a packet checked.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../abi/xen/xen.h"
#include "../../launcher/gdb/gdb_commands.h"
#include "../../launcher/gdb/gdb_frame.h"
#include "../../launcher/symbols/kernel_symbols.h"
#include "../../launcher/gdb/gdb_target.h"
#include "../../launcher/vm/pagetable.h"

#define PRIVATE 8
#define PAGES 16
#define TEXT 0xffffffff81000000ull
#define USER 0x405000ull   /* shares the tables, L1 slot 5 */

static struct guest_memory gm;
static struct perch_shared *shared;
static struct gdb_target t;
static struct gdb_reply r;
static struct gdb_stop stop = { PERCH_GDB_STOP_TRAP, 0 };

static uint64_t *frame(uint64_t mfn)
{
    return gm_frame(&gm, mfn);
}

/* Guest frames: 0 L4, 1 L3, 2 L2, 3 L1, 4 and 5 text, 6 a page of data.
 * TEXT maps frames 4 and 5, TEXT + 2 pages a private frame (forged),
 * the next L2 slot is a superpage; USER (lower half) maps frame 6. */
static void build(void)
{
    uint64_t base, l4, l3, l2, l1;

    free(shared);
    guest_memory_release(&gm);
    CHECK(guest_memory_init(&gm, PRIVATE, PAGES) == 0);
    base = gm.guest_mfn_base;
    l4 = base, l3 = base + 1, l2 = base + 2, l1 = base + 3;
    frame(l4)[pt_index(TEXT, 4)] = l3 << 12 | PTE_P;
    frame(l3)[pt_index(TEXT, 3)] = l2 << 12 | PTE_P;
    frame(l2)[pt_index(TEXT, 2)] = l1 << 12 | PTE_P;
    frame(l2)[pt_index(TEXT, 2) + 1] = (base + 4) << 12 | PTE_P | PTE_PS;
    frame(l1)[pt_index(TEXT, 1)] = (base + 4) << 12 | PTE_P;
    frame(l1)[pt_index(TEXT, 1) + 1] = (base + 5) << 12 | PTE_P;
    frame(l1)[pt_index(TEXT, 1) + 2] = 1ull << 12 | PTE_P;            /* perch's */
    frame(l1)[pt_index(TEXT, 1) + 3] = (base + PAGES) << 12 | PTE_P;  /* past RAM */
    frame(l4)[pt_index(USER, 4)] = l3 << 12 | PTE_P;
    frame(l3)[pt_index(USER, 3)] = l2 << 12 | PTE_P;
    frame(l2)[pt_index(USER, 2)] = l1 << 12 | PTE_P;
    frame(l1)[pt_index(USER, 1)] = (base + 6) << 12 | PTE_P;
    for (int i = 0; i < 4096; i++)
        ((uint8_t *)frame(base + 4))[i] = (uint8_t)i;
    memset(frame(1), 0xee, 4096);
    shared = calloc(1, sizeof(*shared));
    CHECK(shared);
    memset(&t, 0, sizeof(t));
    t.shared = shared;
    t.gm = &gm;
    t.nr_vcpus = 2;
    t.step_cpu = -1;
    for (unsigned cpu = 0; cpu < 2; cpu++) {
        volatile struct perch_gdb_regs *g = &shared->gdb.cpu[cpu].regs;

        g->kernel_cr3 = l4 << 12;
        g->in_kernel = 1;
        g->rip = TEXT + 0x10 + 0x10 * cpu;
        g->rax = 0x1122334455667788ull;
        g->rflags = 0x246;
        g->cs = 0xe033;
        g->gs_base = 0xffff88800f800000ull + 0x100000 * cpu;
        gdb_target_stopped(&t, cpu, true);
    }
    stop = (struct gdb_stop){ PERCH_GDB_STOP_TRAP, 0 };
}

/* Send one packet (a string) and leave the reply in r. */
static enum gdb_action ask(const char *pkt)
{
    return gdb_command(&t, &stop, pkt, strlen(pkt), &r);
}

static int reply_is(const char *want)
{
    return r.len == strlen(want) && !memcmp(r.data, want, r.len);
}

static void reads_guest_text(void)
{
    build();
    ask("mffffffff81000010,4");
    CHECK(reply_is("10111213"));
    /* Across the page boundary into the next text frame. */
    ask("mffffffff81000ffe,4");
    CHECK(reply_is("feff0000"));
}

static void refuses_what_is_not_the_guests(void)
{
    static const char *const bad[] = {
        "m0,4", "mffff808000000000,4", "mffff810000000000,4", "mffff800000000000,4",
        "mffff87ffffffffff,1", "m800000000000,1", "mffff7fffffffffff,1",
        "mffffffff81002000,4",   /* maps perch's private frame 1 */
        "mffffffff81003000,4",   /* a frame past guest RAM */
        "mffffffff81200000,4",   /* a superpage */
        "mffffffff81004000,4",   /* not present */
    };

    build();
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ask(bad[i]);
        CHECK(reply_is("E14"));
    }
    ask("Mffffffff81002000,1:00");
    CHECK(reply_is("E14"));
    CHECK(((uint8_t *)frame(1))[0] == 0xee);
    ask("Z0,ffffffff81002000,1");
    CHECK(reply_is("E14"));
    CHECK(((uint8_t *)frame(1))[0] == 0xee);
}

/* A read that runs off the mapped text stops there: the part that was
 * there comes back. */
static void partial_read(void)
{
    build();
    ask("mffffffff81001ffe,8");
    CHECK(reply_is("0000"));   /* frame 5 is zeros; then perch's frame */
}

static void forged_cr3_reads_nothing(void)
{
    build();
    t.vcpu[0].regs.kernel_cr3 = 1ull << 12;   /* a perch-private frame */
    ask("mffffffff81000010,4");
    CHECK(reply_is("E14"));
    t.vcpu[0].regs.kernel_cr3 = ~0ull;
    ask("mffffffff81000010,4");
    CHECK(reply_is("E14"));
}

/* In user mode the lower half is the user L4's; none: the kernel's. */
static void user_addresses(void)
{
    build();
    ((uint8_t *)frame(gm.guest_mfn_base + 6))[0] = 0x5a;
    ask("m405000,1");
    CHECK(reply_is("5a"));
    t.vcpu[0].regs.in_kernel = 0;
    t.vcpu[0].regs.user_cr3 = 2ull << 12;     /* perch's: refused */
    ask("m405000,1");
    CHECK(reply_is("E14"));
}

static void huge_length_is_bounded(void)
{
    build();
    ask("mffffffff81000000,ffffffffffffffff");
    CHECK(r.len > 0 && r.len <= GDB_PACKET_MAX);
    ask("mffffffff81000000,10000000000000000");   /* 17 digits */
    CHECK(reply_is("E01"));
    ask("mffffffff81000000");
    CHECK(reply_is("E01"));
    ask("m,4");
    CHECK(reply_is("E01"));
    ask("mffffffff81000000,4junk");
    CHECK(reply_is("E01"));
}

static void breakpoints(void)
{
    uint8_t *text;

    build();
    text = (uint8_t *)frame(gm.guest_mfn_base + 4);
    CHECK(ask("Z0,ffffffff81000010,1") == GDB_REPLY && reply_is("OK"));
    CHECK(text[0x10] == 0xcc);
    CHECK(shared->gdb.breakpoints[0] == TEXT + 0x10);
    /* gdb sees the byte it knows. */
    ask("mffffffff81000010,2");
    CHECK(reply_is("1011"));
    ask("Z0,ffffffff81000010,1");   /* twice: still one */
    CHECK(reply_is("OK") && shared->gdb.breakpoints[1] == 0);
    ask("Z0,ffffffff81000020,1");
    CHECK(text[0x20] == 0xcc && shared->gdb.breakpoints[1] == TEXT + 0x20);
    ask("z0,ffffffff81000010,1");
    CHECK(reply_is("OK") && text[0x10] == 0x10 && shared->gdb.breakpoints[0] == 0);
    ask("z0,ffffffff81000010,1");
    CHECK(reply_is("E14"));
    gdb_target_remove_all(&t);
    CHECK(text[0x20] == 0x20 && shared->gdb.breakpoints[1] == 0);
}

/* The table fills up; a full one refuses, and nothing is written. */
static void breakpoint_table_full(void)
{
    char pkt[64];
    uint8_t *text;

    build();
    text = (uint8_t *)frame(gm.guest_mfn_base + 4);
    for (unsigned i = 0; i < PERCH_GDB_BREAKPOINTS; i++) {
        snprintf(pkt, sizeof(pkt), "Z0,%llx,1", TEXT + 0x100 + i);
        ask(pkt);
        CHECK(reply_is("OK"));
    }
    ask("Z0,ffffffff81000010,1");
    CHECK(reply_is("E14") && text[0x10] == 0x10);
    gdb_target_remove_all(&t);
    CHECK(text[0x100] == 0x00 && text[0x13f] == 0x3f);
}

static void registers(void)
{
    build();
    ask("g");
    CHECK(r.len == 2 * (16 * 8 + 8 + 7 * 4));
    CHECK(!memcmp(r.data, "8877665544332211", 16));
    ask("p10");   /* rip */
    CHECK(reply_is("1000008187ffffff") || reply_is("10000081ffffffff"));
    ask("p11");   /* eflags, 4 bytes */
    CHECK(reply_is("46020000"));
    ask("p12");   /* cs */
    CHECK(reply_is("33e00000"));
    ask("P0=0100000000000000");
    CHECK(reply_is("OK") && t.vcpu[0].regs.rax == 1 && t.vcpu[0].regs_changed);
    ask("P0=01");
    CHECK(reply_is("E00"));
    ask("P99=0100000000000000");
    CHECK(reply_is("E00"));
    ask("p18");   /* st0: perch has no value of it */
    CHECK(reply_is("xxxxxxxxxxxxxxxxxxxx"));
    ask("p3b");   /* past gs_base */
    CHECK(reply_is("E00"));
    t.vcpu[0].regs.gs_base = 0xffff88800f800000ull;
    ask("p3a");   /* gs_base */
    CHECK(reply_is("0000800f8088ffff"));
    ask("P3a=0000000000000000");   /* the Host's to set */
    CHECK(reply_is("E00"));
    ask("pffffffffffffffff");
    CHECK(reply_is("E00"));
    ask("p");
    CHECK(reply_is("E01"));
    ask("P11=00010000");   /* TF is the Host's to set */
    CHECK(reply_is("OK") && t.vcpu[0].regs.rflags == 0);
}

/* The x87 and SSE registers from the vCPU's FXSAVE image, read-only. */
static void fpu_registers(void)
{
    build();
    t.vcpu[0].has_fpu = true;
    t.vcpu[0].fpu.fcw = 0x37f;
    t.vcpu[0].fpu.fsw = 7u << 11;            /* TOP 7: ST(0) is physical 7 */
    t.vcpu[0].fpu.ftwx = 0x80;               /* physical 7 in use, the rest empty */
    t.vcpu[0].fpu.fpr[0][7] = 0x80;          /* 1.0: integer bit, exponent 0x3fff */
    t.vcpu[0].fpu.fpr[0][8] = 0xff;
    t.vcpu[0].fpu.fpr[0][9] = 0x3f;
    t.vcpu[0].fpu.last_ip = 0xffffffff81000010ull;
    t.vcpu[0].fpu.last_opcode = 0x7ff | 0xf800;
    t.vcpu[0].fpu.mxcsr = 0x1f80;
    t.vcpu[0].fpu.xmm[1][0] = 0xab;
    ask("p18");   /* st0 */
    CHECK(reply_is("0000000000000080ff3f"));
    ask("p20");   /* fctrl */
    CHECK(reply_is("7f030000"));
    ask("p22");   /* ftag: physical 7 valid (00), the others empty (11) */
    CHECK(reply_is("ff3f0000"));
    ask("p23");   /* fiseg: the upper half of the 64-bit FPU ip */
    CHECK(reply_is("ffffffff"));
    ask("p24");   /* fioff */
    CHECK(reply_is("10000081"));
    ask("p27");   /* fop: 11 bits */
    CHECK(reply_is("ff070000"));
    ask("p29");   /* xmm1 */
    CHECK(reply_is("ab000000000000000000000000000000"));
    ask("p38");   /* mxcsr */
    CHECK(reply_is("801f0000"));
    ask("P38=00000000");
    CHECK(reply_is("E00"));
}

static void register_write_back(void)
{
    build();
    ask("Pf=3412000000000000");
    gdb_target_resume(&t, 0, PERCH_GDB_STEP);
    CHECK(shared->gdb.cpu[0].regs.r15 == 0x1234 && shared->gdb.cpu[0].regs_changed == 1);
    CHECK(shared->gdb.cpu[0].resume == PERCH_GDB_STEP);
    build();
    gdb_target_resume(&t, 0, PERCH_GDB_CONTINUE);
    CHECK(shared->gdb.cpu[0].regs_changed == 0 && shared->gdb.cpu[0].resume == PERCH_GDB_CONTINUE);
    /* Another vCPU's: its own registers, its own slot. */
    ask("Hg2");
    ask("Pf=7856000000000000");
    gdb_target_resume(&t, 1, PERCH_GDB_CONTINUE);
    CHECK(shared->gdb.cpu[1].regs.r15 == 0x5678 && shared->gdb.cpu[1].regs_changed == 1);
    CHECK(shared->gdb.cpu[0].regs.r15 == 0);
}

/* What the last resume packet asked of vCPUs 0 and 1. */
static bool goes(enum gdb_go first, enum gdb_go second)
{
    return t.go[0] == first && t.go[1] == second && t.go[2] == GDB_GO_STAY;
}

static void resume_packets(void)
{
    build();
    CHECK(ask("c") == GDB_RESUME && goes(GDB_GO_CONTINUE, GDB_GO_CONTINUE));
    CHECK(ask("s") == GDB_RESUME && goes(GDB_GO_STEP, GDB_GO_STAY));
    CHECK(ask("C05") == GDB_RESUME && goes(GDB_GO_CONTINUE, GDB_GO_CONTINUE));
    CHECK(ask("S05") == GDB_RESUME && goes(GDB_GO_STEP, GDB_GO_STAY));
    CHECK(ask("vCont;c") == GDB_RESUME && goes(GDB_GO_CONTINUE, GDB_GO_CONTINUE));
    /* A step holds the others, whatever the packet asks of them. */
    CHECK(ask("vCont;s:1;c") == GDB_RESUME && goes(GDB_GO_STEP, GDB_GO_STAY));
    CHECK(ask("vCont;s:2;c") == GDB_RESUME && goes(GDB_GO_STAY, GDB_GO_STEP));
    CHECK(ask("vCont;c:2") == GDB_RESUME && goes(GDB_GO_STAY, GDB_GO_CONTINUE));
    CHECK(ask("vCont;c:1;s:1") == GDB_RESUME && goes(GDB_GO_CONTINUE, GDB_GO_STAY));
    CHECK(ask("vCont;C05:2;c:-1") == GDB_RESUME && goes(GDB_GO_CONTINUE, GDB_GO_CONTINUE));
    CHECK(ask("vCont;S05:2") == GDB_RESUME && goes(GDB_GO_STAY, GDB_GO_STEP));
    CHECK(ask("vCont?") == GDB_REPLY && !strncmp(r.data, "vCont;c", 7));
    CHECK(ask("vCont;x") == GDB_REPLY && reply_is("E01"));
    CHECK(ask("vCont") == GDB_REPLY && reply_is("E01"));
    CHECK(ask("cffffffff81000020") == GDB_RESUME && t.vcpu[0].regs.rip == TEXT + 0x20);
    CHECK(ask("cxyz") == GDB_REPLY && reply_is("E01"));
    CHECK(ask("D") == GDB_DETACH && reply_is("OK"));
    CHECK(ask("D;1") == GDB_DETACH);
    CHECK(ask("k") == GDB_KILL);
}

static void queries(void)
{
    build();
    ask("qSupported:multiprocess+;swbreak+");
    CHECK(strstr(r.data, "PacketSize=1000") != NULL);
    CHECK(ask("QStartNoAckMode") == GDB_NO_ACK && reply_is("OK"));
    ask("qAttached");
    CHECK(reply_is("1"));
    ask("qC");
    CHECK(reply_is("QC1"));
    ask("qfThreadInfo");
    CHECK(reply_is("m1,2"));
    ask("qsThreadInfo");
    CHECK(reply_is("l"));
    ask("Hg0");
    CHECK(reply_is("OK"));
    ask("?");
    CHECK(reply_is("T05thread:01;"));
    /* swbreak only when offered, and only for a breakpoint's stop. */
    ask("qSupported:multiprocess+");
    CHECK(strstr(r.data, "swbreak") == NULL);
    stop.why = PERCH_GDB_STOP_BREAKPOINT;
    ask("?");
    CHECK(reply_is("T05thread:01;"));
    ask("qSupported:multiprocess+;swbreak+;hwbreak+");
    CHECK(strstr(r.data, ";swbreak+") != NULL);
    ask("?");
    CHECK(reply_is("T05swbreak:;thread:01;"));
    stop = (struct gdb_stop){ PERCH_GDB_STOP_INT, 1 };
    ask("?");
    CHECK(reply_is("T02thread:02;"));
    stop = (struct gdb_stop){ PERCH_GDB_STOP_TRAP, 0 };
    ask("qSupported:xswbreak+;swbreak-");
    CHECK(strstr(r.data, "swbreak") == NULL);
    ask("qTStatus");
    CHECK(reply_is(""));
    ask("Z1,ffffffff81000010,1");
    CHECK(reply_is(""));
    ask("");
    CHECK(reply_is(""));
    ask("X0,0:");
    CHECK(reply_is(""));
}

/* The target description comes in parts, the last marked 'l'. */
static void target_description(void)
{
    char xml[8192];
    size_t got = 0;

    build();
    ask("qSupported");
    CHECK(strstr(r.data, "qXfer:features:read+") != NULL);
    for (int parts = 0; parts < 100; parts++) {
        char pkt[80];

        snprintf(pkt, sizeof(pkt), "qXfer:features:read:target.xml:%zx,3ff", got);
        ask(pkt);
        CHECK(r.len >= 1 && (r.data[0] == 'm' || r.data[0] == 'l'));
        CHECK(got + r.len - 1 < sizeof(xml));
        memcpy(xml + got, r.data + 1, r.len - 1);
        got += r.len - 1;
        if (r.data[0] == 'l')
            break;
    }
    xml[got] = 0;
    CHECK(got == strlen(gdb_target_xml) && !strcmp(xml, gdb_target_xml));
    CHECK(strstr(xml, "gs_base") && !strpbrk(xml, "$#}*"));
    ask("qXfer:features:read:target.xml:ffffffff,10");
    CHECK(reply_is("E01"));
    ask("qXfer:features:read:other.xml:0,10");
    CHECK(reply_is("E00"));
    ask("qXfer:features:read:target.xml:0");
    CHECK(reply_is("E01"));
}

/* The reply of `monitor CMD` (qRcmd, hex both ways), as text. */
static const char *monitor(const char *cmd)
{
    static char text[GDB_PACKET_MAX / 2 + 1];
    char pkt[600] = "qRcmd,";
    size_t n = strlen(pkt);

    for (const char *c = cmd; *c && n + 3 < sizeof(pkt); c++)
        n += (size_t)snprintf(pkt + n, sizeof(pkt) - n, "%02x", (unsigned char)*c);
    ask(pkt);
    for (n = 0; 2 * n + 1 < r.len && n < sizeof(text) - 1; n++) {
        unsigned v;

        sscanf(r.data + 2 * n, "%2x", &v);
        text[n] = (char)v;
    }
    text[n] = 0;
    return text;
}

static void monitor_commands(void)
{
    static const char map[] =
        "ffffffff81000000 T _stext\n"
        "ffffffff81000010 T do_sys_openat2\n"
        "ffffffff81000100 T startup_xen\n"
        "ffffffff81001000 T _etext\n";
    struct kernel_symbols syms;

    build();
    CHECK_CONTAINS(monitor("sym"), "no symbols");
    kernel_symbols_init(&syms);
    kernel_symbols_parse_map(&syms, map, strlen(map), NULL);
    kernel_symbols_sort(&syms);
    t.syms = &syms;
    /* rip is TEXT + 0x10 */
    CHECK(!strcmp(monitor("sym"), "0xffffffff81000010: do_sys_openat2+0\n"));
    CHECK(!strcmp(monitor("  sym   0xffffffff81000105  "), "0xffffffff81000105: startup_xen+0x5\n"));
    CHECK(!strcmp(monitor("sym ffffffff81000011"), "0xffffffff81000011: do_sys_openat2+0x1\n"));
    CHECK_CONTAINS(monitor("sym 0x1000"), "not in the guest kernel's text");
    CHECK_CONTAINS(monitor("sym zz"), "is not an address");
    CHECK(!strcmp(monitor("addr startup_xen"), "startup_xen = 0xffffffff81000100\n"));
    CHECK_CONTAINS(monitor("addr nosuch"), "no such function");
    CHECK_CONTAINS(monitor("addr"), "which function");
    CHECK_CONTAINS(monitor("frob"), "unknown monitor command 'frob'");
    CHECK_CONTAINS(monitor(""), "perch monitor commands");
    /* Bad hex, odd digits, a NUL inside: refused. */
    ask("qRcmd,7");
    CHECK(reply_is("E01"));
    ask("qRcmd,zz");
    CHECK(reply_is("E01"));
    ask("qRcmd,730079");
    CHECK(reply_is("E01"));
    t.syms = NULL;
    kernel_symbols_release(&syms);
}

/* Each vCPU a thread: selected by Hg for registers and memory, by Hc for
 * a plain step; a thread the guest does not have is an error. */
static void threads(void)
{
    static const char *const bad[] = {
        "Hg3", "Hg-1", "Hgzz", "Hg", "Hx1", "H", "Hc3", "Hc-2", "Hg1x",
        "T3", "T0", "T-1", "Tzz", "T", "T1x",
        "vCont;c:3", "vCont;s:3", "vCont;c:zz", "vCont;c:", "vCont;C:1", "vCont;c;",
        "qThreadExtraInfo,3", "qThreadExtraInfo,0", "qThreadExtraInfo,",
    };

    build();
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ask(bad[i]);
        CHECK(reply_is("E01"));
    }
    CHECK(ask("T1") == GDB_REPLY && reply_is("OK"));
    CHECK(ask("T2") == GDB_REPLY && reply_is("OK"));
    ask("qThreadExtraInfo,2");
    CHECK(reply_is("764350552031"));   /* "vCPU 1" */
    ask("Hg2");
    CHECK(reply_is("OK") && t.cpu == 1);
    ask("qC");
    CHECK(reply_is("QC2"));
    ask("p10");   /* vCPU 1's rip */
    CHECK(reply_is("2000008187ffffff") || reply_is("20000081ffffffff"));
    ask("p3a");   /* its gs_base */
    CHECK(reply_is("0000900f8088ffff"));
    ask("mffffffff81000010,2");   /* through its tables */
    CHECK(reply_is("1011"));
    ask("Hg0");   /* any: the first */
    CHECK(reply_is("OK") && t.cpu == 0);
    ask("Hc2");
    CHECK(ask("s") == GDB_RESUME && goes(GDB_GO_STAY, GDB_GO_STEP));
    ask("Hc-1");   /* all: a plain step is the Hg one's */
    CHECK(ask("s") == GDB_RESUME && goes(GDB_GO_STEP, GDB_GO_STAY));
}

/* A vCPU not up: listed, its registers unavailable and not written, no
 * step; memory goes through the others' tables. */
static void thread_not_up(void)
{
    build();
    t.vcpu[1].has_regs = false;
    ask("qThreadExtraInfo,2");
    CHECK(reply_is("7643505520312c206e6f74207570"));   /* "vCPU 1, not up" */
    ask("Hg2");
    ask("g");
    CHECK(r.len == 2 * (16 * 8 + 8 + 7 * 4) && strspn(r.data, "x") == r.len);
    ask("p10");
    CHECK(reply_is("xxxxxxxxxxxxxxxx"));
    ask("P0=0100000000000000");
    CHECK(reply_is("E00"));
    ask("mffffffff81000010,2");
    CHECK(reply_is("1011"));
    CHECK(ask("vCont;s:2") == GDB_REPLY && reply_is("E01"));
    CHECK(ask("vCont;c") == GDB_RESUME && goes(GDB_GO_CONTINUE, GDB_GO_CONTINUE));
    t.vcpu[0].has_regs = false;   /* no tables at all */
    ask("mffffffff81000010,2");
    CHECK(reply_is("E14"));
}

static void memory_write(void)
{
    build();
    ask("Mffffffff81000010,2:abcd");
    CHECK(reply_is("OK") && ((uint8_t *)frame(gm.guest_mfn_base + 4))[0x11] == 0xcd);
    ask("Mffffffff81000010,3:abcd");
    CHECK(reply_is("E01"));
    ask("Mffffffff81000010,2:abc");
    CHECK(reply_is("E01"));
    ask("Mffffffff81000010,2:zzzz");
    CHECK(reply_is("E01"));
    ask("Mffffffff81000010,2");
    CHECK(reply_is("E01"));
}

/* Feed bytes; the last event that was not NONE. */
static enum gdb_frame_event feed(struct gdb_framer *f, const char *bytes, size_t n,
                                 bool no_ack)
{
    enum gdb_frame_event last = GDB_FRAME_NONE, e;

    for (size_t i = 0; i < n; i++)
        if ((e = gdb_frame_byte(f, bytes[i], no_ack)) != GDB_FRAME_NONE)
            last = e;
    return last;
}

static void framing(void)
{
    static struct gdb_framer f;
    static char big[GDB_PACKET_MAX + 16];

    gdb_frame_reset(&f);
    CHECK(feed(&f, "+$g#67", 6, false) == GDB_FRAME_PACKET);
    CHECK(f.len == 1 && f.data[0] == 'g');
    CHECK(feed(&f, "$g#68", 5, false) == GDB_FRAME_BAD_CHECKSUM);
    CHECK(feed(&f, "$g#6G", 5, false) == GDB_FRAME_BAD_CHECKSUM);
    CHECK(feed(&f, "$g#6G", 5, true) == GDB_FRAME_BAD_CHECKSUM);   /* not hex */
    CHECK(feed(&f, "$g#00", 5, true) == GDB_FRAME_PACKET);   /* no acks: not checked */
    CHECK(feed(&f, "\x03", 1, false) == GDB_FRAME_INTERRUPT);
    CHECK(feed(&f, "x", 1, false) == GDB_FRAME_NOISE);
    CHECK(feed(&f, "-", 1, false) == GDB_FRAME_NONE);
    /* Ctrl-C inside a packet is data. */
    CHECK(feed(&f, "$\x03#03", 5, false) == GDB_FRAME_PACKET && f.data[0] == 3);
    /* A packet longer than the buffer is dropped whole, checksum or not. */
    big[0] = '$';
    memset(big + 1, 'm', GDB_PACKET_MAX + 1);
    memcpy(big + GDB_PACKET_MAX + 2, "#", 1);
    CHECK(feed(&f, big, GDB_PACKET_MAX + 3, true) == GDB_FRAME_NONE);
    CHECK(feed(&f, "00", 2, true) == GDB_FRAME_TOO_LONG);
    /* And the next one is read as usual. */
    CHECK(feed(&f, "$?#3f", 5, false) == GDB_FRAME_PACKET && f.len == 1);
}

int main(void)
{
    RUN(framing);
    RUN(reads_guest_text);
    RUN(refuses_what_is_not_the_guests);
    RUN(partial_read);
    RUN(forged_cr3_reads_nothing);
    RUN(user_addresses);
    RUN(huge_length_is_bounded);
    RUN(breakpoints);
    RUN(breakpoint_table_full);
    RUN(registers);
    RUN(fpu_registers);
    RUN(register_write_back);
    RUN(resume_packets);
    RUN(queries);
    RUN(target_description);
    RUN(monitor_commands);
    RUN(memory_write);
    RUN(threads);
    RUN(thread_not_up);
    return check_exit_status();
}
