/*
 * `perch image debian FILE [--size SIZE] [--force]`: check the command
 * line and FILE's folder before any work, make sure the cached root tree
 * exists (building it with mmdebstrap if not), then write FILE from it
 * with mke2fs -d. See image.h.
 */
#include "image.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/program.h"
#include "../run/cli.h"
#include "../base/file.h"
#include "../base/status.h"

#define TAIL_MAX 4096

/* ---- the command line --------------------------------------------------- */

int image_parse_size(const char *s, uint64_t *bytes, struct error *e)
{
    static const char units[] = "KMGT";
    const char *unit;
    uint64_t v = 0;
    const char *p = s;

    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > IMAGE_MAX_BYTES)
            return fail(e, "--size %s is too large (at most 16T)", s);
    }
    unit = *p ? strchr(units, *p) : NULL;
    if (p == s || !unit || p[1])
        return fail(e, "--size '%s' is not a size like 4G or 512M", s);
    for (const char *u = units; u <= unit; u++)
        v <<= 10;
    if (v > IMAGE_MAX_BYTES)
        return fail(e, "--size %s is too large (at most 16T)", s);
    if (v < IMAGE_MIN_BYTES)
        return fail(e, "--size %s is too small (at least 256M)", s);
    *bytes = v;
    return 0;
}

/* --size SIZE or --size=SIZE: the value, or NULL if a is not --size. */
static const char *size_value(int argc, char **argv, int *i)
{
    const char *a = argv[*i];

    if (!strncmp(a, "--size=", 7))
        return a + 7;
    if (strcmp(a, "--size"))
        return NULL;
    return *i + 1 < argc ? argv[++*i] : "";
}

int image_parse(int argc, char **argv, struct image_options *o,
                struct error *e)
{
    const char *words[2] = { NULL, NULL };
    int nwords = 0;

    memset(o, 0, sizeof(*o));
    o->size_text = IMAGE_DEFAULT_SIZE;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = size_value(argc, argv, &i);

        if (v) {
            if (o->size)
                return fail(e, "option --size given twice");
            if (!*v)
                return fail(e, "--size needs a value (e.g. 4G)");
            o->size_text = v;
            if (image_parse_size(v, &o->size, e))
                return -1;
        } else if (!strcmp(a, "--force")) {
            o->force = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            o->help = true;
            return 0;
        } else if (a[0] == '-' && a[1]) {
            return fail(e, "unknown image option '%s'", a);
        } else if (nwords == 2) {
            return fail(e, "unexpected argument '%s'", a);
        } else {
            words[nwords++] = a;
        }
    }
    if (!words[0])
        return fail(e, "perch image needs a system and a FILE: perch image debian FILE");
    if (strcmp(words[0], "debian"))
        return fail(e, "unknown image '%s': perch image debian FILE", words[0]);
    if (!words[1] || !words[1][0])
        return fail(e, "perch image debian needs a FILE to write");
    o->distro = words[0];
    o->file = words[1];
    if (!o->size)
        image_parse_size(IMAGE_DEFAULT_SIZE, &o->size, e);
    return 0;
}

/* ---- FILE and its folder, before any work ------------------------------ */

/* The aside name FILE is first written as (see write_image). */
static int aside_name(const char *file, char *out, struct error *e)
{
    char copy[PATH_MAX], copy2[PATH_MAX];

    snprintf(copy, sizeof(copy), "%s", file);
    snprintf(copy2, sizeof(copy2), "%s", file);
    if (snprintf(out, PATH_MAX, "%s/.%s.perch-%d", dirname(copy),
                 basename(copy2), (int)getpid()) >= PATH_MAX)
        return fail(e, "the name %s is too long", file);
    return 0;
}

/* Whether a file can be made there: a try says so where access() cannot
 * (root passes access() on read-only mounts and /proc). */
static int probe_folder(const char *file, const char *dir, struct error *e)
{
    char tmp[PATH_MAX];
    int fd;

    if (aside_name(file, tmp, e))
        return -1;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(e, "cannot write %s: folder %s: %s", file, dir, strerror(errno));
    close(fd);
    unlink(tmp);
    return 0;
}

