/*
 * Unit tests of perch's default guest (launcher/boot/default_guest.c) without
 * the network: the cache folder's path, the parsing of apt's output, and
 * the whole fetch run against fake apt-cache, apt-get and dpkg-deb scripts
 * put first in PATH (they log their arguments and act as FAKE_MODE says).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "../../launcher/boot/default_guest.h"

static char tmp[64];            /* this run's scratch folder */
static char fakes[128];         /* the fake apt tools */
static char log_path[128];
static char saved_path[4096];

/* --- the cache folder's path ------------------------------------------ */

static void cache_dir_from_xdg(void)
{
    char out[PATH_MAX];
    struct error e;

    CHECK(default_guest_cache_dir("/x/cache", "/home/u", out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "/x/cache/perch"));
    CHECK(default_guest_cache_dir("/x/cache//", NULL, out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "/x/cache/perch"));
}

static void cache_dir_from_home(void)
{
    char out[PATH_MAX];
    struct error e;

    CHECK(default_guest_cache_dir(NULL, "/home/u", out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "/home/u/.cache/perch"));
    /* The XDG spec: an empty or relative XDG_CACHE_HOME is ignored. */
    CHECK(default_guest_cache_dir("", "/home/u/", out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "/home/u/.cache/perch"));
    CHECK(default_guest_cache_dir("rel/cache", "/home/u", out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "/home/u/.cache/perch"));
    CHECK(default_guest_cache_dir(NULL, "/", out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "/.cache/perch"));
}

static void cache_dir_needs_home_or_xdg(void)
{
    char out[PATH_MAX];
    struct error e = { "" };

    CHECK(default_guest_cache_dir(NULL, NULL, out, sizeof(out), &e) == -1);
    CHECK_CONTAINS(e.msg, "HOME");
    CHECK(default_guest_cache_dir("relative", "", out, sizeof(out), &e) == -1);
    CHECK(default_guest_cache_dir("/a/long/path", NULL, out, 10, &e) == -1);
    CHECK_CONTAINS(e.msg, "too long");
}

static void shown_path_uses_tilde(void)
{
    char out[PATH_MAX];

    default_guest_shown_path("/home/u/.cache/perch", "/home/u", out, sizeof(out));
    CHECK(!strcmp(out, "~/.cache/perch"));
    default_guest_shown_path("/home/u/.cache/perch", "/home/u/", out, sizeof(out));
    CHECK(!strcmp(out, "~/.cache/perch"));
    default_guest_shown_path("/home/user2/.cache/perch", "/home/u", out, sizeof(out));
    CHECK(!strcmp(out, "/home/user2/.cache/perch"));
    default_guest_shown_path("/.cache/perch", "/", out, sizeof(out));
    CHECK(!strcmp(out, "/.cache/perch"));
    default_guest_shown_path("/x/perch", NULL, out, sizeof(out));
    CHECK(!strcmp(out, "/x/perch"));
}

/* --- apt's output -------------------------------------------------------- */

static void depends_of_the_meta_package(void)
{
    char pkg[128];

    CHECK(default_guest_parse_depends(
              "linux-image-cloud-amd64\n"
              "  Depends: linux-image-6.1.0-57-cloud-amd64\n", pkg, sizeof(pkg)) == 0);
    CHECK(!strcmp(pkg, "linux-image-6.1.0-57-cloud-amd64"));
}

static void depends_skips_alternatives_virtuals_and_predepends(void)
{
    char pkg[128];

    CHECK(default_guest_parse_depends(
              "linux-image-cloud-amd64\n"
              "  PreDepends: dpkg\n"
              " |Depends: initramfs-tools\n"
              "  Depends: <linux-initramfs-tool>\n"
              "  Depends: linux-image-6.1.0-99-cloud-amd64\r\n"
              "  Depends: other\n", pkg, sizeof(pkg)) == 0);
    CHECK(!strcmp(pkg, "linux-image-6.1.0-99-cloud-amd64"));
}

