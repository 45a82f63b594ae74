/*
 * Unit tests of the crash line (launcher/symbols/crash_line.c) and of where its
 * symbols come from (launcher/symbols/symbol_source.c): what the line says with
 * and without symbols, which stack words it names, that it stays within
 * one message and cuts whole frames, that a forged report cannot make the
 * Launcher read past its copy, and which System.map beside a KERNEL file
 * is used.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../../launcher/symbols/crash_line.h"
#include "../../launcher/symbols/symbol_source.h"

#define TEXT 0xffffffff81000000ull

static const char map[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000100 T xen_hypercall_pv\n"
    "ffffffff81000200 T xen_reboot\n"
    "ffffffff81000300 T panic\n"
    "ffffffff81000400 t sysrq_handle_crash\n"
    "ffffffff81000500 T startup_xen\n"
    "ffffffff81001000 T _etext\n";

static void symbols(struct kernel_symbols *s)
{
    kernel_symbols_init(s);
    kernel_symbols_parse_map(s, map, strlen(map), NULL);
    kernel_symbols_sort(s);
}

/* A hypercall crash: rip in the hypercall glue, the caller's return
 * addresses on the stack among other words. */
static void crash_where(struct guest_where *w)
{
    static const uint64_t stack[] = {
        0x246,                       /* r11: rflags */
        TEXT + 0x105,                /* rcx: the rip again */
        TEXT + 0x260,                /* xen_reboot+0x60 */
        0xffff888001234000ull,       /* a heap pointer */
        TEXT + 0x400,                /* a function pointer: offset 0 */
        TEXT + 0x386,                /* panic+0x86 */
        0,
        TEXT + 0x416,                /* sysrq_handle_crash+0x16 */
        0xffffffffc0001000ull,       /* a module's: not in the text */
    };

    memset(w, 0, sizeof(*w));
    w->known = true;
    w->status = 4;
    w->rip = TEXT + 0x105;
    w->nr_stack = sizeof(stack) / sizeof(stack[0]);
    memcpy(w->stack, stack, sizeof(stack));
}

static void names_rip_and_callers(void)
{
    struct kernel_symbols s;
    struct guest_where w;
    struct error e;

    symbols(&s);
    crash_where(&w);
    fail(&e, "guest crashed (SHUTDOWN_crash)");
    crash_line_append(&e, &w, &s);
    CHECK(!strcmp(e.msg, "guest crashed (SHUTDOWN_crash) at rip 0xffffffff81000105 "
                         "(xen_hypercall_pv+0x5); stack: xen_reboot+0x60 panic+0x86 "
                         "sysrq_handle_crash+0x16"));
    kernel_symbols_release(&s);
}

static void without_symbols_rip_only(void)
{
    struct guest_where w;
    struct error e;

    crash_where(&w);
    fail(&e, "guest crashed (SHUTDOWN_crash)");
    crash_line_append(&e, &w, NULL);
    CHECK(!strcmp(e.msg, "guest crashed (SHUTDOWN_crash) at rip 0xffffffff81000105"));
}

/* A rip outside the text (a module, user space) is only a number. */
static void rip_outside_text_unnamed(void)
{
    struct kernel_symbols s;
    struct guest_where w;
    struct error e;

    symbols(&s);
    crash_where(&w);
    w.rip = 0xffffffffc0001234ull;
    fail(&e, "x");
    crash_line_append(&e, &w, &s);
    CHECK(!strncmp(e.msg, "x at rip 0xffffffffc0001234; stack: xen_hypercall_pv+0x5 ", 57));
    kernel_symbols_release(&s);
}

/* A broken rule: the Host's message, then the place as a clause; in guest
 * user no symbols and no stack. */
static void clause_and_user_mode(void)
{
    struct kernel_symbols s;
    struct guest_where w;
    struct error e;

    symbols(&s);
    crash_where(&w);
    w.clause = true;
    fail(&e, "guest stopped: guest kernel took #UD");
    crash_line_append(&e, &w, &s);
    CHECK_CONTAINS(e.msg, "#UD; guest at rip 0xffffffff81000105 (xen_hypercall_pv+0x5); stack: ");
    w.user = true;
    w.rip = 0x47b7a0;
    fail(&e, "guest stopped: guest user took #GP");
    crash_line_append(&e, &w, &s);
    CHECK(!strcmp(e.msg, "guest stopped: guest user took #GP; guest at rip 0x47b7a0 in guest user"));
    kernel_symbols_release(&s);
}

static void unknown_place_adds_nothing(void)
{
    struct kernel_symbols s;
    struct guest_where w;
    struct error e;

    symbols(&s);
    crash_where(&w);
    w.known = false;
    fail(&e, "guest stopped: unknown request 3");
    crash_line_append(&e, &w, &s);
    CHECK(!strcmp(e.msg, "guest stopped: unknown request 3"));
    kernel_symbols_release(&s);
}

/* 64 return addresses: CRASH_LINE_FRAMES named. */
static void at_most_frames(void)
{
    struct kernel_symbols s;
    struct guest_where w;
    struct error e;
    unsigned spaces = 0;
    const char *p;

    symbols(&s);
    crash_where(&w);
    w.nr_stack = PERCH_WHERE_STACK_WORDS;
    for (unsigned i = 0; i < w.nr_stack; i++)
        w.stack[i] = TEXT + 0x301 + i;
    fail(&e, "c");
    crash_line_append(&e, &w, &s);
    p = strstr(e.msg, "; stack: ");
    CHECK(p);
    for (p += 9; *p; p++)
        spaces += *p == ' ';
    CHECK(spaces == CRASH_LINE_FRAMES - 1);
    CHECK_CONTAINS(e.msg, " panic+0x8");
    kernel_symbols_release(&s);
}