static int check_target(const struct image_options *o, struct error *e)
{
    char copy[PATH_MAX], *dir;
    struct stat st;

    if (snprintf(copy, sizeof(copy), "%s", o->file) >= PATH_MAX)
        return fail(e, "the name %s is too long", o->file);
    dir = dirname(copy);
    if (lstat(o->file, &st) == 0) {
        if (!o->force)
            return fail(e, "%s already exists (--force overwrites it)", o->file);
        if (!S_ISREG(st.st_mode))
            return fail(e, "%s is not a regular file (--force overwrites only those)",
                        o->file);
    }
    if (stat(dir, &st) < 0)
        return fail(e, "cannot write %s: %s: %s", o->file, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail(e, "cannot write %s: %s is not a folder", o->file, dir);
    return probe_folder(o->file, dir, e);
}

/* ---- running the tools ---------------------------------------------- */

/* A program's output, passed through to stderr or not, with its tail
 * kept for the error line. */
struct output {
    bool echo;
    char tail[TAIL_MAX];
    size_t len;
};

static void output_bytes(void *arg, const uint8_t *p, size_t n)
{
    struct output *out = arg;

    if (out->echo && fwrite(p, 1, n, stderr) != n)
        out->echo = false;
    if (n >= TAIL_MAX - 1) {
        p += n - (TAIL_MAX - 1);
        n = TAIL_MAX - 1;
    }
    if (out->len + n > TAIL_MAX - 1) {
        size_t drop = out->len + n - (TAIL_MAX - 1);

        memmove(out->tail, out->tail + drop, out->len - drop);
        out->len -= drop;
    }
    memcpy(out->tail + out->len, p, n);
    out->len += n;
    out->tail[out->len] = 0;
}

/* The last non-empty line of the output, for messages. */
static const char *last_line(struct output *out)
{
    char *end = out->tail + out->len;

    while (end > out->tail && (end[-1] == '\n' || end[-1] == '\r'))
        *--end = 0;
    while (end > out->tail && end[-1] != '\n')
        end--;
    return end;
}

/* argv with its output in out: its exit status (128+N for signal N), or
 * -1 if it could not be run. */
static int run_tool(char *const argv[], struct output *out, struct error *e)
{
    int status;

    fflush(stderr);
    if (program_run(argv, output_bytes, out, &status, e))
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- step 1: the root tree, once --------------------------------------- */

static int need_mmdebstrap(struct default_guest *g, struct error *e)
{
    struct error inner;

    if (file_in_path("mmdebstrap"))
        return 0;
    if (geteuid())
        return fail(e, "perch image needs mmdebstrap: as root, "
                       "apt-get install mmdebstrap");
    fprintf(stderr, "perch: installing mmdebstrap (apt-get install -y mmdebstrap) ...\n");
    if (default_guest_apt_install(g, "mmdebstrap", e) == 0)
        return 0;
    inner = *e;
    return fail(e, "cannot install mmdebstrap: %s", inner.msg);
}

/* Whether f has a line "NAME:..." or "UID:..." for the user. */
static bool has_range(const char *f, const char *name, uid_t uid)
{
    FILE *in = fopen(f, "r");
    char line[256], id[32];
    bool found = false;

    if (!in)
        return false;
    snprintf(id, sizeof(id), "%u:", (unsigned)uid);
    while (!found && fgets(line, sizeof(line), in))
        found = (name && !strncmp(line, name, strlen(name)) &&
                 line[strlen(name)] == ':') || !strncmp(line, id, strlen(id));
    fclose(in);
    return found;
}

/* As a user mmdebstrap builds in a user namespace (--mode=unshare): say
 * what is missing before any download, rather than after. */
static int check_unshare(struct error *e)
{
    struct passwd *pw = getpwuid(geteuid());
    const char *name = pw ? pw->pw_name : NULL;
    FILE *f = fopen("/proc/sys/kernel/unprivileged_userns_clone", "r");
    int on = 1;

    if (f) {
        if (fscanf(f, "%d", &on) != 1)
            on = 1;
        fclose(f);
    }
    if (!on)
        return fail(e, "perch image as a user needs unprivileged user namespaces "
                       "(sysctl kernel.unprivileged_userns_clone=1), or run it as root");
    if (!has_range("/etc/subuid", name, geteuid()) ||
        !has_range("/etc/subgid", name, geteuid()))
        return fail(e, "perch image as a user needs your range of ids in "
                       "/etc/subuid and /etc/subgid (usermod --add-subuids "
                       "100000-165535 --add-subgids 100000-165535 %s), or run it "
                       "as root", name ? name : "USER");
    return 0;
}

/* Older recipes' and kernels' trees: only the newest is used. */
static void remove_other_roots(const struct default_guest *g, const char *keep)
{
    DIR *d = opendir(g->dir);
    struct dirent *de;
    char path[PATH_MAX];

    if (!d)
        return;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, IMAGE_ROOT_PREFIX, strlen(IMAGE_ROOT_PREFIX)) &&
            strcmp(de->d_name, keep) &&
            snprintf(path, sizeof(path), "%s/%s", g->dir, de->d_name) < PATH_MAX)
            unlink(path);
    closedir(d);
}

