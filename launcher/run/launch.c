/*
 * The journey of `perch run`, in order:
 *   1. read and check the kernel (and initrd) before touching KVM;
 *   2. lay out machine memory: perch's private frames, then the guest's;
 *   3. build the hole (Switcher, Host, M2P, alias) and the PV domain, and
 *      put the hole into the guest's first L4;
 *   4. create the VM over that memory, wire the console doorbell, start
 *      every vCPU in the Host, at CPL3 (the first enters the kernel, the
 *      others wait for the guest to bring them up);
 *   5. run until the guest ends, one thread per vCPU, then report.
 */
#include "launch_state.h"
#include "../base/clock.h"
#include "../control/control_server.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../console/console.h"
#include "../cpu/cpu_profile.h"
#include "../boot/default_guest.h"
#include "devices.h"
#include "../disk/disk.h"
#include "../boot/domain.h"
#include "../base/file.h"
#include "../boot/guest_modules.h"
#include "../vm/hole.h"
#include "../boot/initramfs.h"
#include "../boot/kernel_image.h"
#include "../vm/kvm.h"
#include "../gdb/gdb.h"
#include "../vm/lines.h"
#include "../net/net_link.h"
#include "secondary_vcpus.h"
#include "vcpu_loop.h"
#include "../vm/sandbox.h"
#include "stats.h"
#include "../base/status.h"
#include "../symbols/symbol_source.h"
#include "../boot/linux_cmdline.h"
#include "../base/terminal.h"


/* With no KERNEL: Debian's cloud kernel from perch's cache (fetched once). */
static int choose_kernel(struct launch *l, const struct options *o,
                         struct options *chosen, struct error *e)
{
    *chosen = *o;
    if (o->kernel)
        return 0;
    if (default_guest_open(&l->guest, e) || default_guest_kernel(&l->guest, e))
        return -1;
    chosen->kernel = l->guest.kernel;
    return 0;
}

/* perch's initramfs, /init and /perch/cmd, are for Linux; perch's test
 * guests say "perch-test" and get neither it nor a default cmdline. */
static bool is_linux(const struct launch *l)
{
    return !strcmp(l->image.guest_os, "linux");
}

/* busybox from perch's cache, fetched if missing. A guest without it
 * still boots, to perch's /init alone, so failing is only a note. */
static void load_busybox(struct default_guest *g, struct file_data *busybox)
{
    struct error e;

    if ((!g->dir[0] && default_guest_open(g, &e)) ||
        default_guest_busybox(g, &e) ||
        file_read_all(g->busybox, busybox, &e))
        fprintf(stderr, "perch: note: no busybox (%s): the guest gets only "
                        "perch's /init, with no shell or commands\n", e.msg);
}

/* modules: the set for kernel (NULL: none). */
static int build_initramfs(struct default_guest *g, const struct options *o,
                           const char *kernel,
                           const struct default_guest_module_set *modules,
                           struct file_data *out, struct error *e)
{
    struct initramfs_config cfg = { .cmd = o->cmd, .cmd_argc = o->cmd_argc,
                                    .root = o->root, .net = o->net.kind != NET_NONE,
                                    .small_disk_requests = o->small_disk_requests };
    struct file_data busybox = { 0 };
    struct guest_modules loaded;
    int rc;

    guest_modules_load(g, modules, kernel, &loaded);
    cfg.modules = loaded.list;
    cfg.nr_modules = loaded.n;
    load_busybox(g, &busybox);
    initramfs_init_image(&cfg.init, &cfg.init_bytes);
    initramfs_bench_image(&cfg.bench, &cfg.bench_bytes);
    cfg.busybox = busybox.bytes;
    cfg.busybox_bytes = busybox.size;
    rc = initramfs_build(&cfg, out, e);
    file_release(&busybox);
    guest_modules_release(&loaded);
    return rc;
}

int launch_initramfs(const struct options *o,
                     const struct default_guest_module_set *modules,
                     struct file_data *out, struct error *e)
{
    static struct default_guest g;   /* large: four paths */

    memset(&g, 0, sizeof(g));
    if (modules && default_guest_open(&g, e))
        return -1;
    return build_initramfs(&g, o, g.kernel, modules, out, e);
}

