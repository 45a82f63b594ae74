/*
 * What `perch image debian` puts in the root tree: Debian 12 minbase with
 * systemd, mmdebstrap's arguments, and the files perch adds (the perch-cmd
 * unit and script, fstab, hostname, eth0 by DHCP, the kernel's Xen
 * modules). A change here wants a new IMAGE_RECIPE (image.h).
 */
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"

/* Beyond minbase (which has login and passwd): systemd as init, udev to
 * load modules, e2fsprogs for the root's fsck, iproute2 for networking. */
#define PACKAGES "systemd-sysv,udev,kmod,e2fsprogs,iproute2,procps"

/* Where the files wait inside the tree for the hook that copies them into
 * place as the tree's root (sync-in keeps the outside owner's uid). */
#define STAGE_INSIDE "/tmp/perch-files"

/*
 * Run by perch-cmd.service when perch's initramfs left a command in
 * /run/perch/cmd (`perch run --root DEV -- CMD ARGS`): its arguments,
 * each ended by a NUL byte (initramfs_encode_cmd). The command runs on
 * hvc0; its status (128+N if signal N ended it, 127 if not found) goes to
 * perch as "\033]perch-exit;N\007", then the guest powers off.
 */
static const char perch_cmd_script[] =
"#!/bin/sh\n"
"# perch-cmd: run the command perch put in /run/perch/cmd (arguments each\n"
"# ended by a NUL byte), report its status to perch on hvc0, power off.\n"
"# Written by perch image; started by perch-cmd.service.\n"
"cmd=/run/perch/cmd\n"
"result=/run/perch/status\n"
"\n"
"if [ \"${1-}\" = --exec ]; then\n"
"    shift\n"
"    # env: always a program, as perch's own /init runs it (127: not found)\n"
"    env -- \"$@\"\n"
"    echo $? >\"$result\"\n"
"    exit 0\n"
"fi\n"
"\n"
"# sh cannot hold a NUL byte: xargs -0 splits the file into arguments and\n"
"# runs this script again with them (-x: all in one call or none; -a keeps\n"
"# stdin, the console, for the command).\n"
"rm -f \"$result\"\n"
"xargs -0 -x -a \"$cmd\" \"$0\" --exec\n"
"status=$(cat \"$result\" 2>/dev/null) || status=127\n"
"printf '\\033]perch-exit;%s\\007' \"$status\" >/dev/hvc0\n"
"systemctl poweroff\n";

/* Type=idle: after the boot's jobs, so its output does not mix with
 * systemd's status lines. The console is the command's (input too). */
static const char perch_cmd_unit[] =
"# perch run --root DEV -- CMD: run CMD once the system is up, then power\n"
"# off (written by perch image; /usr/local/sbin/perch-cmd does the work).\n"
"[Unit]\n"
"Description=perch's command (perch run -- CMD)\n"
"ConditionPathExists=/run/perch/cmd\n"
"After=getty.target systemd-user-sessions.service\n"
"\n"
"[Service]\n"
"Type=idle\n"
"ExecStart=/usr/local/sbin/perch-cmd\n"
"StandardInput=tty\n"
"StandardOutput=tty\n"
"StandardError=tty\n"
"TTYPath=/dev/hvc0\n"
"TTYReset=yes\n"
"WorkingDirectory=/root\n"
"Environment=HOME=/root TERM=linux\n"
"\n"
"[Install]\n"
"WantedBy=multi-user.target\n";

/* With a command, hvc0 is the command's: no login prompt beside it. */
static const char getty_dropin[] =
"# perch: with a command from perch (perch-cmd.service), hvc0 is its own.\n"
"[Unit]\n"
"ConditionPathExists=!/run/perch/cmd\n";

static const char network[] =
"# eth0 by DHCP (perch's network back end), written by perch image.\n"
"[Match]\n"
"Name=eth0\n"
"\n"
"[Network]\n"
"DHCP=yes\n";

static const struct staged_file {
    const char *path;
    const char *text;
    unsigned mode;
} files[] = {
    { "etc/fstab", "# written by perch image: perch run --disk FILE --root /dev/xvda\n"
                   "/dev/xvda / ext4 errors=remount-ro 0 1\n", 0644 },
    { "etc/hostname", "perch\n", 0644 },
    { "etc/hosts", "127.0.0.1\tlocalhost\n127.0.1.1\tperch\n"
                   "::1\t\tlocalhost ip6-localhost ip6-loopback\n", 0644 },
    { "etc/systemd/system/perch-cmd.service", perch_cmd_unit, 0644 },
    { "etc/systemd/system/serial-getty@hvc0.service.d/perch.conf", getty_dropin, 0644 },
    { "etc/systemd/network/80-perch-eth0.network", network, 0644 },
    { "usr/local/sbin/perch-cmd", perch_cmd_script, 0755 },
};

/* The kernel's files under lib/modules/KVER that udev and modprobe need
 * for the Xen front ends (the rest of the kernel package stays out). */
static const char *const module_files[] = {
    "kernel/drivers/block/xen-blkfront.ko",
    "kernel/drivers/net/xen-netfront.ko",
    "modules.builtin", "modules.builtin.modinfo", "modules.order",
};

