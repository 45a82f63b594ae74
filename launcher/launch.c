/*
 * The journey of `perch run`, in order:
 *   1. read and check the kernel (and initrd) before touching KVM;
 *   2. lay out machine memory: perch's private frames, then the guest's;
 *   3. build the hole (Switcher, Host, M2P, alias) and the PV domain, and
 *      put the hole into the guest's first L4;
 *   4. create the VM over that memory, wire the console doorbell, set the
 *      vCPU at the kernel's entry, at CPL3;
 *   5. run until the guest ends, then report.
 */
#include "launch.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "domain.h"
#include "file.h"
#include "hole.h"
#include "kvm.h"
#include "run.h"
#include "stats.h"
#include "status.h"

struct launch {
    struct file_data kernel, initrd;
    struct pv_image image;
    struct guest_memory gm;
    struct hole hole;
    struct domain_layout layout;
    struct kvm_vm vm;
    int doorbell_fd;
};

static int load_files(struct launch *l, const struct options *o, struct error *e)
{
    if (file_read_all(o->kernel, &l->kernel, e))
        return -1;
    if (pv_image_parse(l->kernel.bytes, l->kernel.size, &l->image, e)) {
        struct error inner = *e;

        return fail(e, "%s: %s", o->kernel, inner.msg);
    }
    if (o->initrd && file_read_all(o->initrd, &l->initrd, e))
        return -1;
    return 0;
}

static int build_memory(struct launch *l, const struct options *o, struct error *e)
{
    uint64_t nr_pages = o->mem_mib << (20 - PAGE_SHIFT);
    struct vm_images images;
    struct domain_config cfg = {
        .cmdline = o->cmdline,
        .initrd = l->initrd.bytes,
        .initrd_bytes = l->initrd.size,
    };

    if (guest_memory_init(&l->gm, hole_private_frames(nr_pages), nr_pages))
        return fail(e, "cannot reserve %lu MiB for the guest", o->mem_mib);
    vm_images_get(&images);
    if (hole_build(&l->gm, &images, &l->hole, e))
        return -1;
    cfg.shared_info_mfn = l->hole.shared_info_mfn;
    if (domain_build(&l->gm, &l->image, &cfg, &l->layout, e))
        return -1;
    return hole_install(&l->gm, &l->hole, l->layout.l4_mfn, e);
}

static int start_vm(struct launch *l, const struct options *o, struct error *e)
{
    struct vcpu_boot boot = {
        .rip = l->hole.boot_entry,   /* the Host starts, then enters the guest */
        .rflags = 0x202,   /* real IF on; the guest's virtual IF is its upcall mask */
        .cr3 = l->layout.l4_mfn << PAGE_SHIFT,
        .gdt_base = SW_GDT_VA,
        .idt_base = SW_IDT_VA,
        .tss_base = SW_TSS_VA,
        .cs = FLAT_KERNEL_CS64,
        .ss = FLAT_KERNEL_SS64,
        .tss_selector = SW_TSS_SEL,
        .lstar = l->hole.lstar,
    };

    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    l->hole.shared->boot.guest_rip = l->layout.entry;
    l->hole.shared->boot.guest_rsp = l->layout.stack_top;
    l->hole.shared->boot.guest_rsi = l->layout.start_info_va;
    l->hole.shared->boot.strict = o->strict;
    if (kvm_vm_create(&l->vm, &l->gm, e) ||
        kvm_doorbell(&l->vm, l->hole.doorbell_gpa, &l->doorbell_fd, e))
        return -1;
    /* The guest's TSC starts near 0 with the vCPU: wall clock at TSC 0. */
    l->hole.shared->boot.tsc_khz = kvm_tsc_khz(&l->vm);
    l->hole.shared->boot.wallclock_ns = now.tv_sec * 1000000000ull + now.tv_nsec;
    return kvm_vcpu_boot(&l->vm, &boot, e);
}

static void release(struct launch *l)
{
    kvm_vm_destroy(&l->vm);
    if (l->doorbell_fd >= 0)
        close(l->doorbell_fd);
    guest_memory_release(&l->gm);
    file_release(&l->initrd);
    file_release(&l->kernel);
}

int launch(const struct options *o, struct error *e)
{
    struct launch l;
    struct console console;
    struct guest_run run;
    int status = STATUS_ERROR;

    memset(&l, 0, sizeof(l));
    l.doorbell_fd = -1;
    l.vm.kvm_fd = l.vm.vm_fd = l.vm.vcpu_fd = -1;
    if (load_files(&l, o, e) || build_memory(&l, o, e) || start_vm(&l, o, e))
        goto out;
    guest_run_signals();
    if (console_start(&console, l.hole.shared, l.doorbell_fd, STDOUT_FILENO)) {
        fail(e, "cannot start the console thread");
        goto out;
    }
    run = (struct guest_run){ .vm = &l.vm, .hole = &l.hole, .console = &console,
                              .stats.tsc_khz = kvm_tsc_khz(&l.vm) };
    status = guest_run(&run, e);
    /* A ring the guest corrupted on its way out still breaks the rules. */
    if (console_stop(&console) && status != STATUS_GUEST_STOPPED) {
        fail(e, "guest stopped: %s", console.problem);
        status = STATUS_GUEST_STOPPED;
    }
    if (o->stats)
        stats_print(stderr, l.hole.shared, &run.stats);
out:
    release(&l);
    return status;
}