/* The user's initrd as it is; else, for Linux, perch's own. */
static int load_initrd(struct launch *l, const struct options *o, struct error *e)
{
    if (o->initrd)
        return file_read_all(o->initrd, &l->initrd, e);
    if (is_linux(l))
        return build_initramfs(&l->guest, o, o->kernel,
                               &default_guest_xen_modules, &l->initrd, e);
    if (o->cmd)
        return fail(e, "-- CMD needs a Linux kernel, with perch's /init "
                       "(%s is a '%s' kernel)", o->kernel, l->image.guest_os);
    return 0;
}

static int load_files(struct launch *l, const struct options *o, struct error *e)
{
    struct kernel_elf elf;
    struct error inner;

    if (file_read_all(o->kernel, &l->kernel, e))
        return -1;
    /* An ELF vmlinux is used as read; a bzImage is decompressed. */
    if (kernel_image_elf(l->kernel.bytes, l->kernel.size, KERNEL_IMAGE_MAX_ELF,
                         &elf, e))
        goto bad_kernel;
    if (elf.owned) {
        /* Keep only the ELF: l->kernel owns it now, release() frees it. */
        file_release(&l->kernel);
        l->kernel.bytes = elf.owned;
        l->kernel.size = elf.size;
    }
    if (pv_image_parse(l->kernel.bytes, l->kernel.size, &l->image, e))
        goto bad_kernel;
    if (load_initrd(l, o, e) || disks_open(o->disks, o->nr_disks, l->disks, e) ||
        cpu_profile_for_guest(o->cpu_profile, &l->cpu, e))
        return -1;
    l->nr_disks = o->nr_disks;
    return o->net.kind == NET_NONE ? 0 : net_link_open(&l->link, &o->net, e);
bad_kernel:
    inner = *e;
    return fail(e, "%s: %s", o->kernel, inner.msg);
}


static int build_memory(struct launch *l, const struct options *o, struct error *e)
{
    uint64_t nr_pages = o->mem_mib << (20 - PAGE_SHIFT);
    struct vm_images images;
    struct domain_config cfg = {
        /* Linux's console is hvc0 (the ring), and linux_cmdline.h says
         * why noreplace-smp; the user's cmdline wins. */
        .cmdline = o->cmdline || !is_linux(l) ? o->cmdline : LINUX_CMDLINE,
        .initrd = l->initrd.bytes,
        .initrd_bytes = l->initrd.size,
        .console_evtchn = PERCH_CONSOLE_PORT,
        /* xenstore always: the disks and the card are xenbus devices, and
         * `perch shutdown` asks through control/shutdown. */
        .store_evtchn = PERCH_XENSTORE_PORT,
    };

    if (guest_memory_fits_host(o->mem_mib, e))
        return -1;
    if (guest_memory_init(&l->gm, hole_private_frames(nr_pages, l->nr_cpus), nr_pages))
        return fail(e, "cannot reserve %lu MiB for the guest", o->mem_mib);
    vm_images_get(&images);
    if (hole_build(&l->gm, &images, l->nr_cpus, !(o->optimizations_off & PERCH_OPT_CPL3_EVENTS),
                   &l->hole, e))
        return -1;
    cfg.shared_info_mfn = l->hole.shared_info_mfn;
    if (domain_build(&l->gm, &l->image, &cfg, &l->layout, e))
        return -1;
    return hole_install(&l->gm, &l->hole, l->layout.l4_mfn, e);
}

/*
 * What host/cpu/insn_patch.c needs of the kernel's symbols: which functions
 * read r11 on entry (the retpoline thunks through r11) and where Linux's
 * jump-label table is; then, last, that they are there to read. And for
 * host/cpu/direct_calls.c, where the kernel makes its hypercalls and irets.
 */
static void tell_host_symbols(struct perch_shared *sh, const struct kernel_symbols *syms,
                              bool named)
{
    static const char *const r11_readers[] = {
        "__x86_indirect_thunk_r11", "__x86_indirect_its_thunk_r11",
    };
    unsigned n = 0;

    for (unsigned i = 0; named && i < sizeof(r11_readers) / sizeof(r11_readers[0]); i++)
        if (kernel_symbols_find(syms, r11_readers[i], &sh->boot.r11_readers[n]))
            n++;
    if (named && syms->jump_table_start < syms->jump_table_end) {
        sh->boot.jump_table_start = syms->jump_table_start;
        sh->boot.jump_table_end = syms->jump_table_end;
    }
    if (named) {
        kernel_symbols_find(syms, "xen_hypercall_pv", &sh->boot.hypercall_func);
        kernel_symbols_find(syms, "xen_iret", &sh->boot.iret_func);
    }
    __atomic_store_n(&sh->boot.kernel_symbols, named ? PERCH_SYMBOLS_READ : PERCH_SYMBOLS_NONE,
                     __ATOMIC_RELEASE);
}