static void depends_absent_or_too_long(void)
{
    char pkg[8];

    CHECK(default_guest_parse_depends("", pkg, sizeof(pkg)) == -1);
    CHECK(default_guest_parse_depends("foo\n  Recommends: bar\n", pkg, sizeof(pkg)) == -1);
    CHECK(default_guest_parse_depends("  Depends:\n", pkg, sizeof(pkg)) == -1);
    CHECK(default_guest_parse_depends("  Depends: much-too-long\n", pkg, sizeof(pkg)) == -1);
    CHECK(default_guest_parse_depends("  Depends: short", pkg, sizeof(pkg)) == 0);
    CHECK(!strcmp(pkg, "short"));
}

static void apt_error_line(void)
{
    char out[128];

    default_guest_apt_error("W: unsandboxed\nE: first\nE: Unable to locate package x\n",
                            out, sizeof(out));
    CHECK(!strcmp(out, "Unable to locate package x"));
    default_guest_apt_error("Reading lists\nsomething odd\n\n", out, sizeof(out));
    CHECK(!strcmp(out, "something odd"));
    default_guest_apt_error("", out, sizeof(out));
    CHECK(!strcmp(out, ""));
}

/* --- fetching, with fake apt tools ---------------------------------------- */

static const char fake_apt_cache[] =
    "#!/bin/sh\n"
    "echo \"apt-cache $*\" >>\"$FAKE_LOG\"\n"
    "case $FAKE_MODE in no_meta*) echo 'E: No packages found' >&2; exit 100;; esac\n"
    "new=linux-image-9.9.9-test-cloud-amd64\n"
    "if [ \"$FAKE_MODE\" = stale ] && [ ! -e \"$FAKE_DIR/updated\" ]; then\n"
    "  new=linux-image-9.9.8-old-cloud-amd64; fi\n"
    "printf '%s\\n' \"$3\" \"  Depends: $new\"\n";

static const char fake_apt_get[] =
    "#!/bin/sh\n"
    "echo \"apt-get $*\" >>\"$FAKE_LOG\"\n"
    "if [ \"$1\" = update ]; then\n"
    "  [ \"$FAKE_MODE\" = no_meta_offline ] && echo 'W: Failed to fetch http://deb.debian.org/"
    "debian/dists/bookworm/InRelease  Could not connect to deb.debian.org' && "
    "echo 'W: Some index files failed to download.'\n"
    "  touch \"$FAKE_DIR/updated\"; exit 0; fi\n"
    "pkg=$3\n"
    "case $FAKE_MODE in\n"
    "offline) echo \"E: Failed to fetch http://deb.debian.org/$pkg.deb  "
    "Temporary failure resolving 'deb.debian.org'\"; exit 100;;\n"
    "unknown) echo \"E: Unable to locate package $pkg\"; exit 100;;\n"
    "unknown_until_update) [ -e \"$FAKE_DIR/updated\" ] || "
    "{ echo \"E: Unable to locate package $pkg\"; exit 100; };;\n"
    "stale) case $pkg in *old*) echo \"E: Failed to fetch http://deb.debian.org/$pkg.deb  "
    "404  Not Found [IP: 192.0.2.1 80]\"; exit 100;; esac;;\n"
    "esac\n"
    "echo \"W: Download is performed unsandboxed as root\" >&2\n"
    "echo deb >\"${pkg}_1.0_amd64.deb\"\n";

