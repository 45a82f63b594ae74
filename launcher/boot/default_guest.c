/* The default guest: Debian's cloud kernel, its Xen front-end modules and busybox, fetched with apt into perch's cache. */
#include "default_guest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/file.h"

#define OUTPUT_MAX (1 << 20)
#define FETCH_PREFIX ".fetch-"

extern char **environ;

/* What to take out of which package, and where it goes in the cache. */
struct fetch {
    const char *what;             /* for messages */
    const char *name;             /* what resolve() turns into the package */
    int (*resolve)(const char *name, char *pkg, size_t size, struct error *e);
    char package[128];
    const char *member_dir;       /* inside the package; NULL: no one file */
    const char *member_prefix;    /* the file's name starts with this */
    const char *cache_name;       /* its name in the cache (a link to it
                                     when the file keeps its own name) */
    /* a kernel package: keep these of its modules too */
    const struct default_guest_module_set *modules;
};

/* Under lib/modules/<version>/kernel/ in the kernel's package; cached by
 * their file names. Debian's cloud kernel builds them all as modules. */
static const char *const xen_paths[] = {
    "drivers/block/xen-blkfront.ko", "drivers/net/xen-netfront.ko", NULL,
};

/* virtio_pci, virtio_blk and virtio_net with what they need (their
 * modinfo's depends=), the needed first: virtio needs virtio_ring,
 * virtio_net net_failover, which needs failover. */
static const char *const virtio_paths[] = {
    "drivers/virtio/virtio_ring.ko", "drivers/virtio/virtio.ko",
    "drivers/virtio/virtio_pci_modern_dev.ko",
    "drivers/virtio/virtio_pci_legacy_dev.ko", "drivers/virtio/virtio_pci.ko",
    "drivers/block/virtio_blk.ko", "net/core/failover.ko",
    "drivers/net/net_failover.ko", "drivers/net/virtio_net.ko", NULL,
};

const struct default_guest_module_set default_guest_xen_modules = {
    "modules", "the kernel's Xen disk and network drivers", xen_paths,
};
const struct default_guest_module_set default_guest_virtio_modules = {
    "virtio", "the kernel's virtio drivers (for QEMU)", virtio_paths,
};

#define KERNEL_PACKAGE_PREFIX "linux-image-"

/* --- the cache folder ------------------------------------------------- */

/* Length without trailing slashes, so "/home/u/" gives "/home/u/.cache"
 * and "/" gives "/.cache". */
static int trimmed_len(const char *s)
{
    size_t n = strlen(s);

    while (n > 0 && s[n - 1] == '/')
        n--;
    return (int)n;
}