/* Reading the symbols takes ~20 ms; the Host needs them only once the
 * kernel's text is read-only, late in its boot, so they are read meanwhile. */
static void *symbols_reader(void *arg)
{
    struct launch *l = arg;

    l->syms_named = symbol_source_load(&l->syms, l->kernel.bytes, l->kernel.size,
                                       l->kernel_path, l->image.entry);
    tell_host_symbols(l->hole.shared, &l->syms, l->syms_named);
    return NULL;
}

/* The kernel's own text is where host/cpu/insn_patch.c may patch; its symbols
 * follow (symbols_reader, or here if no thread can be had). */
static void describe_kernel(struct launch *l, const char *kernel_path)
{
    l->hole.shared->boot.kernel_text_start = l->image.virt_text_start;
    l->hole.shared->boot.kernel_text_end = l->image.virt_text_end;
    l->kernel_path = kernel_path;
    if (!pthread_create(&l->symbols_reader, NULL, symbols_reader, l))
        l->reading_symbols = true;
    else
        symbols_reader(l);
}

static void wait_for_symbols(struct launch *l)
{
    if (l->reading_symbols)
        pthread_join(l->symbols_reader, NULL);
    l->reading_symbols = false;
}

/* --gdb, before the vCPU first runs: tell the Host, and hand gdb's
 * monitor the kernel's symbols. Waiting for them costs the boot the
 * reader's ~20 ms, with --gdb only: the gdb thread cannot join it. */
/* The Host patches the kernel's hypercall and iret into direct calls
 * before the guest's first instruction (host/cpu/direct_calls.h), so it
 * must know where they are by then: the first vCPU waits for the
 * symbols (~20 ms, while the VM was being made) unless --trap-hypercalls. */
static void prepare_direct_calls(struct launch *l, const struct options *o)
{
    if (!(o->optimizations_off & PERCH_OPT_DIRECT_CALLS))
        wait_for_symbols(l);
}

static void prepare_gdb(struct launch *l)
{
    if (!l->has_gdb)
        return;
    wait_for_symbols(l);
    gdb_prepare(&l->gdb, l->hole.shared, &l->vm, &l->gm,
                l->syms_named ? &l->syms : NULL);
}

/* vCPU `cpu` starts in the Host on its own stack and tables; the first on
 * the guest's boot L4, the others on perch's own (boot.secondary_cr3). */
static int boot_vcpu(struct launch *l, unsigned cpu, struct error *e)
{
    struct vcpu_boot boot = {
        .rip = l->hole.boot_entry,
        .rsp = PERCH_CPU_VA(HOST_CPU_EXC_TOP, cpu),
        .rflags = 0x202,   /* real IF on; the guest's virtual IF is its upcall mask */
        .cr3 = (cpu ? l->hole.template_l4_mfn : l->layout.l4_mfn) << PAGE_SHIFT,
        .gdt_base = PERCH_CPU_VA(SW_GDT_VA, cpu),
        .idt_base = PERCH_CPU_VA(SW_IDT_VA, cpu),
        .tss_base = PERCH_CPU_VA(SW_TSS_VA, cpu),
        .cs = FLAT_KERNEL_CS64,
        .ss = FLAT_KERNEL_SS64,
        .tss_selector = SW_TSS_SEL,
        .lstar = l->hole.lstar + cpu * l->hole.lstar_stride,
        .steal_gpa = l->hole.shared_maddr + offsetof(struct perch_shared, steal[cpu]),
    };

    return kvm_vcpu_boot(&l->vm.vcpus[cpu], &boot, e);
}