static const char fake_dpkg_deb[] =
    "#!/bin/sh\n"
    "echo \"dpkg-deb $*\" >>\"$FAKE_LOG\"\n"
    "case $2 in\n"
    "*linux-image*) mkdir -p \"$3/boot\" \"$3/lib/modules\"\n"
    "  echo cfg >\"$3/boot/config-9.9.9\"\n"
    "  echo kernel >\"$3/boot/vmlinuz-9.9.9-test-cloud-amd64\"\n"
    "  v=${2##*/linux-image-}; v=${v%%_*}; k=\"$3/lib/modules/$v/kernel/drivers\"\n"
    "  [ \"$FAKE_MODE\" = no_modules ] && exit 0\n"
    "  mkdir -p \"$k/block\" \"$k/net\" \"$k/virtio\" && echo \"blk $v\" >\"$k/block/xen-blkfront.ko\" &&\n"
    "  echo \"net $v\" >\"$k/net/xen-netfront.ko\" && echo \"vblk $v\" >\"$k/block/virtio_blk.ko\" &&\n"
    "  for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci; do\n"
    "    echo \"$m $v\" >\"$k/virtio/$m.ko\"; done &&\n"
    "  echo \"vnet $v\" >\"$k/net/virtio_net.ko\" && echo \"nfo $v\" >\"$k/net/net_failover.ko\" &&\n"
    "  mkdir -p \"$k/../net/core\" && echo \"fo $v\" >\"$k/../net/core/failover.ko\";;\n"
    "*busybox*) mkdir -p \"$3/bin\"; echo busybox >\"$3/bin/busybox\";;\n"
    "esac\n";

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool write_file(const char *dir, const char *name, const char *text,
                       mode_t mode)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f)
        return false;
    fputs(text, f);
    fclose(f);
    return chmod(path, mode) == 0;
}

/* Fresh HOME (and no XDG_CACHE_HOME), empty log, the fakes in PATH. */
static bool fresh(const char *mode)
{
    char home[128], path[4400];

    snprintf(home, sizeof(home), "%s/home", tmp);
    remove_tree(home);
    remove(log_path);
    snprintf(path, sizeof(path), "%s/updated", tmp);
    remove(path);
    snprintf(path, sizeof(path), "%s:%s", fakes, saved_path);
    return mkdir(home, 0755) == 0 && setenv("HOME", home, 1) == 0 &&
           unsetenv("XDG_CACHE_HOME") == 0 && setenv("FAKE_MODE", mode, 1) == 0 &&
           setenv("PATH", path, 1) == 0;
}

static void read_text(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, size - 1, f) : 0;

    out[n] = 0;
    if (f)
        fclose(f);
}

static int count_lines(const char *path)
{
    char text[4096];
    int n = 0;

    read_text(path, text, sizeof(text));
    for (char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

/* Nothing but the files perch keeps: no .fetch-* folder left over. */
static bool no_fetch_left(const struct default_guest *g)
{
    char cmd[PATH_MAX + 64];

    snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep '^\\.fetch-')\"", g->dir);
    return system(cmd) == 0;
}

/* Run f with stderr going to a file, whose text ends up in out. */
static int with_stderr(int (*f)(struct default_guest *, struct error *),
                       struct default_guest *g, struct error *e, char *out,
                       size_t size)
{
    char path[128];
    int saved = dup(STDERR_FILENO), fd, rc;

    snprintf(path, sizeof(path), "%s/stderr", tmp);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    close(fd);
    rc = f(g, e);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    read_text(path, out, size);
    return rc;
}

static int xen_modules(struct default_guest *g, struct error *e)
{
    return default_guest_modules(g, &default_guest_xen_modules, e);
}

static int virtio_modules(struct default_guest *g, struct error *e)
{
    return default_guest_modules(g, &default_guest_virtio_modules, e);
}

static void open_creates_the_cache_folder(void)
{
    struct default_guest g;
    struct error e;
    char want[PATH_MAX];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    snprintf(want, sizeof(want), "%s/home/.cache/perch", tmp);
    CHECK(!strcmp(g.dir, want));
    CHECK(!strcmp(g.shown_dir, "~/.cache/perch"));
    CHECK(access(g.dir, W_OK) == 0);
    strcat(want, "/vmlinuz");
    CHECK(!strcmp(g.kernel, want));
}