static int mmdebstrap(const char *files, const char *kver, const char *tar,
                      struct error *e)
{
    static char buf[PATH_MAX * 6];
    char *argv[IMAGE_ARGV_MAX];
    struct output out = { .echo = true };
    int status;

    if (image_recipe_argv(files, kver, tar, argv, buf, sizeof(buf), e))
        return -1;
    fprintf(stderr, "perch: building Debian 12 root (mmdebstrap, a few minutes) ...\n");
    status = run_tool(argv, &out, e);
    if (status <= 0)
        return status;
    if (geteuid())
        return fail(e, "mmdebstrap failed (status %d): %s (as a user it needs "
                       "unprivileged user namespaces and your range in "
                       "/etc/subuid and /etc/subgid; or run perch image as root)",
                    status, last_line(&out));
    return fail(e, "mmdebstrap failed (status %d): %s", status, last_line(&out));
}

/* Build <cache>/NAME in <cache>/.fetch-<pid>-image, moved there last. */
static int build_root(struct default_guest *g, const char *kver,
                      const char *name, const char *root, struct error *e)
{
    char work[PATH_MAX], files[PATH_MAX], tar[PATH_MAX];
    int rc;

    if (need_mmdebstrap(g, e) || (geteuid() && check_unshare(e)) ||
        default_guest_work_dir(g, "image", work, e))
        return -1;
    if (snprintf(files, sizeof(files), "%s/files", work) >= PATH_MAX ||
        snprintf(tar, sizeof(tar), "%s/root.tar", work) >= PATH_MAX)
        rc = fail(e, "the path %s is too long", work);
    else
        rc = image_recipe_stage(g, kver, work, files, e);
    if (rc == 0)
        rc = mmdebstrap(files, kver, tar, e);
    if (rc == 0 && rename(tar, root) < 0)
        rc = fail(e, "cannot move %s to %s: %s", tar, root, strerror(errno));
    file_remove_tree(work);
    if (rc == 0)
        remove_other_roots(g, name);
    return rc;
}

/* ---- step 2: the ext4 image -------------------------------------------- */

/* As a user the tree's owners exist only in a user namespace (mmdebstrap's
 * subuids), so the tarball is unpacked and read there, into a folder made
 * there ("$1", the user's, cannot become root's); it is removed there too.
 * /dev's nodes stay out (no mknod there; the guest's /dev is a devtmpfs). */
static const char unpack_and_write[] =
    "mkdir \"$1/root\" &&"
    " tar -C \"$1/root\" --numeric-owner --xattrs --xattrs-include='*'"
    " --exclude='./dev/*' -xpf \"$2\" &&"
    " mke2fs -q -F -t ext4 -L debian -d \"$1/root\" \"$3\" \"$4\"; s=$?;"
    " rm -rf \"$1/root\"; exit $s";