static int start_vm(struct launch *l, const struct options *o, struct error *e)
{
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    l->hole.shared->boot.hypercall_page = l->image.hypercall_page;
    l->hole.shared->boot.guest_rip = l->layout.entry;
    l->hole.shared->boot.guest_rsp = l->layout.stack_top;
    l->hole.shared->boot.guest_rsi = l->layout.start_info_va;
    l->hole.shared->boot.cpu = l->cpu;
    l->hole.shared->boot.strict = o->strict;
    l->hole.shared->boot.optimizations_off = o->optimizations_off;
    l->hole.shared->boot.no_guest_isolation = o->no_guest_isolation;
    describe_kernel(l, o->kernel);
    l->hole.shared->boot.console_port = PERCH_CONSOLE_PORT;
    l->hole.shared->boot.xenstore_port = PERCH_XENSTORE_PORT;
    l->hole.shared->boot.secondary_cr3 = l->hole.template_l4_mfn << PAGE_SHIFT;
    if (kvm_vm_create(&l->vm, &l->gm, l->nr_cpus, e) ||
        kvm_doorbell(&l->vm, l->hole.doorbell_gpa + PERCH_CONSOLE_DOORBELL,
                     &l->doorbell_fd, e) ||
        kvm_doorbell(&l->vm, l->hole.doorbell_gpa + PERCH_DEVICE_DOORBELL,
                     &l->device_doorbell_fd, e))
        return -1;
    /* The guest's TSC starts near 0 with the vCPU: wall clock at TSC 0. */
    l->hole.shared->boot.tsc_khz = kvm_tsc_khz(&l->vm);
    l->hole.shared->boot.wallclock_ns = timespec_ns(now);
    for (unsigned cpu = 0; cpu < l->nr_cpus; cpu++)
        if (boot_vcpu(l, cpu, e))
            return -1;
    return 0;
}

/* --net as a snapshot names it: a restore opens the link again. */
static struct snapshot_net saved_net(const struct net_option *n)
{
    struct snapshot_net s = {
        .kind = n->kind == NET_USER ? SNAPSHOT_NET_USER
                : n->kind == NET_TAP ? SNAPSHOT_NET_TAP : SNAPSHOT_NET_NONE,
        .nr_fwd = n->nr_fwd,
    };

    for (unsigned i = 0; i < n->nr_fwd; i++) {
        s.fwd[i].host_port = n->fwd[i].host_port;
        s.fwd[i].guest_port = n->fwd[i].guest_port;
        s.fwd[i].udp = n->fwd[i].udp;
    }
    memcpy(s.tap, n->tap, sizeof(s.tap));
    return s;
}

/* What `perch save` writes of this launch, and whether it can: gdb's
 * state is not saved. */
static void prepare_save(struct launch *l, const struct options *o)
{
    struct vm_images images;

    _Static_assert(NET_MAX_HOSTFWD == SNAPSHOT_NET_FORWARDS, "every forward fits a snapshot");
    _Static_assert(sizeof(o->net.tap) == sizeof(((struct snapshot_net *)0)->tap), "tap names");
    vm_images_get(&images);
    l->save.config = (struct snapshot_config){
        .nr_pages = l->gm.nr_pages, .private_frames = l->gm.guest_mfn_base,
        .nr_cpus = l->nr_cpus,
        .cpl3_events = !(o->optimizations_off & PERCH_OPT_CPL3_EVENTS),
        .tsc_khz = kvm_tsc_khz(&l->vm), .images_crc = vm_images_crc(&images),
        .console_pfn = l->layout.console_pfn, .store_pfn = l->layout.store_pfn,
        .net = saved_net(&o->net),
    };
    if (l->has_gdb)
        l->save.cannot = "perch save cannot save a guest under --gdb";
}

/* The console back end's way to tell the guest there is input. */
static void notify_console(void *arg)
{
    struct launch *l = arg;

    lines_raise(l->hole.shared, &l->vm, PERCH_LINE_CONSOLE);
}

/* A counter mark from the guest: hand it on with the counters now. */
static void on_mark(void *arg, const char *name, bool end)
{
    struct launch *l = arg;
    struct perch_counters now;

    stats_snapshot(l->hole.shared, l->stats, &l->vm, &now);
    l->io->mark(l->io->arg, name, end, &now);
}

/* A driven run: output to the driver, marks to it, no input. */
static void drive_console(struct launch *l, struct console_config *cfg)
{
    cfg->output = l->io->output;
    cfg->output_arg = l->io->arg;
    cfg->on_mark = l->io->mark ? on_mark : NULL;
    cfg->mark_arg = l;
    cfg->in_fd = -1;
    cfg->keys = false;
}

/* Serve both console rings; stdin feeds hvc0 (from a terminal in raw mode,
 * restored however perch ends: terminal.h). */
