/*
 * perch's own initramfs, built in memory on every run when the user gives
 * no --initrd: perch's /init (initramfs/init.c, carried inside build/perch),
 * the usual directories, busybox with links for its common applets when
 * perch has it cached, /bin/perchbench (bench/perchbench.c, also carried
 * inside build/perch) and /perch/cmd for `perch run -- CMD ARGS`.
 */
#ifndef PERCH_INITRAMFS_H
#define PERCH_INITRAMFS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "file.h"

struct initramfs_config {
    const uint8_t *init;           /* the /init binary */
    size_t init_bytes;
    const uint8_t *bench;          /* /bin/perchbench; NULL: none */
    size_t bench_bytes;
    const uint8_t *busybox;        /* NULL: no busybox, /init only */
    size_t busybox_bytes;
    char *const *cmd;              /* NULL: the guest runs a shell */
    int cmd_argc;
};

/* The applets linked to /bin/busybox, NULL-ended. */
extern const char *const initramfs_applets[];

/* Build the archive into out (file_release frees it). Returns 0, or -1. */
int initramfs_build(const struct initramfs_config *cfg, struct file_data *out,
                    struct error *e);

/* /perch/cmd: every argument followed by a NUL, so arguments may hold any
 * byte but NUL (as in execve). Returns a malloc'd buffer, or NULL. */
char *initramfs_encode_cmd(char *const *argv, int argc, size_t *bytes);

/* perch's /init, embedded in the perch binary (launcher/images.c). */
void initramfs_init_image(const uint8_t **bytes, size_t *size);

/* perchbench, embedded likewise (launcher/images.c). */
void initramfs_bench_image(const uint8_t **bytes, size_t *size);

#endif
