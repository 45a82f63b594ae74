/*
 * Booting a disk's own system (`perch run --disk FILE --root DEV`): /init
 * waits for the device (xen-blkfront finds its disks over xenbus a moment
 * after it loads), mounts it on /newroot, hands `-- CMD` on in /run/perch/cmd
 * for the disk's perch unit (`perch image` installs it), moves /dev, /proc
 * and /sys across, switches root as busybox's switch_root does, and execs
 * the disk's /sbin/init (systemd) as PID 1.
 *
 * Every failure says one line naming the device and the error, reports
 * status 1 and returns, so /init powers off and perch exits: PID 1 exiting
 * would be a kernel panic instead.
 */
#define _GNU_SOURCE   /* O_PATH */
#include "paths.h"
#include "root.h"
#include "say.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NEWROOT "/newroot"
#define DEVICE_MAX 128
/* Probing over xenbus takes well under a second; a device that is not
 * there after this long is not coming. */
#define WAIT_MS 20000
#define SAY_WAITING_MS 3000
#define POLL_MS 100

/* /perch/root: the device's path, perhaps with a newline. */
static bool read_device(char *dev, size_t size)
{
    int fd = open(ROOT_FILE, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, dev, size - 1);

    if (fd >= 0)
        close(fd);
    if (n < 0) {
        say("cannot read %s: %s", ROOT_FILE, strerror(errno));
        return false;
    }
    dev[n] = 0;
    dev[strcspn(dev, "\r\n")] = 0;
    if (dev[0] != '/') {
        say("%s names no device ('%s')", ROOT_FILE, dev);
        return false;
    }
    return true;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* devtmpfs makes the node once the driver has found the disk. */
static bool wait_for_device(const char *dev)
{
    struct stat st;

    for (int ms = 0;; ms += POLL_MS) {
        if (stat(dev, &st) == 0) {
            if (S_ISBLK(st.st_mode))
                return true;
            say("%s is not a block device", dev);
            return false;
        }
        if (errno != ENOENT) {
            say("cannot reach %s: %s", dev, strerror(errno));
            return false;
        }
        if (ms >= WAIT_MS) {
            say("%s did not appear in %d s (%s): is it one of the --disk "
                "devices (xvda, xvdb, ...)?", dev, WAIT_MS / 1000, strerror(ENOENT));
            return false;
        }
        if (ms == SAY_WAITING_MS)
            say("waiting up to %d s for %s (the disk driver is still finding "
                "its disks) ...", WAIT_MS / 1000, dev);
        sleep_ms(POLL_MS);
    }
}

/* Read-write; a read-only disk (--disk FILE,ro) is mounted read-only. */
static bool try_mount(const char *dev, const char *type, int *err)
{
    if (mount(dev, NEWROOT, type, 0, NULL) == 0)
        return true;
    if ((errno == EROFS || errno == EACCES) &&
        mount(dev, NEWROOT, type, MS_RDONLY, NULL) == 0) {
        say("note: %s is read-only: mounted read-only", dev);
        return true;
    }
    /* EINVAL only says "not this type"; any other error says more. */
    if (*err == 0 || *err == EINVAL)
        *err = errno;
    return false;
}

/* ext4 first (built into Debian's kernel), then each other filesystem
 * the kernel knows that lives on a device (not "nodev" in /proc/filesystems). */
static bool mount_device(const char *dev)
{
    char line[128];
    FILE *f;
    int err = 0;
    bool done;

    if (mkdir(NEWROOT, 0755) < 0 && errno != EEXIST) {
        say("cannot create %s for %s: %s", NEWROOT, dev, strerror(errno));
        return false;
    }
    done = try_mount(dev, "ext4", &err);
    f = done ? NULL : fopen("/proc/filesystems", "re");
    while (f && !done && fgets(line, sizeof(line), f)) {
        char *type = line + strspn(line, " \t");

        type[strcspn(type, " \t\r\n")] = 0;
        if (!strncmp(line, "nodev", 5) || !type[0] || !strcmp(type, "ext4"))
            continue;
        done = try_mount(dev, type, &err);
    }
    if (f)
        fclose(f);
    if (!done)
        say("cannot mount %s: %s", dev, err == EINVAL
            ? "no filesystem this kernel knows (Invalid argument)" : strerror(err));
    return done;
}

/* /sbin/init is often an absolute link (to /lib/systemd/systemd), which
 * must be followed inside the disk's root, not the initramfs's. */
static bool has_init(const char *dev)
{
    struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
    int root = open(NEWROOT, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fd = root < 0 ? -1 : (int)syscall(SYS_openat2, root, "sbin/init", &how, sizeof(how));
    struct stat st;
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
              (st.st_mode & 0111);

    if (!ok)
        say("%s has no /sbin/init to boot: %s", dev,
            fd < 0 ? strerror(errno) : "not an executable file");
    if (fd >= 0)
        close(fd);
    if (root >= 0)
        close(root);
    return ok;
}

static bool copy_file(const char *from, const char *to)
{
    char buf[4096];
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ssize_t n = 0;

    while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, n) != n) {
            n = -1;
            break;
        }
    if (in < 0 || out < 0 || n < 0)
        say("cannot copy %s to %s: %s", from, to, strerror(errno));
    if (out >= 0)
        close(out);
    if (in >= 0)
        close(in);
    return in >= 0 && out >= 0 && n == 0;
}

