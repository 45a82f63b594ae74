/*
 * perch's /init: the first process of the initramfs the Launcher builds
 * (launcher/boot/initramfs.c). It mounts the usual filesystems, puts the console
 * on stdin/stdout/stderr, loads the kernel modules in /lib/modules (the
 * default kernel's Xen disk and network front ends, each with the
 * parameters in /perch/params/NAME.ko if there is one), then either
 *   - boots the disk /perch/root names (`perch run --root DEV`), with its
 *     own /sbin/init as PID 1 (root.c), powering off if it cannot (the
 *     disk's system brings up its own network); or
 *   - with /perch/net (`perch run --net`), first brings eth0 up by DHCP
 *     (net.c), then as below; and
 *   - runs the command in /perch/cmd (`perch run -- CMD ARGS`), tells the
 *     Launcher its exit status with "\033]perch-exit;N\007" on the console,
 *     and powers off; or
 *   - runs an interactive /bin/sh (busybox) and powers off when it exits.
 *
 * Its first output is a mark, "\033]perch-mark;init;begin\007": boot is
 * over (`perch bench` times boots by it). Nothing here is Xen's: the
 * console is whatever the kernel made /dev/console (hvc0 under perch,
 * ttyS0 under QEMU), so the same initramfs boots on either.
 *
 * PID 1 must never exit (the kernel panics), so every path ends in
 * reboot(). Built static (`gcc -static`): the initramfs has no libc.
 */
#include "net.h"
#include "paths.h"
#include "root.h"
#include "say.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define MODULES_DIR "/lib/modules"
#define MODULES_MAX 16
#define SHELL "/bin/sh"
#define PATH_VALUE "/bin:/sbin:/usr/bin:/usr/sbin"
#define CMD_FILE_MAX (1 << 20)
/* Likewise a counter mark (launcher/console/osc_filter.h), named "init". */
#define BOOT_MARK "\033]perch-mark;init;begin\007"

/* Set by busybox's poweroff/halt (SIGUSR2/SIGUSR1) and reboot (SIGTERM),
 * which signal PID 1 rather than calling reboot() themselves. */
static volatile sig_atomic_t shutdown_signal;

static void mount_one(const char *type, const char *target)
{
    if (mkdir(target, 0755) < 0 && errno != EEXIST)
        say("cannot create %s: %s", target, strerror(errno));
    if (mount(type, target, type, MS_NOSUID | MS_NOEXEC, NULL) < 0 &&
        errno != EBUSY)
        say("cannot mount %s on %s: %s", type, target, strerror(errno));
}

/* devtmpfs first: /dev/console comes from it if the cpio lacked one. */
static void mount_dev(void)
{
    if (mkdir("/dev", 0755) < 0 && errno != EEXIST)
        say("cannot create /dev: %s", strerror(errno));
    if (mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL) < 0 &&
        errno != EBUSY)
        say("cannot mount devtmpfs on /dev: %s", strerror(errno));
}

/* The kernel usually hands init the console already, but not when the
 * initramfs had no /dev/console; open it again so 0, 1, 2 are certain. */
static void attach_console(void)
{
    int fd = open("/dev/console", O_RDWR | O_NOCTTY);

    if (fd < 0) {
        say_to_kernel_log("cannot open /dev/console");
        return;
    }
    for (int i = 0; i < 3; i++)
        if (fd != i)
            dup2(fd, i);
    if (fd > 2)
        close(fd);
}

static void on_shutdown_signal(int sig)
{
    shutdown_signal = sig;
}