static int stage(const char *dir, const char *name, const void *bytes,
                 size_t size, unsigned mode, struct error *e)
{
    char path[PATH_MAX], parent[PATH_MAX];

    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= PATH_MAX)
        return fail(e, "the path %s/%s is too long", dir, name);
    snprintf(parent, sizeof(parent), "%s", path);
    *strrchr(parent, '/') = 0;
    if (file_make_dirs(parent, e) || file_write_new(path, bytes, size, mode, e))
        return -1;
    /* file_write_new's mode passes through the umask */
    if (chmod(path, mode) < 0)
        return fail(e, "cannot chmod %s: %s", path, strerror(errno));
    return 0;
}

/* xen-blkfront.ko and xen-netfront.ko from linux-image-KVER, the package
 * of the kernel perch boots, so they match it. */
static int stage_modules(struct default_guest *g, const char *kver,
                         const char *work, const char *dir, struct error *e)
{
    char package[128], deb_dir[PATH_MAX], unpacked[PATH_MAX];
    char from[PATH_MAX], to[PATH_MAX];

    snprintf(package, sizeof(package), "linux-image-%s", kver);
    if (snprintf(deb_dir, sizeof(deb_dir), "%s/deb", work) >= PATH_MAX ||
        snprintf(unpacked, sizeof(unpacked), "%s/kernel", work) >= PATH_MAX)
        return fail(e, "the path %s is too long", work);
    if (mkdir(deb_dir, 0755) < 0)
        return fail(e, "cannot create %s: %s", deb_dir, strerror(errno));
    fprintf(stderr, "perch: fetching the Xen modules of %s ...\n", package);
    if (default_guest_unpack(g, package, deb_dir, unpacked, e))
        return -1;
    for (size_t i = 0; i < sizeof(module_files) / sizeof(module_files[0]); i++) {
        struct file_data f;
        int rc;

        if (snprintf(from, sizeof(from), "%s/lib/modules/%s/%s", unpacked, kver,
                     module_files[i]) >= PATH_MAX ||
            snprintf(to, sizeof(to), "usr/lib/modules/%s/%s", kver,
                     module_files[i]) >= PATH_MAX)
            return fail(e, "the path %s is too long", unpacked);
        if (file_read_all(from, &f, e))
            return -1;
        rc = stage(dir, to, f.bytes, f.size, 0644, e);
        file_release(&f);
        if (rc)
            return -1;
    }
    file_remove_tree(deb_dir);
    file_remove_tree(unpacked);
    return 0;
}

int image_recipe_stage(struct default_guest *g, const char *kver,
                       const char *work, const char *dir, struct error *e)
{
    if (mkdir(dir, 0755) < 0)
        return fail(e, "cannot create %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (stage(dir, files[i].path, files[i].text, strlen(files[i].text),
                  files[i].mode, e))
            return -1;
    return stage_modules(g, kver, work, dir, e);
}

/* s in single quotes for sh and for mmdebstrap's shellwords. */
static int quoted(char *out, size_t size, const char *s)
{
    size_t n = 0;

    if (size < 3)
        return -1;
    out[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : (char[]){ *s, 0 };

        if (n + strlen(piece) + 2 > size)
            return -1;
        memcpy(out + n, piece, strlen(piece));
        n += strlen(piece);
    }
    out[n++] = '\'';
    out[n] = 0;
    return 0;
}

/* Append a printf'd string to buf, as the next argument. */
static char *arg(char **buf, size_t *left, const char *fmt, const char *s1,
                 const char *s2)
{
    char *start = *buf;
    int n = snprintf(start, *left, fmt, s1, s2);

    if (n < 0 || (size_t)n >= *left)
        return NULL;
    *buf += n + 1;
    *left -= n + 1;
    return start;
}

int image_recipe_argv(const char *dir, const char *kver, const char *out,
                      char *argv[], char *buf, size_t size, struct error *e)
{
    char q[PATH_MAX * 4 + 3];
    int a = 0;

    if (quoted(q, sizeof(q), dir))
        return fail(e, "the path %s is too long", dir);
    argv[a++] = "mmdebstrap";
    argv[a++] = "--variant=minbase";
    argv[a++] = "--include=" PACKAGES;
    /* as root: root mode; as a user: in a user namespace (subuids) */
    argv[a++] = geteuid() ? "--mode=unshare" : "--mode=root";
    argv[a++] = "--customize-hook=mkdir -p \"$1\"" STAGE_INSIDE;
    argv[a++] = arg(&buf, &size, "--customize-hook=sync-in %s %s", q, STAGE_INSIDE);
    /* cp without -p: the files become the tree's root's, with their modes */
    argv[a++] = "--customize-hook=cp -R \"$1\"" STAGE_INSIDE "/. \"$1\"/ && "
                "rm -rf \"$1\"" STAGE_INSIDE;
    /* an empty password field: login lets root in (pam_unix's nullok) */
    argv[a++] = "--customize-hook=chroot \"$1\" passwd --delete root";
    argv[a++] = "--customize-hook=chroot \"$1\" systemctl enable perch-cmd.service "
                "serial-getty@hvc0.service systemd-networkd.service";
    /* nothing to wait for until there is a network back end */
    argv[a++] = "--customize-hook=chroot \"$1\" systemctl disable "
                "systemd-networkd-wait-online.service";
    argv[a++] = arg(&buf, &size, "--customize-hook=chroot \"$1\" depmod %s%s", kver, "");
    argv[a++] = "bookworm";
    argv[a++] = (char *)out;
    argv[a] = NULL;
    for (int i = 0; i < a; i++)
        if (!argv[i])
            return fail(e, "mmdebstrap's arguments are too long");
    return 0;
}