static int mke2fs(const char *tree, const char *root, const char *tmp,
                  const struct image_options *o, struct error *e)
{
    char size[32];
    char *user[] = { "mmdebstrap", "--unshare-helper", NULL };
    char *argv[12];
    struct output out = { .echo = false };
    struct stat st;
    int a = 0, status;

    snprintf(size, sizeof(size), "%lluk", (unsigned long long)(o->size >> 10));
    for (int i = 0; geteuid() && user[i]; i++)
        argv[a++] = user[i];
    argv[a++] = "sh";
    argv[a++] = "-c";
    argv[a++] = (char *)unpack_and_write;
    argv[a++] = "perch-image";
    argv[a++] = (char *)tree;
    argv[a++] = (char *)root;
    argv[a++] = (char *)tmp;
    argv[a++] = size;
    argv[a] = NULL;
    status = run_tool(argv, &out, e);
    if (status <= 0)
        return status;
    if (strstr(out.tail, "Could not allocate") || strstr(out.tail, "No space left") ||
        strstr(out.tail, "Not enough space") || strstr(out.tail, "too large"))
        return fail(e, "--size %s is too small for the Debian root (%lld MiB "
                       "of files)", o->size_text,
                    stat(root, &st) ? 0ll : (long long)(st.st_size >> 20));
    return fail(e, "writing %s failed (status %d): %s", o->file, status,
                last_line(&out));
}

/* FILE is written aside as .NAME.perch-PID and renamed at the end, so it
 * appears whole or not at all (and --force keeps the old one until then). */
static int write_image(struct default_guest *g, const char *root,
                       const struct image_options *o, struct error *e)
{
    char tmp[PATH_MAX], work[PATH_MAX], tree[PATH_MAX];
    int fd, rc;

    if (aside_name(o->file, tmp, e) || default_guest_work_dir(g, "ext4", work, e))
        return -1;
    if (snprintf(tree, sizeof(tree), "%s/tree", work) >= PATH_MAX) {
        file_remove_tree(work);
        return fail(e, "the path %s is too long", work);
    }
    /* the user namespace's root is "others" to the user's files */
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || mkdir(tree, 0755) < 0 ||
        (geteuid() && (fchmod(fd, 0666) < 0 || chmod(tree, 0777) < 0)))
        rc = fail(e, "cannot create %s: %s", fd < 0 ? tmp : tree, strerror(errno));
    else
        rc = mke2fs(tree, root, tmp, o, e);
    if (fd >= 0)
        close(fd);
    if (rc == 0 && (chmod(tmp, 0644) < 0 || rename(tmp, o->file) < 0))
        rc = fail(e, "cannot write %s: %s", o->file, strerror(errno));
    if (rc)
        unlink(tmp);
    file_remove_tree(work);
    return rc;
}

/* ---- the command -------------------------------------------------------- */

static int make_image(const struct image_options *o, struct error *e)
{
    static struct default_guest g;   /* large: four paths */
    char kver[128], name[256], root[PATH_MAX];
    struct stat st;

    if (check_target(o, e) || default_guest_open(&g, e) ||
        default_guest_kernel(&g, e) ||
        default_guest_kernel_version(&g, kver, sizeof(kver), e))
        return STATUS_ERROR;
    snprintf(name, sizeof(name), IMAGE_ROOT_PREFIX IMAGE_RECIPE "-%s.tar", kver);
    if (snprintf(root, sizeof(root), "%s/%s", g.dir, name) >= PATH_MAX)
        return fail(e, "the path of perch's cache folder is too long"), STATUS_ERROR;
    if (stat(root, &st) == 0)
        fprintf(stderr, "perch: using the Debian 12 root in %s/%s\n", g.shown_dir, name);
    else if (build_root(&g, kver, name, root, e))
        return STATUS_ERROR;
    fprintf(stderr, "perch: writing ext4 image %s (%s) ...\n", o->file, o->size_text);
    if (write_image(&g, root, o, e))
        return STATUS_ERROR;
    fprintf(stderr, "perch: done: boot it with perch run --disk %s --root /dev/xvda\n",
            o->file);
    return 0;
}

int image_main(int argc, char **argv, struct error *e)
{
    struct image_options o;

    if (image_parse(argc, argv, &o, e)) {
        size_t n = strlen(e->msg);

        snprintf(e->msg + n, sizeof(e->msg) - n, " (try 'perch --help')");
        return STATUS_USAGE;
    }
    if (o.help) {
        cli_print_help();
        return 0;
    }
    return make_image(&o, e);
}