int default_guest_cache_dir(const char *xdg_cache_home, const char *home,
                            char *out, size_t size, struct error *e)
{
    int n;

    if (xdg_cache_home && xdg_cache_home[0] == '/')
        n = snprintf(out, size, "%.*s/perch", trimmed_len(xdg_cache_home),
                     xdg_cache_home);
    else if (home && home[0])
        n = snprintf(out, size, "%.*s/.cache/perch", trimmed_len(home), home);
    else
        return fail(e, "cannot find perch's cache folder: neither "
                       "XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= size)
        return fail(e, "the path of perch's cache folder is too long");
    return 0;
}

void default_guest_shown_path(const char *path, const char *home, char *out,
                              size_t size)
{
    size_t n = home ? (size_t)trimmed_len(home) : 0;

    if (n > 0 && !strncmp(path, home, n) && path[n] == '/')
        snprintf(out, size, "~%s", path + n);
    else
        snprintf(out, size, "%s", path);
}

static int cache_path(const struct default_guest *g, const char *name,
                      char *out, struct error *e)
{
    if (snprintf(out, PATH_MAX, "%s/%s", g->dir, name) >= PATH_MAX)
        return fail(e, "the path of perch's cache folder is too long");
    return 0;
}

int default_guest_open(struct default_guest *g, struct error *e)
{
    const char *home = getenv("HOME");

    memset(g, 0, sizeof(*g));
    if (default_guest_cache_dir(getenv("XDG_CACHE_HOME"), home, g->dir,
                                sizeof(g->dir), e) ||
        file_make_dirs(g->dir, e) ||
        cache_path(g, "vmlinuz", g->kernel, e) ||
        cache_path(g, "busybox", g->busybox, e))
        return -1;
    default_guest_shown_path(g->dir, home, g->shown_dir, sizeof(g->shown_dir));
    return 0;
}

/* --- apt's output ----------------------------------------------------- */

static const char *next_line(const char *line)
{
    const char *nl = strchr(line, '\n');

    return nl ? nl + 1 : NULL;
}

int default_guest_parse_depends(const char *text, char *pkg, size_t size)
{
    for (const char *line = text; line && *line; line = next_line(line)) {
        const char *p = line + strspn(line, " \t");
        size_t n;

        if (strncmp(p, "Depends:", 8))
            continue;
        p += 8;
        p += strspn(p, " \t");
        n = strcspn(p, " \t\r\n");
        if (n == 0 || n >= size || *p == '<')
            continue;
        memcpy(pkg, p, n);
        pkg[n] = 0;
        return 0;
    }
    return -1;
}

void default_guest_apt_error(const char *text, char *out, size_t size)
{
    const char *error = NULL, *last = NULL;

    for (const char *line = text; line && *line; line = next_line(line)) {
        if (!strncmp(line, "E: ", 3))
            error = line + 3;
        if (line[strspn(line, " \t\r")] != '\n')
            last = line;
    }
    if (!error)
        error = last ? last : "";
    snprintf(out, size, "%.*s", (int)strcspn(error, "\r\n"), error);
}

/* --- running apt ------------------------------------------------------ */

/* The environment with LC_ALL=C, so apt's messages are the English ones
 * parsed here ("Depends:" is translated in other locales). */
static char **c_locale_environment(void)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n])
        n++;
    env = calloc(n + 2, sizeof(*env));
    if (!env)
        return NULL;
    env[k++] = "LC_ALL=C";
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LC_ALL=", 7))
            env[k++] = environ[i];
    return env;
}

/* Everything the program writes, up to OUTPUT_MAX (the rest is drained
 * and dropped, so the program never blocks on a full pipe). */
static char *read_output(int fd)
{
    char *buf = malloc(OUTPUT_MAX + 1), sink[4096];
    size_t len = 0;
    ssize_t n;

    for (;;) {
        if (buf && len < OUTPUT_MAX)
            n = read(fd, buf + len, OUTPUT_MAX - len);
        else
            n = read(fd, sink, sizeof(sink));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (buf && len < OUTPUT_MAX)
            len += n;
    }
    if (buf)
        buf[len] = 0;
    return buf;
}

static int wait_exit_status(pid_t pid)
{
    int status;

    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int spawn(pid_t *pid, char *const argv[], const char *cwd, int out_fd)
{
    posix_spawn_file_actions_t fa;
    char **env = c_locale_environment();
    int rc = ENOMEM;

    if (!env)
        return rc;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO);
    if (cwd)
        posix_spawn_file_actions_addchdir_np(&fa, cwd);
    rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    return rc;
}

/* Run argv in cwd (NULL: here) with no stdin, collecting its stdout and
 * stderr into *output (to free()) and its exit status (128+N for signal N)
 * into *status. Returns -1 only if it could not be run at all. */
static int run(char *const argv[], const char *cwd, char **output, int *status,
               struct error *e)
{
    int pipefd[2], rc;
    pid_t pid;

    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return fail(e, "cannot make a pipe: %s", strerror(errno));
    rc = spawn(&pid, argv, cwd, pipefd[1]);
    close(pipefd[1]);
    if (rc) {
        close(pipefd[0]);
        if (rc == ENOENT)
            return fail(e, "%s is not installed (perch fetches its default "
                           "guest with apt; or give a KERNEL)", argv[0]);
        return fail(e, "cannot run %s: %s", argv[0], strerror(rc));
    }
    *output = read_output(pipefd[0]);
    close(pipefd[0]);
    *status = wait_exit_status(pid);
    if (!*output)
        return fail(e, "out of memory reading the output of %s", argv[0]);
    return 0;
}

/* --- apt steps -------------------------------------------------------- */

static bool apt_is_offline(const char *err)
{
    static const char *const signs[] = {
        "Could not resolve", "Temporary failure resolving", "Failed to fetch",
        "Unable to connect", "Could not connect", "Network is unreachable",
        NULL,
    };

    for (int i = 0; signs[i]; i++)
        if (strstr(err, signs[i]))
            return true;
    return false;
}