static void open_with_a_file_in_the_way(void)
{
    struct default_guest g;
    struct error e = { "" };
    char path[256];

    CHECK(fresh("ok"));
    snprintf(path, sizeof(path), "%s/home", tmp);
    CHECK(write_file(path, ".cache", "not a folder", 0644));
    CHECK(default_guest_open(&g, &e) == -1);
    CHECK_CONTAINS(e.msg, ".cache");
}

static void fetch_kernel_then_reuse_it(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], text[64], target[64];
    ssize_t n;

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, "perch: fetching Debian's cloud kernel "
                        "(linux-image-9.9.9-test-cloud-amd64) into ~/.cache/perch ...\n"));
    read_text(g.kernel, text, sizeof(text));
    CHECK(!strcmp(text, "kernel\n"));
    n = readlink(g.kernel, target, sizeof(target) - 1);
    CHECK(n > 0);
    target[n] = 0;
    CHECK(!strcmp(target, "vmlinuz-9.9.9-test-cloud-amd64"));
    CHECK(no_fetch_left(&g));
    read_text(log_path, said, sizeof(said));
    CHECK_CONTAINS(said, "apt-cache depends linux-image-cloud-amd64\n");
    CHECK_CONTAINS(said, "apt-get download -q linux-image-9.9.9-test-cloud-amd64\n");
    CHECK_CONTAINS(said, "dpkg-deb -x ");
    CHECK(!strstr(said, "update"));
    /* Again: the cache answers, no tool runs and nothing is said. */
    remove(log_path);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, ""));
    CHECK(access(log_path, F_OK) < 0);
}

/* The kernel's fetch keeps its modules too: no second download. */
static void kernel_fetch_keeps_its_modules(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], text[64], want[PATH_MAX + 64];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    remove(log_path);
    CHECK(with_stderr(xen_modules, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, ""));
    CHECK(access(log_path, F_OK) < 0);
    snprintf(want, sizeof(want), "%s/modules-9.9.9-test-cloud-amd64", g.dir);
    CHECK(!strcmp(g.modules, want));
    strcat(want, "/xen-blkfront.ko");
    read_text(want, text, sizeof(text));
    CHECK(!strcmp(text, "blk 9.9.9-test-cloud-amd64\n"));
    CHECK(no_fetch_left(&g));
}

/* A cache from before perch kept modules: they come from the package of
 * the cached kernel's version (a module loads only into its own kernel),
 * not from what the meta-package names today. */
static void modules_fetched_for_the_cached_kernel(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], text[64], path[PATH_MAX + 32];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(write_file(g.dir, "vmlinuz-9.9.7-mine-cloud-amd64", "old kernel", 0644));
    CHECK(symlink("vmlinuz-9.9.7-mine-cloud-amd64", g.kernel) == 0);
    CHECK(with_stderr(xen_modules, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, "perch: fetching the kernel's Xen disk and network drivers "
                        "(linux-image-9.9.7-mine-cloud-amd64) into ~/.cache/perch ...\n"));
    snprintf(path, sizeof(path), "%s/xen-netfront.ko", g.modules);
    read_text(path, text, sizeof(text));
    CHECK(!strcmp(text, "net 9.9.7-mine-cloud-amd64\n"));
    read_text(log_path, said, sizeof(said));
    CHECK(!strstr(said, "apt-cache"));
    CHECK(no_fetch_left(&g));
    /* The kernel itself is untouched. */
    read_text(g.kernel, text, sizeof(text));
    CHECK(!strcmp(text, "old kernel"));
}

/* A package without the modules: the kernel still comes; the modules
 * fail in one line, leaving no half folder. */
