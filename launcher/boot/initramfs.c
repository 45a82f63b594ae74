/* perch's initramfs for a Linux guest: /init, busybox and its links, the command, modules, the root. */
#include "initramfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../disk/blkif.h"
#include "../disk/blkif_request.h"
#include "cpio.h"

/* Symlinks make these work as commands (`perch run -- ls /`); the shell
 * itself finds every applet without them (busybox's standalone shell). */
const char *const initramfs_applets[] = {
    "sh", "ash", "[", "[[", "awk", "basename", "cat", "chmod", "chown",
    "chroot", "clear", "cmp", "cp", "cut", "date", "dd", "df", "diff",
    "dirname", "dmesg", "du", "echo", "egrep", "env", "expr", "false", "fgrep",
    "find", "free", "grep", "gunzip", "gzip", "halt", "head", "hexdump",
    "hostname", "httpd", "id", "ifconfig", "ip", "kill", "killall", "less",
    "ln", "ls", "lsmod", "md5sum", "mkdir", "mknod", "mktemp", "more", "mount",
    "mv", "nc", "nproc", "nslookup", "od", "pidof", "ping", "poweroff",
    "printf", "ps", "pwd", "readlink", "realpath", "reboot", "rm", "rmdir",
    "route", "sed", "seq", "setsid", "sha256sum", "sleep", "sort", "stat",
    "stty", "sync", "sysctl", "tail", "tar", "tee", "test", "time", "timeout",
    "top", "touch", "tr", "true", "tty", "udhcpc", "umount", "uname", "uniq",
    "uptime", "vi", "watch", "wc", "wget", "which", "whoami", "xargs", "xxd",
    "yes", "zcat", NULL,
};

static const char *const dirs[] = {
    "dev", "proc", "sys", "bin", "sbin", "tmp", "etc", "perch", "perch/params",
    "lib", "lib/modules", NULL,
};

char *initramfs_encode_cmd(char *const *argv, int argc, size_t *bytes)
{
    size_t n = 0;
    char *buf, *p;

    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    buf = malloc(n ? n : 1);
    if (!buf)
        return NULL;
    p = buf;
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]) + 1;

        memcpy(p, argv[i], len);
        p += len;
    }
    *bytes = n;
    return buf;
}

/* /tmp is world-writable and sticky, as on any Linux system. */
static int add_dirs(struct cpio *c, struct error *e)
{
    for (int i = 0; dirs[i]; i++)
        if (cpio_add_dir(c, dirs[i], strcmp(dirs[i], "tmp") ? 0755 : 01777, e))
            return -1;
    /* For a kernel without the built-in dev/console, so init has a console. */
    return cpio_add_char_device(c, "dev/console", 0600, 5, 1, e);
}

static int add_busybox(struct cpio *c, const struct initramfs_config *cfg,
                       struct error *e)
{
    char name[64];

    if (!cfg->busybox)
        return 0;
    if (cpio_add_file(c, "bin/busybox", 0755, cfg->busybox, cfg->busybox_bytes, e))
        return -1;
    for (int i = 0; initramfs_applets[i]; i++) {
        strcpy(name, "bin/");
        strcat(name, initramfs_applets[i]);
        if (cpio_add_symlink(c, name, "busybox", e))
            return -1;
    }
    /* The kernel's own poweroff_cmd: what it runs when told to power off
     * (xenstore's control/shutdown, as `perch shutdown` and `xl
     * shutdown` tell it). */
    return cpio_add_symlink(c, "sbin/poweroff", "../bin/busybox", e);
}

/* After busybox: should busybox ever have an applet of that name, the
 * benchmark binary wins (cpio: the later entry replaces the earlier). */
static int add_bench(struct cpio *c, const struct initramfs_config *cfg,
                     struct error *e)
{
    if (!cfg->bench)
        return 0;
    return cpio_add_file(c, "bin/perchbench", 0755, cfg->bench,
                         cfg->bench_bytes, e);
}