/* A message near the limit: frames that do not fit are left out whole. */
static void whole_frames_only(void)
{
    struct kernel_symbols s;
    struct guest_where w;
    struct error e;
    char longmsg[sizeof(e.msg)];
    size_t len;

    symbols(&s);
    crash_where(&w);
    memset(longmsg, 'm', sizeof(longmsg));
    longmsg[sizeof(e.msg) - 100] = '\0';
    fail(&e, "%s", longmsg);
    crash_line_append(&e, &w, &s);
    len = strlen(e.msg);
    CHECK(len < sizeof(e.msg));
    CHECK(len > sizeof(e.msg) - 100);
    /* It ends with a whole name+offset, not a piece of one. */
    CHECK(!strcmp(e.msg + len - 4, "0x60") || !strcmp(e.msg + len - 4, "0x86") ||
          !strcmp(e.msg + len - 4, "0x16") || !strcmp(e.msg + len - 4, "+0x5)"));
    kernel_symbols_release(&s);
}

/* The shared page is the guest's to scribble on: a count beyond the
 * array is cut to it, and nothing else is read. */
static void forged_report_bounded(void)
{
    static struct perch_shared sh;
    struct guest_where w;

    memset(&sh, 0, sizeof(sh));
    sh.request.where.known = 1;
    sh.request.where.kernel = 1;
    sh.request.where.rip = TEXT;
    sh.request.where.nr_stack = 0xffffffffu;
    sh.request.where.stack[PERCH_WHERE_STACK_WORDS - 1] = 77;
    crash_line_from_shared(&w, &sh, 4, false);
    CHECK(w.known && !w.user && w.status == 4 && w.rip == TEXT);
    CHECK(w.nr_stack == PERCH_WHERE_STACK_WORDS);
    CHECK(w.stack[PERCH_WHERE_STACK_WORDS - 1] == 77);
    sh.request.where.known = 0;
    crash_line_from_shared(&w, &sh, 4, false);
    CHECK(!w.known && w.nr_stack == 0);
    crash_line_from_vcpu(&w, TEXT + 7, 5);
    CHECK(w.known && w.rip == TEXT + 7 && w.nr_stack == 0 && !w.clause);
}

static void map_paths_beside_kernel(void)
{
    char paths[SYMBOL_SOURCE_MAPS][PATH_MAX];

    CHECK(symbol_source_map_paths("/boot/vmlinuz-6.1.0-57-cloud-amd64", paths) == 2);
    CHECK(!strcmp(paths[0], "/boot/System.map-6.1.0-57-cloud-amd64"));
    CHECK(!strcmp(paths[1], "/boot/System.map"));
    CHECK(symbol_source_map_paths("build/linux/vmlinux", paths) == 1);
    CHECK(!strcmp(paths[0], "build/linux/System.map"));
    CHECK(symbol_source_map_paths("vmlinux-6.12", paths) == 2);
    CHECK(!strcmp(paths[0], "System.map-6.12") && !strcmp(paths[1], "System.map"));
    CHECK(symbol_source_map_paths("/k/vmlinuz-", paths) == 1);
    CHECK(!strcmp(paths[0], "/k/System.map"));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* An image without kallsyms: the map beside it, if it is this build's. */
static void map_used_only_for_its_build(void)
{
    char dir[] = "/tmp/perch-crash-line-XXXXXX", kernel[PATH_MAX], path[PATH_MAX];
    static uint8_t image[4096];
    struct kernel_symbols s;
    uint64_t entry = 0xffffffff81000500ull;

    CHECK(mkdtemp(dir));
    snprintf(kernel, sizeof(kernel), "%s/vmlinuz-9.9", dir);
    snprintf(path, sizeof(path), "%s/System.map-9.9", dir);
    CHECK(!symbol_source_load(&s, image, sizeof(image), kernel, entry));
    write_file(path, map);
    CHECK(symbol_source_load(&s, image, sizeof(image), kernel, entry));
    CHECK(s.n == 7);
    kernel_symbols_release(&s);
    /* Another build's map (its startup_xen elsewhere) is not used. */
    CHECK(!symbol_source_load(&s, image, sizeof(image), kernel, entry + 0x10));
    kernel_symbols_release(&s);
    /* Debian's placeholder, then the plain System.map beside it. */
    write_file(path, "ffffffffffffffff B The real System.map is in the "
                     "linux-image-<version>-dbg package\n");
    CHECK(!symbol_source_load(&s, image, sizeof(image), kernel, entry));
    kernel_symbols_release(&s);
    snprintf(path, sizeof(path), "%s/System.map", dir);
    write_file(path, map);
    CHECK(symbol_source_load(&s, image, sizeof(image), kernel, entry));
    kernel_symbols_release(&s);
    unlink(path);
    snprintf(path, sizeof(path), "%s/System.map-9.9", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(names_rip_and_callers);
    RUN(without_symbols_rip_only);
    RUN(rip_outside_text_unnamed);
    RUN(clause_and_user_mode);
    RUN(unknown_place_adds_nothing);
    RUN(at_most_frames);
    RUN(whole_frames_only);
    RUN(forged_report_bounded);
    RUN(map_paths_beside_kernel);
    RUN(map_used_only_for_its_build);
    return check_exit_status();
}