static void package_without_modules(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("no_modules"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    CHECK(access(g.kernel, F_OK) == 0);
    CHECK(with_stderr(xen_modules, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "cannot fetch the kernel's Xen disk and network drivers");
    CHECK_CONTAINS(e.msg, "has no drivers/block/xen-blkfront.ko");
    CHECK(!strchr(e.msg, '\n'));
    CHECK(access(g.modules, F_OK) < 0);
    CHECK(no_fetch_left(&g));
}

/* QEMU's virtio drivers: not kept by the kernel's fetch, so fetched once
 * from the cached kernel's package into a folder of their own, in the
 * order they load; the Xen set stays as it was. */
static void virtio_set_fetched_beside_the_xen_set(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], text[64], want[PATH_MAX + 64], xen[PATH_MAX];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    CHECK(with_stderr(xen_modules, &g, &e, said, sizeof(said)) == 0);
    snprintf(xen, sizeof(xen), "%s", g.modules);
    CHECK(with_stderr(virtio_modules, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, "perch: fetching the kernel's virtio drivers (for QEMU) "
                        "(linux-image-9.9.9-test-cloud-amd64) into ~/.cache/perch ...\n"));
    snprintf(want, sizeof(want), "%s/virtio-9.9.9-test-cloud-amd64", g.dir);
    CHECK(!strcmp(g.modules, want));
    strcat(want, "/virtio_ring.ko");
    read_text(want, text, sizeof(text));
    CHECK(!strcmp(text, "virtio_ring 9.9.9-test-cloud-amd64\n"));
    CHECK(!strcmp(strrchr(default_guest_virtio_modules.paths[0], '/'), "/virtio_ring.ko"));
    snprintf(want, sizeof(want), "%s/xen-blkfront.ko", xen);
    CHECK(access(want, F_OK) == 0);
    CHECK(no_fetch_left(&g));
    /* Again: the cache answers. */
    remove(log_path);
    CHECK(with_stderr(virtio_modules, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, ""));
    CHECK(access(log_path, F_OK) < 0);
}

static void kernel_version_unknown(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(write_file(g.dir, "vmlinuz", "a plain file", 0644));
    CHECK(with_stderr(xen_modules, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "cannot tell the version of");
    CHECK_CONTAINS(e.msg, "not a link to vmlinuz-VERSION");
    CHECK(access(log_path, F_OK) < 0);
    remove(g.kernel);
    CHECK(symlink("bzImage", g.kernel) == 0);
    CHECK(with_stderr(xen_modules, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "it points to bzImage");
}

static void fetch_busybox_then_reuse_it(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], text[64];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_busybox, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, "perch: fetching busybox (busybox-static) into ~/.cache/perch ...\n"));
    read_text(g.busybox, text, sizeof(text));
    CHECK(!strcmp(text, "busybox\n"));
    CHECK(no_fetch_left(&g));
    CHECK(count_lines(log_path) == 2);   /* download, unpack */
    CHECK(with_stderr(default_guest_busybox, &g, &e, said, sizeof(said)) == 0);
    CHECK(!strcmp(said, ""));
    CHECK(count_lines(log_path) == 2);
}

static void offline_says_no_network(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("offline"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "cannot fetch Debian's cloud kernel");
    CHECK_CONTAINS(e.msg, "no network");
    CHECK_CONTAINS(e.msg, "Temporary failure resolving");
    CHECK(!strchr(e.msg, '\n'));
    CHECK(access(g.kernel, F_OK) < 0);
    CHECK(no_fetch_left(&g));
}

static void unknown_package_after_one_update(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("unknown"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_busybox, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "busybox-static not found");
    CHECK_CONTAINS(e.msg, "even after apt-get update");
    read_text(log_path, said, sizeof(said));
    CHECK_CONTAINS(said, "apt-get update");
    CHECK(!strstr(strstr(said, "update") + 1, "update"));   /* only once */
    CHECK(no_fetch_left(&g));
}

static void found_after_update(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("unknown_until_update"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_busybox, &g, &e, said, sizeof(said)) == 0);
    CHECK(access(g.busybox, F_OK) == 0);
}