/* The first line of text holding needle, if any, into out. */
static bool line_with(const char *text, const char *needle, char *out,
                      size_t size)
{
    const char *hit = strstr(text, needle), *start = hit;

    if (!hit)
        return false;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(out, size, "%.*s", (int)strcspn(start, "\r\n"), start);
    return true;
}

/* apt-get update (see fetch_updating for when). Without the network it
 * only warns ("W: Failed to fetch ...") and succeeds: that is a failure
 * here, or the next step would blame a missing package. */
static int apt_update(struct default_guest *g, struct error *e)
{
    char *argv[] = { "apt-get", "update", "-q", NULL };
    char *out, err[256];
    int status;

    g->apt_updated = true;
    if (run(argv, NULL, &out, &status, e))
        return -1;
    default_guest_apt_error(out, err, sizeof(err));
    if (status == 0 && line_with(out, "Failed to fetch", err, sizeof(err)))
        status = -1;
    free(out);
    if (status == 0)
        return 0;
    if (apt_is_offline(err))
        return fail(e, "apt-get update failed: no network? (%s)", err);
    return fail(e, "apt-get update failed%s: %s",
                geteuid() ? " (it needs root)" : "", err);
}

/* The package the kernel meta-package points at today: 0, or 1 (e says
 * which) if apt's lists lack it, or -1 on error. */
static int kernel_package(const char *meta, char *pkg, size_t size,
                          struct error *e)
{
    char *argv[] = { "apt-cache", "depends", (char *)meta, NULL };
    char *out;
    int status, found;

    if (run(argv, NULL, &out, &status, e))
        return -1;
    found = status == 0 && !default_guest_parse_depends(out, pkg, size);
    free(out);
    if (found)
        return 0;
    fail(e, "Debian package %s not found", meta);
    return 1;
}

static int same_package(const char *name, char *pkg, size_t size,
                        struct error *e)
{
    if (snprintf(pkg, size, "%s", name) >= (int)size)
        return fail(e, "package name %s is too long", name);
    return 0;
}

/* apt-get download into dir: 0, or 1 (e says why) if apt's lists lack
 * the package or are too old for the mirror (404), or -1 on error. */
static int download(const char *package, const char *dir, struct error *e)
{
    char *argv[] = { "apt-get", "download", "-q", (char *)package, NULL };
    char *out, err[256];
    int status;

    if (run(argv, dir, &out, &status, e))
        return -1;
    default_guest_apt_error(out, err, sizeof(err));
    free(out);
    if (status == 0)
        return 0;
    if (strstr(err, "Unable to locate package") ||
        strstr(err, "has no installation candidate") || strstr(err, " 404 ")) {
        fail(e, "Debian package %s not found (%s)", package, err);
        return 1;
    }
    if (apt_is_offline(err))
        return fail(e, "cannot download %s: no network? (%s)", package, err);
    return fail(e, "apt-get download %s failed (status %d): %s", package,
                status, err);
}

static int unpack(const char *deb, const char *dir, struct error *e)
{
    char *argv[] = { "dpkg-deb", "-x", (char *)deb, (char *)dir, NULL };
    char *out, err[256];
    int status;

    if (run(argv, NULL, &out, &status, e))
        return -1;
    default_guest_apt_error(out, err, sizeof(err));
    free(out);
    if (status)
        return fail(e, "dpkg-deb -x %s failed (status %d): %s", deb, status, err);
    return 0;
}

/* --- the fetch folder --------------------------------------------------- */

/* A fetch perch did not finish (interrupted, killed) leaves its folder,
 * a hundred MB for the kernel; remove those whose perch is gone. */
