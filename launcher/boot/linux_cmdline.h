/*
 * The kernel command line perch gives Linux when the user gives none.
 *
 * noreplace-smp: a Linux that finds one CPU rewrites every `lock` prefix
 * of its text to `ds` at boot (alternatives_smp_unlock), one text_poke
 * each, 8.9k of them in Debian's 6.1; every text_poke switches to a
 * temporary mm and back, two CR3 loads, so two ring-0 visits here
 * (docs/kvm.md): 17.8k of a boot's 18.5k visits. Keeping the prefixes
 * costs a locked instruction a few nanoseconds at CPL3. `--cmdline
 * console=hvc0` gives the old default back, to measure it. QEMU TCG under
 * `perch bench --qemu` keeps Linux's own default (`console=ttyS0` only):
 * there the rewrite is cheap and the locked instructions are not (its
 * boot took 4.3 s with noreplace-smp and 3.0 s without, 2026-12-03).
 */
#ifndef PERCH_LINUX_CMDLINE_H
#define PERCH_LINUX_CMDLINE_H

#define LINUX_CMDLINE "console=hvc0 noreplace-smp"

#endif
