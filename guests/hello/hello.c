/*
 * hello: the first perch test guest. It prints a greeting, checks what the
 * builder handed over (start_info, the boot stack), makes a few hypercalls
 * whose answers are fixed by the ABI (xen_version, unknown numbers,
 * console_io with bad arguments), and shuts down the way the command line
 * says: shutdown=poweroff (default) | reboot | crash.
 */
#include "rt.h"

const char guest_name[] = "hello";

static void check_start_info(const struct start_info *si)
{
    /* Top of the memory the builder may have mapped (VIRT_BASE + RAM size,
     * capped at the top of the address space). */
    uint64_t ram_end = si->nr_pages < (-RT_VIRT_BASE >> XEN_PAGE_SHIFT)
        ? RT_VIRT_BASE + (si->nr_pages << XEN_PAGE_SHIFT) : ~0ull;
    uint64_t rsp = (uint64_t)__builtin_frame_address(0);
    size_t mlen = strlen(XEN_START_INFO_MAGIC);

    check("start_info_magic", !strncmp(si->magic, XEN_START_INFO_MAGIC, mlen),
          "magic is \"%.32s\"", si->magic);
    printk("hello: start_info %p nr_pages %lu (%lu KiB) flags %#x\n",
           (const void *)si, si->nr_pages, si->nr_pages * 4, si->flags);
    printk("hello: pt_base %#lx nr_pt_frames %lu mfn_list %#lx boot rsp %#lx\n",
           si->pt_base, si->nr_pt_frames, si->mfn_list, rt_boot_rsp);

    check("start_info_nr_pages", si->nr_pages > 0, "nr_pages is 0");
    check("start_info_pt_base",
          si->pt_base && !(si->pt_base & (XEN_PAGE_SIZE - 1)) &&
          si->pt_base >= (uint64_t)_image_end && si->pt_base < ram_end &&
          si->nr_pt_frames > 0,
          "pt_base %#lx (nr_pt_frames %lu) is not a page after the image "
          "(ends %p) and below %#lx", si->pt_base, si->nr_pt_frames,
          (void *)_image_end, ram_end);
    check("start_info_mfn_list",
          si->mfn_list && !(si->mfn_list & (XEN_PAGE_SIZE - 1)),
          "mfn_list %#lx is zero or not page aligned", si->mfn_list);
    /* The builder's stack is the page after the page tables (rsp = its
     * top); ours is the one in .bss head.S switched to. */
    check("boot_stack",
          !(rt_boot_rsp & (XEN_PAGE_SIZE - 1)) && rt_boot_rsp > si->pt_base &&
          rt_boot_rsp <= ram_end &&
          rsp >= (uint64_t)rt_stack_bottom && rsp < (uint64_t)rt_stack_top,
          "boot rsp %#lx (pt_base %#lx, RAM end %#lx), rsp %#lx "
          "(stack %p-%p)", rt_boot_rsp, si->pt_base, ram_end, rsp,
          (void *)rt_stack_bottom, (void *)rt_stack_top);
}

static void check_xen_version(void)
{
    long v = hc_xen_version(XENVER_version, NULL);

    printk("hello: xen version %ld.%ld\n", v >> 16, v & 0xffff);
    check("xen_version", v >= 0 && (v >> 16) >= 3,
          "XENVER_version returned %ld (%#lx), want major >= 3", v, v);
}

static void check_unknown_hypercalls(void)
{
    /* Unassigned inside the table, past its end, and far out of range. */
    static const unsigned long nrs[] = { 60, 1000, ~0ul };
    char what[32];

    for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
        fmt_snprintf(what, sizeof(what), "hypercall %#lx", nrs[i]);
        if (!expect_eq("unknown_hypercall_enosys", what,
                       hypercall0(nrs[i]), -XEN_ENOSYS))
            return;
    }
    test_pass("unknown_hypercall_enosys");
}

static void check_console_io(void)
{
    static const struct {
        const char *what;
        unsigned long addr;
    } bad[] = {
        { "non-canonical buffer", 0x8000000000000000ul },
        { "buffer in the hypervisor hole", 0xffff808000000000ul },
        { "NULL buffer", 0 },
    };
    bool ok = true;

    for (size_t i = 0; ok && i < sizeof(bad) / sizeof(bad[0]); i++)
        ok = expect_eq("console_bad_pointer", bad[i].what,
                       hc_console_io(CONSOLEIO_write, 16,
                                     (const void *)bad[i].addr),
                       -XEN_EFAULT);
    if (ok)
        test_pass("console_bad_pointer");

    check_eq("console_zero_length", hc_console_write("x", 0), 0);
    check_eq("console_unknown_op", hc_console_io(7, 1, "x"), -XEN_ENOSYS);
}

void guest_main(const struct start_info *si)
{
    const char *how = cmdline_get(si, "shutdown");
    unsigned int reason = SHUTDOWN_poweroff;

    printk("Hello from a perch PV guest\n");
    check_start_info(si);
    check_xen_version();
    check_unknown_hypercalls();
    check_console_io();

    if (!how || !strcmp(how, "poweroff"))
        how = "poweroff";
    else if (!strcmp(how, "reboot"))
        reason = SHUTDOWN_reboot;
    else if (!strcmp(how, "crash"))
        reason = SHUTDOWN_crash;
    else
        printk("hello: unknown shutdown=%s, powering off\n", how);

    printk("hello: %u passed, %u failed, shutdown=%s\n",
           tests_passed, tests_failed, how);
    printk("hello: done\n");
    xen_shutdown(reason);
}