static void remove_stale_fetches(const struct default_guest *g)
{
    DIR *d = opendir(g->dir);
    struct dirent *de;
    char path[PATH_MAX];

    if (!d)
        return;
    while ((de = readdir(d))) {
        long pid;

        if (strncmp(de->d_name, FETCH_PREFIX, strlen(FETCH_PREFIX)))
            continue;
        pid = strtol(de->d_name + strlen(FETCH_PREFIX), NULL, 10);
        if (pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        if (snprintf(path, sizeof(path), "%s/%s", g->dir, de->d_name) < PATH_MAX)
            file_remove_tree(path);
    }
    closedir(d);
}

/* The first entry of dir whose name starts with prefix (and ends with
 * suffix), as dir/name in out. */
static int find_entry(const char *dir, const char *prefix, const char *suffix,
                      char *out, struct error *e)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = -1;

    if (!d)
        return fail(e, "cannot read %s: %s", dir, strerror(errno));
    while (found < 0 && (de = readdir(d))) {
        size_t n = strlen(de->d_name), s = strlen(suffix);

        if (!strncmp(de->d_name, prefix, strlen(prefix)) && n >= s &&
            !strcmp(de->d_name + n - s, suffix) &&
            snprintf(out, PATH_MAX, "%s/%s", dir, de->d_name) < PATH_MAX)
            found = 0;
    }
    closedir(d);
    if (found)
        return fail(e, "no %s*%s in %s", prefix, suffix, dir);
    return 0;
}

/* Move the unpacked file into the cache; when its name differs from the
 * cache name (vmlinuz-6.1.0-NN-cloud-amd64), point the cache name at it.
 * The link is made aside and renamed, so it appears complete or not. */
static int install(const struct default_guest *g, const struct fetch *f,
                   const char *work, const char *file, struct error *e)
{
    const char *name = strrchr(file, '/') + 1;
    char dest[PATH_MAX], link[PATH_MAX];

    if (cache_path(g, name, dest, e))
        return -1;
    if (rename(file, dest) < 0)
        return fail(e, "cannot move %s to %s: %s", file, dest, strerror(errno));
    if (!strcmp(name, f->cache_name))
        return 0;
    if (snprintf(link, sizeof(link), "%s/link", work) >= PATH_MAX ||
        cache_path(g, f->cache_name, dest, e))
        return fail(e, "the path of perch's cache folder is too long");
    if (symlink(name, link) < 0 || rename(link, dest) < 0)
        return fail(e, "cannot make %s: %s", dest, strerror(errno));
    return 0;
}

/* <cache>/<folder>-<version>: one folder a set and kernel version, since
 * modules load only into the kernel they were built with (vermagic). */
static int modules_path(const struct default_guest *g,
                        const struct default_guest_module_set *set,
                        const char *version, char *out, struct error *e)
{
    char name[NAME_MAX + 1];

    if (snprintf(name, sizeof(name), "%s-%s", set->folder, version) >=
        (int)sizeof(name))
        return fail(e, "kernel version %s is too long", version);
    return cache_path(g, name, out, e);
}

/* The kernel package's modules, gathered in the fetch folder, which is
 * renamed into place last: the folder appears complete or not at all. */
static int install_modules(const struct default_guest *g, const struct fetch *f,
                           const char *work, const char *root, struct error *e)
{
    const char *version = f->package + strlen(KERNEL_PACKAGE_PREFIX);
    char staged[PATH_MAX], from[PATH_MAX], to[PATH_MAX], dest[PATH_MAX];

    if (strncmp(f->package, KERNEL_PACKAGE_PREFIX, strlen(KERNEL_PACKAGE_PREFIX)))
        return fail(e, "%s is not a kernel package", f->package);
    if (snprintf(staged, sizeof(staged), "%s/modules", work) >= PATH_MAX ||
        modules_path(g, f->modules, version, dest, e))
        return fail(e, "the path of perch's cache folder is too long");
    if (mkdir(staged, 0755) < 0)
        return fail(e, "cannot create %s: %s", staged, strerror(errno));
    for (int i = 0; f->modules->paths[i]; i++) {
        const char *m = f->modules->paths[i];

        if (snprintf(from, sizeof(from), "%s/lib/modules/%s/kernel/%s", root,
                     version, m) >= PATH_MAX ||
            snprintf(to, sizeof(to), "%s/%s", staged, strrchr(m, '/') + 1) >= PATH_MAX)
            return fail(e, "the path of perch's cache folder is too long");
        if (rename(from, to) < 0)
            return fail(e, "%s has no %s (%s)", f->package, m, strerror(errno));
    }
    /* Another perch may have put the same folder there meanwhile. */
    if (rename(staged, dest) < 0 && errno != EEXIST && errno != ENOTEMPTY)
        return fail(e, "cannot move %s to %s: %s", staged, dest, strerror(errno));
    return 0;
}