static int start_console(struct launch *l, struct console *c, bool sandbox,
                         struct error *e)
{
    int tty = l->io ? -1 : terminal_raw(STDIN_FILENO);
    struct console_config cfg = {
        .shared = l->hole.shared,
        .hvc_page = gm_pfn(&l->gm, l->layout.console_pfn),
        .doorbell_fd = l->doorbell_fd,
        .out_fd = STDOUT_FILENO,
        .in_fd = tty >= 0 ? STDIN_FILENO : -1,
        .keys = tty == 1,
        .notify_guest = notify_console,
        .notify_arg = l,
        .vcpu_immediate_exit = &l->vm.vcpus[0].run->immediate_exit,
        .sandbox = sandbox,
        .hold = &l->save.hold,
        .resume = l->restored,
    };

    if (l->io)
        drive_console(l, &cfg);
    if (console_start(c, &cfg)) {
        terminal_restore();
        return fail(e, "cannot start the console thread%s%s",
                    c->problem[0] ? ": " : "", c->problem);
    }
    return 0;
}

/* The run itself, on the vCPU thread: both guest-facing threads enter the
 * sandbox (sandbox.h) before the guest runs, and the console's last
 * output is drained there too. What the caller's thread does after the
 * run (terminal, report, teardown) stays outside. */
struct run_phase {
    struct launch *l;
    bool sandbox;
    struct console console;
    struct guest_run run;            /* vCPU 0's */
    struct secondary_vcpus *others;  /* the rest's */
    struct control_server control;   /* perch list, perch shutdown */
    struct error e;
    int status;
};

/* xenstore, the disks and the network card, on the device thread (devices.h). */
static int start_devices(struct launch *l, bool sandbox, struct error *e)
{
    struct devices_config cfg = {
        .shared = l->hole.shared, .vm = &l->vm, .gm = &l->gm,
        .doorbell_fd = l->device_doorbell_fd,
        .store_ring = gm_pfn(&l->gm, l->layout.store_pfn),
        .grant_first_mfn = l->hole.grant_first_mfn,
        .grant_nr_frames = (uint32_t)l->hole.grant_nr_frames,
        .disks = l->disks, .nr_disks = l->nr_disks, .link = l->link,
        .memory_kib = l->gm.nr_pages * (PAGE_SIZE / 1024),
        .vcpu_immediate_exit = &l->vm.vcpus[0].run->immediate_exit,
        .sandbox = sandbox,
        .hold = &l->save.hold,
        .saved_store = l->restored ? l->snap.xenstore : NULL,
        .saved_store_len = l->snap.xenstore_len,
    };

    l->devices = calloc(1, sizeof(*l->devices));
    if (!l->devices)
        return fail(e, "out of memory for the devices");
    return devices_start(l->devices, &cfg, e);
}

/* Once the guest is stopped: the disks' last I/O done, and whether the
 * guest broke a device's ring on its way out. */
static int stop_devices(struct launch *l, int status, struct error *e)
{
    if (!l->devices)
        return status;
    devices_stop(l->devices);
    if (status != STATUS_GUEST_STOPPED && devices_verdict(l->devices, e) >= 0)
        return STATUS_GUEST_STOPPED;
    return status;
}

/* The status perch exits with: a guest that powered off may have said
 * which one it wants (the command's, for -- CMD). */
static int exit_status(struct console *c, int status)
{
    if (status == STATUS_POWEROFF && !atomic_load(&c->quit) && console_exit_status(c) >= 0)
        return console_exit_status(c);
    return status;
}

/* The run is over for gdb too: a gdb that waits hears that status. */
static void stop_gdb(struct run_phase *p, int status)
{
    if (p->l->has_gdb)
        gdb_end(&p->l->gdb, exit_status(&p->console, status));
}

static int ask_poweroff(void *devices)
{
    return devices_ask_poweroff(devices);
}

static int ask_memory(void *devices, uint64_t mib)
{
    return devices_ask_memory(devices, mib);
}

/* `perch save` through the control socket: into the client's open file. */
static int ask_save(void *launch, int fd, bool leave_running, struct error *e)
{
    struct launch *l = launch;
    int own = dup(fd);
    FILE *f = own >= 0 ? fdopen(own, "w") : NULL;
    int rc;

    if (!f) {
        if (own >= 0)
            close(own);
        return fail(e, "cannot write the snapshot: out of file descriptors");
    }
    rc = save_guest(&l->save, f, leave_running, e);
    if (fclose(f) && !rc)
        rc = fail(e, "cannot write the snapshot: %s", strerror(errno));
    return rc;
}

