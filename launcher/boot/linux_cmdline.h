/*
 * The kernel command line perch gives Linux when the user gives none (and
 * QEMU TCG's under `perch bench --qemu`, the same but for the console).
 *
 * noreplace-smp: a Linux that finds one CPU rewrites every `lock` prefix
 * of its text to `ds` at boot (alternatives_smp_unlock), one text_poke
 * each, 8.9k of them in Debian's 6.1; every text_poke switches to a
 * temporary mm and back, two CR3 loads, so two ring-0 visits here
 * (docs/kvm.md): 17.8k of a boot's 18.5k visits. Keeping the prefixes
 * costs a locked instruction a few nanoseconds at CPL3. `--cmdline
 * console=hvc0` gives the old default back, to measure it.
 */
#ifndef PERCH_LINUX_CMDLINE_H
#define PERCH_LINUX_CMDLINE_H

#define LINUX_CMDLINE_OPTIONS "noreplace-smp"
#define LINUX_CMDLINE         "console=hvc0 " LINUX_CMDLINE_OPTIONS
#define LINUX_CMDLINE_QEMU    "console=ttyS0 " LINUX_CMDLINE_OPTIONS

#endif