static bool make_dir(const char *dir, const char *dev)
{
    if (mkdir(dir, 0755) == 0 || errno == EEXIST)
        return true;
    say("cannot create %s on %s: %s", dir, dev, strerror(errno));
    return false;
}

/* systemd keeps a /run that is already mounted, so the command is still
 * there for the disk's perch unit, which runs it and reports its status. */
static bool hand_over_cmd(const char *dev)
{
    if (access(CMD_FILE, F_OK) < 0)
        return true;
    if (!make_dir(NEWROOT "/run", dev))
        return false;
    if (mount("tmpfs", NEWROOT "/run", "tmpfs", MS_NOSUID | MS_NODEV,
              "mode=0755") < 0) {
        say("cannot mount a tmpfs on %s/run: %s", dev, strerror(errno));
        return false;
    }
    return make_dir(NEWROOT "/run/perch", dev) &&
           copy_file(CMD_FILE, NEWROOT "/run/perch/cmd");
}

/* /dev, /proc and /sys go along, as they are (the console stays open). */
static bool move_mounts(const char *dev)
{
    static const char *const mounts[] = { "/dev", "/proc", "/sys", NULL };
    char to[64];

    for (int i = 0; mounts[i]; i++) {
        snprintf(to, sizeof(to), NEWROOT "%s", mounts[i]);
        if (!make_dir(to, dev))
            return false;
        if (mount(mounts[i], to, NULL, MS_MOVE, NULL) < 0) {
            say("cannot move %s onto %s: %s", mounts[i], dev, strerror(errno));
            return false;
        }
    }
    return true;
}

/* Everything on the initramfs (dir's filesystem, dev), but nothing mounted
 * on it: the memory it holds is the guest's, and unreachable after. */
static void delete_contents(int dir, dev_t dev)
{
    DIR *d = fdopendir(dir);
    struct dirent *de;

    if (!d) {
        close(dir);
        return;
    }
    while ((de = readdir(d))) {
        struct stat st;
        int sub;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            st.st_dev != dev)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            unlinkat(dirfd(d), de->d_name, 0);
            continue;
        }
        sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            delete_contents(sub, dev);
        unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* Only ever a RAM filesystem: never a disk that happens to be /. */
static void free_initramfs(void)
{
    struct statfs fs;
    struct stat st;
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (root < 0)
        return;
    if (fstatfs(root, &fs) < 0 || fstat(root, &st) < 0 ||
        (fs.f_type != RAMFS_MAGIC && fs.f_type != TMPFS_MAGIC)) {
        close(root);
        return;
    }
    delete_contents(root, st.st_dev);
}

/* The new root becomes /: the classic switch_root steps. */
static bool switch_root(const char *dev)
{
    if (chdir(NEWROOT) < 0) {
        say("cannot enter %s's root: %s", dev, strerror(errno));
        return false;
    }
    free_initramfs();
    if (mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
        chdir("/") < 0) {
        say("cannot make %s the root: %s", dev, strerror(errno));
        return false;
    }
    return true;
}

void boot_root(void)
{
    char dev[DEVICE_MAX];
    char *argv[] = { "/sbin/init", NULL };

    if (!read_device(dev, sizeof(dev)) || !wait_for_device(dev) ||
        !mount_device(dev))
        goto failed;
    if (!has_init(dev)) {
        umount(NEWROOT);
        goto failed;
    }
    if (!hand_over_cmd(dev) || !move_mounts(dev) || !switch_root(dev))
        goto failed;
    execv(argv[0], argv);
    say("cannot run /sbin/init on %s: %s", dev, strerror(errno));
failed:
    report_exit(1);
}
