/*
 * The default kernel's Xen front ends, or for QEMU its virtio drivers (a
 * set of default_guest.h), read from perch's cache for the initramfs,
 * which puts them in /lib/modules for /init to load. Only the kernel they
 * were built for gets them: a user's own KERNEL may have the drivers built
 * in, and another kernel refuses the modules.
 */
#ifndef PERCH_GUEST_MODULES_H
#define PERCH_GUEST_MODULES_H

#include "default_guest.h"
#include "../base/file.h"
#include "initramfs.h"

#define GUEST_MODULES_MAX 12

struct guest_modules {
    struct file_data files[GUEST_MODULES_MAX];
    struct initramfs_module list[GUEST_MODULES_MAX];
    int n;
};

/* set's modules for kernel, if it is g's cached one (fetched if missing);
 * else, or with no set, none. Failing is a note on stderr, as the guest
 * boots without them (with no disk or network): m then holds none. */
void guest_modules_load(struct default_guest *g,
                        const struct default_guest_module_set *set,
                        const char *kernel, struct guest_modules *m);

void guest_modules_release(struct guest_modules *m);

#endif