/* Download, unpack, and keep the file (and a kernel's modules), all in
 * <cache>/.fetch-<pid>. */
static int fetch_in(struct default_guest *g, const struct fetch *f,
                    const char *work, struct error *e)
{
    char deb[PATH_MAX], root[PATH_MAX], dir[PATH_MAX], file[PATH_MAX];
    int rc;

    if (snprintf(root, sizeof(root), "%s/root", work) >= PATH_MAX ||
        snprintf(dir, sizeof(dir), "%s/%s", root,
                 f->member_dir ? f->member_dir : "") >= PATH_MAX)
        return fail(e, "the path of perch's cache folder is too long");
    rc = download(f->package, work, e);
    if (rc)
        return rc;   /* 1: apt's lists lack it */
    if (find_entry(work, "", ".deb", deb, e) || unpack(deb, root, e))
        return -1;
    /* Alongside the kernel, modules are a bonus: default_guest_modules()
     * fetches (and reports) them again if they are not there. */
    if (f->modules && install_modules(g, f, work, root, e) && !f->member_dir)
        return -1;
    if (!f->member_dir)
        return 0;
    if (find_entry(dir, f->member_prefix, "", file, e))
        return -1;
    return install(g, f, work, file, e);
}

/* One attempt: 0, 1 (e says what) if apt's lists lack the package, -1. */
static int fetch(struct default_guest *g, struct fetch *f, struct error *e)
{
    char work[PATH_MAX];
    int rc = f->resolve(f->name, f->package, sizeof(f->package), e);

    if (rc)
        return rc;
    fprintf(stderr, "perch: fetching %s (%s) into %s ...\n", f->what,
            f->package, g->shown_dir);
    remove_stale_fetches(g);
    if (snprintf(work, sizeof(work), "%s/" FETCH_PREFIX "%d", g->dir,
                 (int)getpid()) >= PATH_MAX)
        return fail(e, "the path of perch's cache folder is too long");
    file_remove_tree(work);
    if (mkdir(work, 0755) < 0)
        return fail(e, "cannot create %s: %s", work, strerror(errno));
    rc = fetch_in(g, f, work, e);
    file_remove_tree(work);
    return rc;
}

/* apt-get update only when apt's lists lack a package (a fresh system) or
 * are older than the mirror (a kernel ABI bump): then the meta-package may
 * name another kernel, so it is resolved again. */
static int fetch_updating(struct default_guest *g, struct fetch *f,
                          struct error *e)
{
    struct error inner;
    int rc = fetch(g, f, e);

    if (rc == 1 && !g->apt_updated) {
        if (apt_update(g, e))
            return -1;
        rc = fetch(g, f, e);
    }
    if (rc != 1)
        return rc;
    inner = *e;
    return fail(e, "%s, even after apt-get update", inner.msg);
}

/* --- the files ---------------------------------------------------------- */

