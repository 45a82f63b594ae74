/*
 * perch's own initramfs, built in memory on every run when the user gives
 * no --initrd: perch's /init (initramfs/init.c, carried inside build/perch),
 * the usual directories, busybox with links for its common applets when
 * perch has it cached, /bin/perchbench (bench/perchbench.c, also carried
 * inside build/perch), /perch/cmd for `perch run -- CMD ARGS`, the default
 * kernel's Xen front ends (or for QEMU its virtio drivers) as
 * /lib/modules/<name>.ko (/init loads them first), /perch/root naming the
 * --root device (/init boots its init) and for --net /perch/net (/init
 * brings eth0 up by DHCP, busybox's udhcpc running /perch/dhcp-event, a
 * link to /init, to apply the lease).
 */
#ifndef PERCH_INITRAMFS_H
#define PERCH_INITRAMFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../base/file.h"

/* A kernel module, /lib/modules/<name>: its file name, e.g. xen-blkfront.ko. */
struct initramfs_module {
    const char *name;
    const uint8_t *bytes;
    size_t size;
};

struct initramfs_config {
    const uint8_t *init;           /* the /init binary */
    size_t init_bytes;
    const uint8_t *bench;          /* /bin/perchbench; NULL: none */
    size_t bench_bytes;
    const uint8_t *busybox;        /* NULL: no busybox, /init only */
    size_t busybox_bytes;
    char *const *cmd;              /* NULL: the guest runs a shell */
    int cmd_argc;
    const struct initramfs_module *modules;   /* built for this kernel only */
    int nr_modules;
    const char *root;              /* /perch/root, e.g. "/dev/xvda1"; NULL:
                                      none, /init stays in the initramfs */
    bool net;                      /* --net: /perch/net, and /init brings
                                      eth0 up by DHCP */
    bool small_disk_requests;      /* blkfront keeps Linux's defaults */
};

/* The applets linked to /bin/busybox, NULL-ended. */
extern const char *const initramfs_applets[];

/* Build the archive into out (file_release frees it). Returns 0, or -1. */
int initramfs_build(const struct initramfs_config *cfg, struct file_data *out,
                    struct error *e);

/* /perch/cmd: every argument followed by a NUL, so arguments may hold any
 * byte but NUL (as in execve). Returns a malloc'd buffer, or NULL. */
char *initramfs_encode_cmd(char *const *argv, int argc, size_t *bytes);

/* perch's /init, embedded in the perch binary (launcher/boot/images.c). */
void initramfs_init_image(const uint8_t **bytes, size_t *size);

/* perchbench, embedded likewise (launcher/boot/images.c). */
void initramfs_bench_image(const uint8_t **bytes, size_t *size);

#endif
