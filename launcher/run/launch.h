/* `perch run`: build the domain, start the VM, run the guest to its end. */
#ifndef PERCH_LAUNCH_H
#define PERCH_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "../boot/default_guest.h"
#include "../base/error.h"
#include "../base/file.h"
#include "stats.h"

/* A run that a program drives instead of a person (`perch bench`): the
 * guest's console output goes to output instead of stdout, stdin is left
 * alone, and each counter mark (osc_filter.h) comes with perch's counters at
 * that moment. Both are called on the console's threads, under its lock. */
struct launch_io {
    void (*output)(void *arg, const uint8_t *bytes, size_t n);
    void (*mark)(void *arg, const char *name, bool end,
                 const struct perch_counters *now);
    void *arg;
};

/* Returns perch's exit status (status.h); e says why when it is not 0. */
int launch(const struct options *o, struct error *e);

/* The same, driven through io (NULL: as launch()). */
int launch_with(const struct options *o, const struct launch_io *io,
                struct error *e);

/* The initramfs launch() gives a Linux kernel for o (its command, perch's
 * /init, busybox, perchbench), for another machine to boot the default
 * kernel with (`perch bench --qemu`): with that machine's drivers, the
 * modules of set (NULL: none). Returns 0, or -1 with e saying why. */
int launch_initramfs(const struct options *o,
                     const struct default_guest_module_set *modules,
                     struct file_data *out, struct error *e);

#endif