static bool cached(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int default_guest_kernel(struct default_guest *g, struct error *e)
{
    struct fetch f = {
        .what = "Debian's cloud kernel", .name = DEFAULT_GUEST_META_PACKAGE,
        .resolve = kernel_package, .member_dir = "boot",
        .member_prefix = "vmlinuz-", .cache_name = "vmlinuz",
        .modules = &default_guest_xen_modules,
    };
    struct error inner;

    if (cached(g->kernel) || fetch_updating(g, &f, e) == 0)
        return 0;
    inner = *e;
    return fail(e, "cannot fetch Debian's cloud kernel: %s", inner.msg);
}

int default_guest_busybox(struct default_guest *g, struct error *e)
{
    struct fetch f = {
        .what = "busybox", .name = DEFAULT_GUEST_BUSYBOX_PACKAGE,
        .resolve = same_package, .member_dir = "bin",
        .member_prefix = "busybox", .cache_name = "busybox",
    };

    if (cached(g->busybox))
        return 0;
    return fetch_updating(g, &f, e);
}

/* The cached kernel's version, from its link vmlinuz -> vmlinuz-<version>
 * (the version of the package it came from). */
int default_guest_kernel_version(const struct default_guest *g, char *out,
                                 size_t size, struct error *e)
{
    char target[PATH_MAX];
    ssize_t n = readlink(g->kernel, target, sizeof(target) - 1);
    const char *name;

    if (n < 0)
        return fail(e, "cannot tell the version of %s: %s", g->kernel,
                    errno == EINVAL ? "not a link to vmlinuz-VERSION"
                                    : strerror(errno));
    target[n] = 0;
    name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
    if (strncmp(name, "vmlinuz-", 8) || !name[8])
        return fail(e, "cannot tell the version of %s: it points to %s, not "
                       "vmlinuz-VERSION", g->kernel, target);
    if (snprintf(out, size, "%s", name + 8) >= (int)size)
        return fail(e, "kernel version %s is too long", name + 8);
    return 0;
}

static bool modules_cached(const char *dir,
                           const struct default_guest_module_set *set)
{
    char path[PATH_MAX];

    for (int i = 0; set->paths[i]; i++)
        if (snprintf(path, sizeof(path), "%s/%s", dir,
                     strrchr(set->paths[i], '/') + 1) >= PATH_MAX ||
            !cached(path))
            return false;
    return true;
}

int default_guest_modules(struct default_guest *g,
                          const struct default_guest_module_set *set,
                          struct error *e)
{
    struct fetch f = {
        .what = set->what, .resolve = same_package, .modules = set,
    };
    char version[NAME_MAX + 1], package[sizeof(f.package)];
    struct error inner;

    if (default_guest_kernel_version(g, version, sizeof(version), e) ||
        modules_path(g, set, version, g->modules, e))
        return -1;
    if (modules_cached(g->modules, set))
        return 0;
    if (snprintf(package, sizeof(package), KERNEL_PACKAGE_PREFIX "%s",
                 version) >= (int)sizeof(package))
        return fail(e, "kernel version %s is too long", version);
    f.name = package;
    if (fetch_updating(g, &f, e) == 0)
        return 0;
    inner = *e;
    return fail(e, "cannot fetch %s: %s", set->what, inner.msg);
}

int default_guest_work_dir(const struct default_guest *g, const char *tag,
                           char *out, struct error *e)
{
    remove_stale_fetches(g);
    if (snprintf(out, PATH_MAX, "%s/" FETCH_PREFIX "%d-%s", g->dir,
                 (int)getpid(), tag) >= PATH_MAX)
        return fail(e, "the path of perch's cache folder is too long");
    file_remove_tree(out);
    if (mkdir(out, 0755) < 0)
        return fail(e, "cannot create %s: %s", out, strerror(errno));
    return 0;
}

/* One attempt at default_guest_unpack: 0, 1 if apt's lists lack it, -1. */
static int unpack_once(const char *package, const char *work, const char *dir,
                       struct error *e)
{
    char deb[PATH_MAX];
    int rc = download(package, work, e);

    if (rc)
        return rc;
    if (find_entry(work, package, ".deb", deb, e))
        return -1;
    return unpack(deb, dir, e);
}

int default_guest_unpack(struct default_guest *g, const char *package,
                         const char *work, const char *dir, struct error *e)
{
    struct error inner;
    int rc = unpack_once(package, work, dir, e);

    if (rc == 1 && !g->apt_updated) {
        if (apt_update(g, e))
            return -1;
        rc = unpack_once(package, work, dir, e);
    }
    if (rc != 1)
        return rc;
    inner = *e;
    return fail(e, "%s, even after apt-get update", inner.msg);
}

int default_guest_apt_install(struct default_guest *g, const char *package,
                              struct error *e)
{
    char *argv[] = { "apt-get", "install", "-y", "-q", (char *)package, NULL };
    char *out, err[256];
    int status;

    for (;;) {
        if (run(argv, NULL, &out, &status, e))
            return -1;
        default_guest_apt_error(out, err, sizeof(err));
        free(out);
        if (status == 0)
            return 0;
        if (g->apt_updated || !strstr(err, "Unable to locate package"))
            break;
        if (apt_update(g, e))   /* a fresh system's lists are empty */
            return -1;
    }
    if (apt_is_offline(err))
        return fail(e, "cannot install %s: no network? (%s)", package, err);
    return fail(e, "apt-get install %s failed (status %d): %s", package,
                status, err);
}