/* No SA_RESTART: the signal must interrupt waitpid() in wait_for(). */
static void catch_shutdown_signals(void)
{
    struct sigaction sa = { .sa_handler = on_shutdown_signal };

    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* The real terminal behind /dev/console (say hvc0): /dev/console itself
 * cannot be a controlling terminal, and without one the shell has no job
 * control and Ctrl-C reaches nobody. */
static int open_console_tty(void)
{
    char active[128], path[160];
    FILE *f = fopen("/sys/class/tty/console/active", "r");
    char *name;

    if (!f)
        return -1;
    if (!fgets(active, sizeof(active), f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    active[strcspn(active, "\n")] = 0;
    /* The last one listed is the one /dev/console writes to. */
    name = strrchr(active, ' ');
    name = name ? name + 1 : active;
    snprintf(path, sizeof(path), "/dev/%s", name);
    return open(path, O_RDWR);
}

/* In the child: a new session whose controlling terminal is the console. */
static void take_console(void)
{
    int fd;

    if (setsid() < 0)
        return;
    fd = open_console_tty();
    if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0) {
        if (fd >= 0)
            close(fd);
        return;   /* keep /dev/console: it works, without job control */
    }
    for (int i = 0; i < 3; i++)
        dup2(fd, i);
    if (fd > 2)
        close(fd);
}

/* Like a shell: 127 when the command is not found, 126 when it cannot be
 * run, so `perch run -- nosuch` exits with the status a shell would give. */
static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    int err;

    if (pid != 0) {
        if (pid < 0)
            say("cannot fork: %s", strerror(errno));
        return pid;
    }
    take_console();
    execvp(argv[0], argv);
    err = errno;
    say("cannot run '%s': %s", argv[0], strerror(err));
    _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
}

/* Wait for pid, reaping the orphans PID 1 inherits along the way. Returns
 * its wait status, or -1 if a shutdown signal came first. */
static int wait_for(pid_t pid)
{
    int status;

    for (;;) {
        pid_t got = waitpid(-1, &status, 0);

        if (shutdown_signal)
            return -1;
        if (got == pid)
            return status;
        if (got < 0 && errno == ECHILD)
            return -1;
    }
}

static int exit_code(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* Read /perch/cmd: the arguments, each ended by a NUL. Returns a NULL-ended
 * argv (pointing into one buffer), or NULL with the reason said. */
static char **read_cmd(void)
{
    static char buf[CMD_FILE_MAX + 1];
    char **argv;
    size_t len = 0, argc = 0;
    ssize_t n;
    int fd = open(CMD_FILE, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        say("cannot open %s: %s", CMD_FILE, strerror(errno));
        return NULL;
    }
    while (len < CMD_FILE_MAX && (n = read(fd, buf + len, CMD_FILE_MAX - len)) > 0)
        len += n;
    close(fd);
    if (len == 0) {
        say("%s holds no command", CMD_FILE);
        return NULL;
    }
    buf[len] = 0;   /* a missing final NUL still ends the last argument */
    if (buf[len - 1] != 0)
        len++;
    for (size_t i = 0; i < len; i++)
        argc += buf[i] == 0;
    argv = calloc(argc + 1, sizeof(*argv));
    if (!argv) {
        say("out of memory reading %s", CMD_FILE);
        return NULL;
    }
    for (size_t i = 0, a = 0; a < argc; i += strlen(buf + i) + 1)
        argv[a++] = buf + i;
    return argv;
}

static void run_command(void)
{
    char **argv = read_cmd();
    pid_t pid;
    int status;

    if (!argv) {
        report_exit(127);
        return;
    }
    pid = spawn(argv);
    if (pid < 0) {
        report_exit(126);
        return;
    }
    status = wait_for(pid);
    if (status >= 0)
        report_exit(exit_code(status));
}

/* The parameters the Launcher chose for module NAME.ko: the text of
 * /perch/params/NAME.ko (one line, as modprobe's options), or "". */
static void module_params(const char *name, char *out, size_t size)
{
    char path[PATH_MAX];
    ssize_t n = -1;
    int fd;

    out[0] = '\0';
    if (snprintf(path, sizeof(path), "%s/%s", PARAMS_DIR, name) >= (int)sizeof(path))
        return;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    n = read(fd, out, size - 1);
    close(fd);
    out[n > 0 ? n : 0] = '\0';
}

/* One module into the kernel: 0, or the errno why not (EEXIST, a driver
 * built in, counts as in). The kernel checks it is built for it. */
static int load_module(int dir, const char *name)
{
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC), err = 0;
    char params[256];

    if (fd < 0)
        return errno;
    module_params(name, params, sizeof(params));
    if (syscall(SYS_finit_module, fd, params, 0) < 0 && errno != EEXIST)
        err = errno;
    close(fd);
    return err;
}

/* Every .ko in /lib/modules. Some need others (QEMU's virtio_blk needs
 * virtio, for `perch bench --qemu`) and readdir keeps no order, so a module
 * whose symbols are not in yet (ENOENT) is tried again after the others,
 * round after round while a round loads something. */
static void load_modules(void)
{
    DIR *d = opendir(MODULES_DIR);
    char names[MODULES_MAX][NAME_MAX + 1];
    int n = 0, left, before, err[MODULES_MAX];
    struct dirent *de;

    if (!d)
        return;   /* a user's own kernel: no modules */
    while ((de = readdir(d)) && n < MODULES_MAX) {
        size_t len = strlen(de->d_name);

        if (len >= 4 && !strcmp(de->d_name + len - 3, ".ko"))
            snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
    }
    for (left = n, before = n + 1; left && left < before;) {
        before = left;
        for (int i = 0; i < n; i++) {
            if (!names[i][0] || (err[i] = load_module(dirfd(d), names[i])) == ENOENT)
                continue;
            if (err[i])
                say("cannot load %s/%s: %s", MODULES_DIR, names[i], strerror(err[i]));
            names[i][0] = '\0';
            left--;
        }
    }
    for (int i = 0; i < n; i++)
        if (names[i][0])
            say("cannot load %s/%s: %s", MODULES_DIR, names[i], strerror(err[i]));
    closedir(d);
}

static void print_banner(void)
{
    struct utsname u;

    if (uname(&u) < 0)
        return;
    printf("perch: %s %s; exit or Ctrl-D powers off; Ctrl-A x quits perch\n",
           strstr(u.version, "Debian") ? "Debian" : "Linux", u.release);
    fflush(stdout);
}

static void run_shell(void)
{
    char *argv[] = { "sh", NULL };
    pid_t pid;

    if (access(SHELL, X_OK) < 0) {
        say("no %s in the initramfs (perch had no busybox): nothing to "
            "run; powering off", SHELL);
        return;
    }
    print_banner();
    argv[0] = SHELL;
    pid = spawn(argv);
    if (pid > 0) {
        int status = wait_for(pid);

        /* The shell's status is perch's, as a command's is (`exit 3`). */
        if (status >= 0)
            report_exit(exit_code(status));
    }
}

/* Flush what is still on its way to the console and to disk, then end the
 * machine the way busybox asked (reboot), or power it off. */
static void shut_down(void)
{
    tcdrain(STDOUT_FILENO);
    sync();
    reboot(shutdown_signal == SIGTERM ? RB_AUTOBOOT : RB_POWER_OFF);
    say("reboot() failed: %s", strerror(errno));
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[0], DHCP_EVENT))
        return dhcp_event(argv[1]);
    /* Powering off is only right for the machine's own init. */
    if (getpid() != 1) {
        say("must run as PID 1 (it powers the machine off when done)");
        return 1;
    }
    mount_dev();
    attach_console();
    if (write(STDOUT_FILENO, BOOT_MARK, sizeof(BOOT_MARK) - 1) < 0)
        say_to_kernel_log("cannot write to the console");
    mount_one("proc", "/proc");
    mount_one("sysfs", "/sys");
    setenv("PATH", PATH_VALUE, 1);
    setenv("HOME", "/", 0);
    load_modules();
    catch_shutdown_signals();
    if (access(ROOT_FILE, F_OK) == 0) {
        boot_root();   /* the disk's own system brings its network up */
        shut_down();
    }
    if (access(NET_FILE, F_OK) == 0)
        bring_up_network();
    if (access(CMD_FILE, F_OK) == 0)
        run_command();
    else
        run_shell();
    shut_down();
}