/* The control socket (control_server.h), once the device thread can ask
 * the guest to power off. Only a --name the user chose must be had: without
 * one, a socket perch cannot make costs a note, not the run. */
static int start_control(struct run_phase *p)
{
    struct launch *l = p->l;
    struct control_guest g = {
        .name = l->name, .vcpus = l->nr_cpus, .mem_mib = l->gm.nr_pages >> (20 - PAGE_SHIFT),
        .disks = l->disks, .nr_disks = l->nr_disks,
        .ask_poweroff = ask_poweroff, .ask_memory = ask_memory, .arg = l->devices,
        .save = ask_save, .save_arg = l,
    };
    struct error e;

    if (!control_server_start(&p->control, &g, &e))
        return 0;
    control_server_stop(&p->control);
    if (l->name) {
        p->e = e;
        return -1;
    }
    fprintf(stderr, "perch: note: %s: perch list will not show this guest\n", e.msg);
    return 0;
}

/* Every vCPU's thread runs: `perch save` may kick them now. */
static void save_ready(struct run_phase *p)
{
    struct save_source *s = &p->l->save;

    s->vm = &p->l->vm;
    s->gm = &p->l->gm;
    s->hole = &p->l->hole;
    s->disks = p->l->disks;
    s->nr_disks = p->l->nr_disks;
    s->devices = p->l->devices;
    s->console_doorbell_fd = p->l->doorbell_fd;
    s->threads[0] = pthread_self();
    for (unsigned i = 1; i < p->l->nr_cpus; i++)
        s->threads[i] = p->others->cpu[i].thread;
    atomic_store(&s->ready, true);
}

static int run_guest(struct run_phase *p)
{
    int status;

    if (start_console(p->l, &p->console, p->sandbox, &p->e))
        return STATUS_ERROR;
    if ((p->l->has_gdb && gdb_start(&p->l->gdb, p->sandbox, &p->e)) ||
        start_devices(p->l, p->sandbox, &p->e) || start_control(p)) {
        stop_gdb(p, STATUS_ERROR);
        stop_devices(p->l, STATUS_ERROR, &p->e);
        console_stop(&p->console);
        return STATUS_ERROR;
    }
    p->run.devices = p->l->devices;
    p->run.gdb = p->l->has_gdb ? &p->l->gdb : NULL;
    p->run.hold = &p->l->save.hold;
    /* The others' threads start before this one's sandbox, which forbids
     * new threads; each enters its own. */
    if (secondary_vcpus_start(p->others, &p->run, p->l->nr_cpus, p->sandbox, &p->e))
        status = STATUS_ERROR;
    else {
        save_ready(p);
        status = p->sandbox && sandbox_enter(0, &p->e) ? STATUS_ERROR
                                                       : guest_run(&p->run, &p->e);
        status = secondary_vcpus_finish(p->others, &p->run, status, &p->e);
    }
    control_server_stop(&p->control);
    status = stop_devices(p->l, status, &p->e);
    /* A ring the guest corrupted on its way out still breaks the rules. */
    if (console_stop(&p->console) && status != STATUS_GUEST_STOPPED) {
        fail(&p->e, "guest stopped: %s", p->console.problem);
        status = STATUS_GUEST_STOPPED;
    }
    /* Output lost at the very end still fails the run, as cat would. */
    if (status == STATUS_POWEROFF && console_output_failed(&p->console, &p->e))
        status = STATUS_ERROR;
    /* Last: the command's status is known once the console is drained. */
    stop_gdb(p, status);
    return status;
}

static void *vcpu_thread(void *arg)
{
    struct run_phase *p = arg;
    sigset_t none;

    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);   /* the stop signals are ours */
    p->status = run_guest(p);
    return NULL;
}

/* Run the guest on a thread of its own, which takes SIGINT, SIGTERM and
 * the SIGUSR1 kick (guest_run_signals()) while this one waits. */
static int run_on_vcpu_thread(struct run_phase *p, struct error *e)
{
    sigset_t stops, old;
    pthread_t t;

    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &stops, &old);
    if (pthread_create(&t, NULL, vcpu_thread, p)) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return fail(e, "cannot start the vCPU thread");
    }
    pthread_join(t, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (p->e.msg[0])
        *e = p->e;
    return p->status;
}

/* The guest crashed or was stopped at a known place: say where, naming
 * it with the kernel's symbols. After the run, outside the sandbox, once
 * the console's last output is out: the line comes after it. */