static int add_cmd(struct cpio *c, const struct initramfs_config *cfg,
                   struct error *e)
{
    size_t bytes;
    char *buf;
    int rc;

    if (!cfg->cmd)
        return 0;
    buf = initramfs_encode_cmd(cfg->cmd, cfg->cmd_argc, &bytes);
    if (!buf)
        return fail(e, "out of memory encoding the command");
    rc = cpio_add_file(c, "perch/cmd", 0644, buf, bytes, e);
    free(buf);
    return rc;
}

/*
 * Linux's blkfront asks for at most 32 segments (128 KiB) a request on a
 * one-page ring unless told more; perch's back end takes 256 indirect
 * segments (1 MiB) on up to 16 pages (vbd.c), so /init tells it, unless
 * --small-disk-requests keeps Linux's defaults to measure the difference.
 */
#define BLKFRONT_MODULE "xen-blkfront.ko"
#define BLKFRONT_PARAMS_(segs, order) \
    "max_indirect_segments=" #segs " max_ring_page_order=" #order
#define BLKFRONT_PARAMS(segs, order) BLKFRONT_PARAMS_(segs, order)

static int add_module_params(struct cpio *c, const struct initramfs_config *cfg,
                             const char *module, struct error *e)
{
    static const char params[] =
        BLKFRONT_PARAMS(BLKIF_MAX_INDIRECT_SEGMENTS, BLKIF_MAX_RING_ORDER);

    if (strcmp(module, BLKFRONT_MODULE) || cfg->small_disk_requests)
        return 0;
    return cpio_add_file(c, "perch/params/" BLKFRONT_MODULE, 0644, params,
                         sizeof(params) - 1, e);
}

/* Flat in /lib/modules: /init loads every *.ko there, a module that needs
 * another once that one is in (initramfs/init.c), with its parameters from
 * /perch/params if there are any. */
static int add_modules(struct cpio *c, const struct initramfs_config *cfg,
                       struct error *e)
{
    char name[128];

    for (int i = 0; i < cfg->nr_modules; i++) {
        const struct initramfs_module *m = &cfg->modules[i];
        size_t n = strlen(m->name);

        if (n < 4 || strchr(m->name, '/') || strcmp(m->name + n - 3, ".ko") ||
            snprintf(name, sizeof(name), "lib/modules/%s", m->name) >= (int)sizeof(name))
            return fail(e, "bad module name '%s' (want NAME.ko)", m->name);
        if (cpio_add_file(c, name, 0644, m->bytes, m->size, e) ||
            add_module_params(c, cfg, m->name, e))
            return -1;
    }
    return 0;
}

static int add_root(struct cpio *c, const struct initramfs_config *cfg,
                    struct error *e)
{
    if (!cfg->root)
        return 0;
    return cpio_add_file(c, "perch/root", 0644, cfg->root, strlen(cfg->root), e);
}

/* The marker, and udhcpc's script: /init again, by another name. */
static int add_net(struct cpio *c, const struct initramfs_config *cfg,
                   struct error *e)
{
    if (!cfg->net)
        return 0;
    return cpio_add_file(c, "perch/net", 0644, "eth0\n", 5, e) ||
           cpio_add_symlink(c, "perch/dhcp-event", "/init", e);
}

int initramfs_build(const struct initramfs_config *cfg, struct file_data *out,
                    struct error *e)
{
    struct cpio c;

    cpio_init(&c);
    if (add_dirs(&c, e) ||
        cpio_add_file(&c, "init", 0755, cfg->init, cfg->init_bytes, e) ||
        add_busybox(&c, cfg, e) || add_bench(&c, cfg, e) ||
        add_cmd(&c, cfg, e) || add_modules(&c, cfg, e) || add_root(&c, cfg, e) ||
        add_net(&c, cfg, e) ||
        cpio_finish(&c, e)) {
        cpio_release(&c);
        return -1;
    }
    out->bytes = cpio_take(&c, &out->size);
    return 0;
}