/* The lists name a kernel the mirror no longer has (404): update, and
 * take the kernel the meta-package names now. */
static void stale_lists_updated_and_kernel_resolved_again(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], target[64];
    ssize_t n;

    CHECK(fresh("stale"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    CHECK_CONTAINS(said, "(linux-image-9.9.8-old-cloud-amd64)");
    CHECK_CONTAINS(said, "(linux-image-9.9.9-test-cloud-amd64)");
    n = readlink(g.kernel, target, sizeof(target) - 1);
    CHECK(n > 0);
    target[n] = 0;
    CHECK(!strcmp(target, "vmlinuz-9.9.9-test-cloud-amd64"));
    read_text(log_path, said, sizeof(said));
    CHECK_CONTAINS(said, "apt-get update");
    CHECK(no_fetch_left(&g));
}

static void meta_package_unknown(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("no_meta"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "linux-image-cloud-amd64 not found, even after apt-get update");
    CHECK(!strcmp(said, ""));   /* nothing was fetched, so nothing said */
}

/* apt-get update warns and exits 0 without the network: perch says so,
 * rather than that the package does not exist. */
static void update_offline_says_no_network(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024];

    CHECK(fresh("no_meta_offline"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "apt-get update failed: no network?");
    CHECK_CONTAINS(e.msg, "Could not connect to deb.debian.org");
}

static void no_apt_at_all(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], empty[128];

    CHECK(fresh("ok"));
    snprintf(empty, sizeof(empty), "%s/empty", tmp);
    mkdir(empty, 0755);
    CHECK(setenv("PATH", empty, 1) == 0);
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == -1);
    CHECK_CONTAINS(e.msg, "apt-cache is not installed");
}

/* A fetch folder whose perch is gone is removed; a live one is kept. */
static void stale_fetch_folders_removed(void)
{
    struct default_guest g;
    struct error e = { "" };
    char dead[PATH_MAX + 32], live[PATH_MAX + 32], said[1024];
    pid_t pid = fork();

    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);   /* pid is now nobody's (until reused) */
    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    snprintf(dead, sizeof(dead), "%s/.fetch-%d", g.dir, (int)pid);
    snprintf(live, sizeof(live), "%s/.fetch-%d", g.dir, (int)getppid());
    CHECK(mkdir(dead, 0755) == 0 && write_file(dead, "junk", "x", 0644));
    CHECK(mkdir(live, 0755) == 0);
    CHECK(with_stderr(default_guest_busybox, &g, &e, said, sizeof(said)) == 0);
    CHECK(access(dead, F_OK) < 0);
    CHECK(access(live, F_OK) == 0);
}

static bool setup(void)
{
    const char *path = getenv("PATH");

    snprintf(saved_path, sizeof(saved_path), "%s", path ? path : "/usr/bin:/bin");
    snprintf(tmp, sizeof(tmp), "/tmp/perch-unit-XXXXXX");
    if (!mkdtemp(tmp))
        return false;
    snprintf(fakes, sizeof(fakes), "%s/fakes", tmp);
    snprintf(log_path, sizeof(log_path), "%s/log", tmp);
    return mkdir(fakes, 0755) == 0 &&
           write_file(fakes, "apt-cache", fake_apt_cache, 0755) &&
           write_file(fakes, "apt-get", fake_apt_get, 0755) &&
           write_file(fakes, "dpkg-deb", fake_dpkg_deb, 0755) &&
           setenv("FAKE_LOG", log_path, 1) == 0 && setenv("FAKE_DIR", tmp, 1) == 0;
}

/* --- for perch image ------------------------------------------------------ */