static bool crash_to_name(const struct guest_where *w, int status, const struct error *e)
{
    return w->known && w->status == status && e->msg[0];
}

/* What the run left to say with the kernel's symbols: the crash line, and
 * with --stats the patch table. */
static void say_with_symbols(struct launch *l, const struct options *o,
                             const struct guest_where *w, int status, struct error *e)
{
    const struct kernel_symbols *syms;

    wait_for_symbols(l);
    syms = l->syms_named ? &l->syms : NULL;
    if (crash_to_name(w, status, e))
        crash_line_append(e, w, syms);
    if (o->stats)
        stats_print_with_symbols(stderr, l->hole.shared, syms);
}

static void release(struct launch *l)
{
    if (l->has_gdb)
        gdb_release(&l->gdb);
    wait_for_symbols(l);
    kernel_symbols_release(&l->syms);
    kvm_vm_destroy(&l->vm);
    if (l->doorbell_fd >= 0)
        close(l->doorbell_fd);
    if (l->device_doorbell_fd >= 0)
        close(l->device_doorbell_fd);
    disks_close(l->disks, l->nr_disks);
    free(l->devices);
    net_link_close(l->link);
    guest_memory_release(&l->gm);
    file_release(&l->initrd);
    file_release(&l->kernel);
    snapshot_release(&l->snap);
}

int launch(const struct options *o, struct error *e)
{
    return launch_with(o, NULL, e);
}

int launch_with(const struct options *o, const struct launch_io *io,
                struct error *e)
{
    struct launch l;
    struct options chosen;
    struct run_phase p;
    struct secondary_vcpus *others = NULL;
    struct sigaction ignore = { .sa_handler = SIG_IGN }, old_pipe;
    int status = STATUS_ERROR, stopped;

    memset(&l, 0, sizeof(l));
    l.doorbell_fd = l.device_doorbell_fd = -1;
    l.io = io;
    l.stats = &p.run.stats;
    l.nr_cpus = o->cpus ? o->cpus : 1;
    l.name = o->name;
    kvm_vm_init(&l.vm);
    hold_init(&l.save.hold);
    sigaction(SIGPIPE, NULL, &old_pipe);   /* restored at the end */
    others = calloc(1, sizeof(*others));
    if (!others) {
        fail(e, "out of memory");
        goto out;
    }
    /* First: a port in use is a mistake on the command line. */
    if (o->gdb_port) {
        l.has_gdb = true;
        if (gdb_listen(&l.gdb, o->gdb_port, o->gdb_wait, l.nr_cpus, e)) {
            status = STATUS_USAGE;
            goto out;
        }
    }
    if (o->restore) {
        chosen = *o;
        status = restore_vm(&l, o, e);
        if (status)
            goto out;
        status = STATUS_ERROR;
    } else {
        if (choose_kernel(&l, o, &chosen, e) || load_files(&l, &chosen, e) ||
            build_memory(&l, &chosen, e) || start_vm(&l, &chosen, e))
            goto out;
        prepare_save(&l, &chosen);
        prepare_direct_calls(&l, &chosen);
        prepare_gdb(&l);
    }
    /* A closed stdout must be a write error that ends the run with a
     * message (console.h), not a silent death by SIGPIPE. */
    sigaction(SIGPIPE, &ignore, NULL);
    guest_run_signals();
    /* Before the console starts: its marks read run.stats. */
    p = (struct run_phase){
        .l = &l, .sandbox = !o->no_sandbox, .others = others,
        .run = { .vm = &l.vm, .vcpu = &l.vm.vcpus[0], .hole = &l.hole, .gm = &l.gm,
                 .console = &p.console, .stats.tsc_khz = kvm_tsc_khz(&l.vm) },
    };
    status = run_on_vcpu_thread(&p, e);
    stopped = status;
    terminal_restore();
    status = exit_status(&p.console, status);
    if (atomic_load(&l.save.ended))
        fprintf(stderr, "perch: the guest was saved (perch save); this run ends here\n");
    if (o->stats)
        stats_print(stderr, l.hole.shared, &p.run.stats, &l.vm);
    say_with_symbols(&l, &chosen, &p.run.where, stopped, e);
    if (o->stats_cpu)
        stats_print_cpu(stderr, l.hole.shared);
    if (o->stats && l.link && l.devices)
        stats_print_card(stderr, &l.devices->vif.netif.counts);
out:
    release(&l);
    free(others);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return status;
}
