/* libFuzzer harness of the cpio writer and perch's initramfs, each archive read back. */
#include "fuzz.h"

#include <sys/stat.h>

#include "cpio_read.h"
#include "../../launcher/boot/cpio.h"
#include "../../launcher/boot/initramfs.h"

#define MAX_ENTRIES 32
#define MAX_ARGS    16

/* One entry as the harness asked for it. */
struct want {
    char name[CPIO_READ_NAME_MAX];
    char target[CPIO_READ_NAME_MAX];   /* a symlink's */
    uint32_t mode, major, minor;
    const uint8_t *data;
    size_t bytes;
};

static struct cpio_read_archive archive;
static struct want wants[MAX_ENTRIES];

/* A NUL-ended string of at most 255 bytes from the input. */
static void string(struct fuzz_in *in, char out[CPIO_READ_NAME_MAX])
{
    size_t n;
    const uint8_t *p = fuzz_bytes(in, fuzz_uint(in, 1), &n);

    memcpy(out, p, n);
    out[n] = '\0';
}

static bool valid_name(const char *name)
{
    return name[0] && name[0] != '/' && strcmp(name, CPIO_TRAILER);
}

/* Add one entry the input describes; what the writer must say about it. */
static int add(struct cpio *c, struct fuzz_in *in, struct want *w)
{
    unsigned kind = (unsigned)fuzz_uint(in, 1);
    uint32_t perm = (uint32_t)fuzz_uint(in, 2);
    struct error e;
    int rc;

    string(in, w->name);
    w->major = w->minor = 0;
    w->data = NULL;
    w->bytes = 0;
    switch (kind % 4) {
    case 0:
        w->mode = S_IFDIR | (perm & 07777);
        rc = cpio_add_dir(c, w->name, perm, &e);
        break;
    case 1:
        w->mode = S_IFREG | (perm & 07777);
        w->data = fuzz_bytes(in, fuzz_uint(in, 2) % 2048, &w->bytes);
        rc = cpio_add_file(c, w->name, perm, w->data, w->bytes, &e);
        break;
    case 2:
        w->mode = S_IFLNK | 0777;
        string(in, w->target);
        w->data = (const uint8_t *)w->target;
        w->bytes = strlen(w->target);
        rc = cpio_add_symlink(c, w->name, w->target, &e);
        break;
    default:
        w->mode = S_IFCHR | (perm & 07777);
        w->major = (uint32_t)fuzz_uint(in, 4);
        w->minor = (uint32_t)fuzz_uint(in, 4);
        rc = cpio_add_char_device(c, w->name, perm, w->major, w->minor, &e);
        break;
    }
    FUZZ_ASSERT(rc == (valid_name(w->name) ? 0 : -1));
    if (rc)
        FUZZ_ASSERT(fuzz_one_line(e.msg));
    return rc;
}

/* The archive holds exactly the entries asked for, in order. */
static void check_archive(const uint8_t *bytes, size_t size, int n)
{
    FUZZ_ASSERT(cpio_read_archive(bytes, size, &archive));
    FUZZ_ASSERT(archive.n == n);
    for (int i = 0; i < n; i++) {
        const struct cpio_read_entry *got = &archive.e[i];
        const struct want *w = &wants[i];

        FUZZ_ASSERT(!strcmp(got->name, w->name) && got->mode == w->mode);
        FUZZ_ASSERT(got->ino == (uint32_t)i + 1 && !got->uid && !got->gid &&
                    !got->mtime);
        FUZZ_ASSERT(got->rdev_major == w->major && got->rdev_minor == w->minor);
        FUZZ_ASSERT(got->size == w->bytes &&
                    (!w->bytes || !memcmp(got->data, w->data, w->bytes)));
    }
}

static void writer(struct fuzz_in *in)
{
    struct cpio c;
    struct error e;
    int n = 0;
    bool failed = false;

    cpio_init(&c);
    while (in->n && n < MAX_ENTRIES)
        failed |= add(&c, in, &wants[n++]) != 0;
    FUZZ_ASSERT(cpio_finish(&c, &e) == (failed ? -1 : 0));
    if (!failed)
        check_archive(c.bytes, c.size, n);
    cpio_release(&c);
}

/* perch's initramfs: /init, busybox and the command from the input. */
static void initramfs(struct fuzz_in *in, bool busybox)
{
    static char args[MAX_ARGS][CPIO_READ_NAME_MAX];
    char *argv[MAX_ARGS];
    struct initramfs_config cfg = { 0 };
    struct file_data out;
    struct error e;
    const struct cpio_read_entry *en;
    size_t bytes;
    char *cmd;

    cfg.init = fuzz_bytes(in, fuzz_uint(in, 2) % 4096, &cfg.init_bytes);
    if (busybox)
        cfg.busybox = fuzz_bytes(in, fuzz_uint(in, 1), &cfg.busybox_bytes);
    while (in->n && cfg.cmd_argc < MAX_ARGS) {
        string(in, args[cfg.cmd_argc]);
        argv[cfg.cmd_argc] = args[cfg.cmd_argc];
        cfg.cmd_argc++;
    }
    cfg.cmd = cfg.cmd_argc ? argv : NULL;
    FUZZ_ASSERT(initramfs_build(&cfg, &out, &e) == 0);
    FUZZ_ASSERT(cpio_read_archive(out.bytes, out.size, &archive));
    en = cpio_read_find(&archive, "init");
    FUZZ_ASSERT(en && en->size == cfg.init_bytes &&
                (!en->size || !memcmp(en->data, cfg.init, en->size)));
    FUZZ_ASSERT(!cpio_read_find(&archive, "bin/busybox") == !cfg.busybox);
    en = cpio_read_find(&archive, "perch/cmd");
    FUZZ_ASSERT(!en == !cfg.cmd);
    if (en) {
        cmd = initramfs_encode_cmd(argv, cfg.cmd_argc, &bytes);
        FUZZ_ASSERT(cmd && en->size == bytes && !memcmp(en->data, cmd, bytes));
        free(cmd);
    }
    file_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned mode = (unsigned)fuzz_uint(&in, 1);

    if (mode & 1)
        initramfs(&in, mode & 2);
    else
        writer(&in);
    return 0;
}