static void kernel_version_from_the_link(void)
{
    struct default_guest g;
    struct error e = { "" };
    char said[1024], kver[64];

    CHECK(fresh("ok"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(with_stderr(default_guest_kernel, &g, &e, said, sizeof(said)) == 0);
    CHECK(default_guest_kernel_version(&g, kver, sizeof(kver), &e) == 0);
    CHECK(!strcmp(kver, "9.9.9-test-cloud-amd64"));
    CHECK(default_guest_kernel_version(&g, kver, 8, &e) == -1);
    CHECK_CONTAINS(e.msg, "too long");
    CHECK(unlink(g.kernel) == 0 && symlink("bzImage", g.kernel) == 0);
    CHECK(default_guest_kernel_version(&g, kver, sizeof(kver), &e) == -1);
    CHECK_CONTAINS(e.msg, "not vmlinuz-VERSION");
}

/* A package apt's lists lack at first: one apt-get update, then it is
 * downloaded and unpacked where asked, in a work folder perch made. */
static void unpack_after_one_update(void)
{
    struct default_guest g;
    struct error e = { "" };
    char work[PATH_MAX], dir[PATH_MAX + 8], file[PATH_MAX + 64], text[64];
    char said[1024];

    CHECK(fresh("unknown_until_update"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(default_guest_work_dir(&g, "test", work, &e) == 0);
    CHECK(strstr(work, "/.fetch-") != NULL);
    snprintf(dir, sizeof(dir), "%s/root", work);
    CHECK(default_guest_unpack(&g, "linux-image-9.9.9-test-cloud-amd64", work, dir,
                               &e) == 0);
    snprintf(file, sizeof(file), "%s/boot/vmlinuz-9.9.9-test-cloud-amd64", dir);
    read_text(file, text, sizeof(text));
    CHECK(!strcmp(text, "kernel\n"));
    read_text(log_path, said, sizeof(said));
    CHECK_CONTAINS(said, "apt-get update");
    CHECK(count_lines(log_path) == 4);   /* download, update, download, dpkg-deb */
}

static void unpack_unknown_package(void)
{
    struct default_guest g;
    struct error e = { "" };
    char work[PATH_MAX], dir[PATH_MAX + 8];

    CHECK(fresh("unknown"));
    CHECK(default_guest_open(&g, &e) == 0);
    CHECK(default_guest_work_dir(&g, "test", work, &e) == 0);
    snprintf(dir, sizeof(dir), "%s/root", work);
    CHECK(default_guest_unpack(&g, "linux-image-0-none", work, dir, &e) == -1);
    CHECK_CONTAINS(e.msg, "linux-image-0-none not found");
    CHECK_CONTAINS(e.msg, "even after apt-get update");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(cache_dir_from_xdg);
    RUN(cache_dir_from_home);
    RUN(cache_dir_needs_home_or_xdg);
    RUN(shown_path_uses_tilde);
    RUN(depends_of_the_meta_package);
    RUN(depends_skips_alternatives_virtuals_and_predepends);
    RUN(depends_absent_or_too_long);
    RUN(apt_error_line);
    if (!setup()) {
        printf("FAIL setup: cannot make the scratch folder and fake apt tools\n");
        return 1;
    }
    RUN(open_creates_the_cache_folder);
    RUN(open_with_a_file_in_the_way);
    RUN(fetch_kernel_then_reuse_it);
    RUN(kernel_fetch_keeps_its_modules);
    RUN(modules_fetched_for_the_cached_kernel);
    RUN(package_without_modules);
    RUN(virtio_set_fetched_beside_the_xen_set);
    RUN(kernel_version_unknown);
    RUN(fetch_busybox_then_reuse_it);
    RUN(offline_says_no_network);
    RUN(unknown_package_after_one_update);
    RUN(found_after_update);
    RUN(stale_lists_updated_and_kernel_resolved_again);
    RUN(meta_package_unknown);
    RUN(update_offline_says_no_network);
    RUN(no_apt_at_all);
    RUN(stale_fetch_folders_removed);
    RUN(kernel_version_from_the_link);
    RUN(unpack_after_one_update);
    RUN(unpack_unknown_package);
    remove_tree(tmp);
    return check_exit_status();
}
