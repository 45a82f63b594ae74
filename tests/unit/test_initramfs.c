/*
 * Unit tests of the newc cpio writer (launcher/boot/cpio.c) and of perch's
 * initramfs (launcher/boot/initramfs.c): archives are checked byte for byte
 * against hand-written ones, and parsed back with cpio_read.h's reader,
 * written from the format's description (not from the writer).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cpio_read.h"
#include "../../launcher/boot/cpio.h"
#include "../../launcher/boot/initramfs.h"

/* The exact bytes of a header, for byte-for-byte comparisons. */
static void header(char *out, uint32_t ino, uint32_t mode, uint32_t nlink,
                   uint32_t filesize, uint32_t namesize)
{
    sprintf(out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
            ino, mode, 0, 0, nlink, 0, filesize, 0, 0, 0, 0, namesize, 0);
}

static void empty_archive_is_the_trailer_alone(void)
{
    struct cpio c;
    struct error e;
    char want[200];

    cpio_init(&c);
    CHECK(cpio_finish(&c, &e) == 0);
    header(want, 0, 0, 1, 0, 11);
    memcpy(want + 110, "TRAILER!!!\0\0\0", 14);   /* 121 bytes, padded to 124 */
    CHECK(c.size == 124);
    CHECK(!memcmp(c.bytes, want, 124));
    cpio_release(&c);
}

static void file_entry_byte_for_byte(void)
{
    struct cpio c;
    struct error e;
    uint8_t want[300];
    size_t n = 0;

    cpio_init(&c);
    CHECK(cpio_add_file(&c, "init", 0755, "abcde", 5, &e) == 0);
    CHECK(cpio_finish(&c, &e) == 0);
    /* header 110 + "init\0" 5 = 115, padded to 116; 5 data bytes to 124 */
    header((char *)want, 1, 0100755, 1, 5, 5);
    n = 110;
    memcpy(want + n, "init\0\0", 6);
    n += 6;
    memcpy(want + n, "abcde\0\0\0", 8);
    n += 8;
    header((char *)want + n, 0, 0, 1, 0, 11);
    n += 110;
    memcpy(want + n, "TRAILER!!!\0\0\0", 14);
    n += 14;
    CHECK(n == 248);
    CHECK(c.size == n);
    CHECK(!memcmp(c.bytes, want, n));
    cpio_release(&c);
}

static void symlink_dir_and_device_byte_for_byte(void)
{
    struct cpio c;
    struct error e;
    char want[120];

    cpio_init(&c);
    CHECK(cpio_add_dir(&c, "bin", 0755, &e) == 0);
    CHECK(cpio_add_symlink(&c, "bin/sh", "busybox", &e) == 0);
    CHECK(cpio_add_char_device(&c, "dev/console", 0600, 5, 1, &e) == 0);
    /* dir: 110 + "bin\0" = 114 -> 116 */
    header(want, 1, 040755, 2, 0, 4);
    CHECK(!memcmp(c.bytes, want, 110));
    CHECK(!memcmp(c.bytes + 110, "bin\0\0\0", 6));
    /* symlink at 116: the target is the data, with no NUL */
    header(want, 2, 0120777, 1, 7, 7);
    CHECK(!memcmp(c.bytes + 116, want, 110));
    /* 226 + "bin/sh\0" = 233 -> 236; 236 + "busybox" = 243 -> 244 */
    CHECK(!memcmp(c.bytes + 226, "bin/sh\0\0\0\0", 10));
    CHECK(!memcmp(c.bytes + 236, "busybox\0", 8));
    /* device at 244: mode (field 2), rdev 5:1 (fields 10 and 11) */
    CHECK(!memcmp(c.bytes + 244, "070701", 6));
    CHECK(!memcmp(c.bytes + 244 + 6 + 8, "00002180", 8));
    CHECK(!memcmp(c.bytes + 244 + 6 + 8 * 9, "0000000500000001", 16));
    cpio_release(&c);
}

/* Every name length 1..8 against every data length 0..7: all paddings. */
static void odd_name_and_data_lengths_parse_back(void)
{
    static const char letters[] = "abcdefgh";
    char names[8][9];
    uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    struct cpio c;
    struct error e;
    int k = 0;

    CHECK(a);
    cpio_init(&c);
    for (int nl = 1; nl <= 8; nl++) {
        snprintf(names[nl - 1], sizeof(names[0]), "%.*s", nl, letters);
        for (int dl = 0; dl < 8; dl++) {
            char name[96];

            snprintf(name, sizeof(name), "%s%d", names[nl - 1], dl);
            CHECK(cpio_add_file(&c, name, 0644, data, dl, &e) == 0);
        }
    }
    CHECK(cpio_finish(&c, &e) == 0);
    CHECK(c.size % 4 == 0);
    CHECK(cpio_read_archive(c.bytes, c.size, a));
    CHECK(a->n == 64);
    for (int nl = 1; nl <= 8; nl++)
        for (int dl = 0; dl < 8; dl++, k++) {
            char name[96];

            snprintf(name, sizeof(name), "%s%d", names[nl - 1], dl);
            CHECK(!strcmp(a->e[k].name, name));
            CHECK(a->e[k].size == (uint32_t)dl);
            CHECK(a->e[k].mode == (S_IFREG | 0644));
            CHECK(!memcmp(a->e[k].data, data, dl));
        }
    cpio_release(&c);
    free(a);
}

static void large_file_parses_back(void)
{
    size_t big = (5u << 20) + 3;   /* 5 MiB and an odd tail */
    uint8_t *data = malloc(big);
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    struct cpio c;
    struct error e;

    CHECK(data && a);
    for (size_t i = 0; i < big; i++)
        data[i] = (uint8_t)(i * 131 + (i >> 16));
    cpio_init(&c);
    CHECK(cpio_add_file(&c, "small", 0600, "x", 1, &e) == 0);
    CHECK(cpio_add_file(&c, "big", 0755, data, big, &e) == 0);
    CHECK(cpio_add_file(&c, "after", 0600, "yz", 2, &e) == 0);
    CHECK(cpio_finish(&c, &e) == 0);
    CHECK(cpio_read_archive(c.bytes, c.size, a));
    CHECK(a->n == 3);
    CHECK(a->e[1].size == big);
    CHECK(!memcmp(a->e[1].data, data, big));
    CHECK(!memcmp(a->e[2].data, "yz", 2));
    cpio_release(&c);
    free(data);
    free(a);
}

static void file_over_4gib_refused_and_archive_unusable(void)
{
    struct cpio c;
    struct error e = { "" };

    cpio_init(&c);
    /* The size is refused before the (absent) data is touched. */
    CHECK(cpio_add_file(&c, "huge", 0644, NULL, CPIO_MAX_FILE_BYTES + 1, &e) == -1);
    CHECK_CONTAINS(e.msg, "huge");
    CHECK_CONTAINS(e.msg, "too large");
    CHECK(cpio_add_file(&c, "fine", 0644, "a", 1, &e) == 0);
    CHECK(cpio_finish(&c, &e) == -1);
    cpio_release(&c);
}

static void bad_names_refused(void)
{
    struct cpio c;
    struct error e = { "" };

    cpio_init(&c);
    CHECK(cpio_add_file(&c, "/init", 0755, "a", 1, &e) == -1);
    CHECK_CONTAINS(e.msg, "/init");
    CHECK(cpio_add_dir(&c, "", 0755, &e) == -1);
    CHECK(cpio_finish(&c, &e) == -1);
    cpio_release(&c);
}

/* Found by tests/fuzz/fuzz_cpio.c: an entry named like the trailer would
 * end the archive there for Linux, and every later entry would be lost. */
static void trailer_name_refused(void)
{
    struct cpio c;
    struct error e = { "" };

    cpio_init(&c);
    CHECK(cpio_add_file(&c, "TRAILER!!!", 0644, "a", 1, &e) == -1);
    CHECK_CONTAINS(e.msg, "end marker");
    CHECK(cpio_add_file(&c, "init", 0755, "a", 1, &e) == 0);
    CHECK(cpio_finish(&c, &e) == -1);
    cpio_release(&c);
    /* Only the whole name is the marker. */
    cpio_init(&c);
    CHECK(cpio_add_dir(&c, "TRAILER!!!x", 0755, &e) == 0);
    CHECK(cpio_add_symlink(&c, "x/TRAILER!!!", "TRAILER!!!", &e) == 0);
    CHECK(cpio_finish(&c, &e) == 0);
    cpio_release(&c);
}

static void empty_file_with_no_data_pointer(void)
{
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    struct cpio c;
    struct error e;

    CHECK(a);
    cpio_init(&c);
    CHECK(cpio_add_file(&c, "empty", 0644, NULL, 0, &e) == 0);
    CHECK(cpio_finish(&c, &e) == 0);
    CHECK(cpio_read_archive(c.bytes, c.size, a));
    CHECK(a->n == 1 && a->e[0].size == 0);
    cpio_release(&c);
    free(a);
}

static void cmd_encoding(void)
{
    char *argv[] = { "/bin/sh", "-c", "echo a  b; exit 7", "", "last", NULL };
    size_t n = 0;
    char *buf = initramfs_encode_cmd(argv, 5, &n);
    static const char want[] = "/bin/sh\0-c\0echo a  b; exit 7\0\0last";

    CHECK(buf);
    CHECK(n == sizeof(want));   /* includes the final NUL */
    CHECK(!memcmp(buf, want, n));
    free(buf);
    buf = initramfs_encode_cmd(argv, 1, &n);
    CHECK(buf && n == 8 && !memcmp(buf, "/bin/sh", 8));
    free(buf);
}

/* A fake /init and busybox: what matters is that the bytes arrive. */
static const uint8_t fake_init[] = "\177ELF init bytes";
static const uint8_t fake_busybox[] = "\177ELF busybox bytes, a few more";

static bool build(struct cpio_read_archive *a, bool busybox, char **cmd, int argc,
                  struct file_data *out)
{
    struct initramfs_config cfg = {
        .init = fake_init, .init_bytes = sizeof(fake_init),
        .busybox = busybox ? fake_busybox : NULL,
        .busybox_bytes = busybox ? sizeof(fake_busybox) : 0,
        .cmd = cmd, .cmd_argc = argc,
    };
    struct error e;

    return initramfs_build(&cfg, out, &e) == 0 &&
           cpio_read_archive(out->bytes, out->size, a);
}

/* Each entry's parent folder comes before it, as the kernel needs. */
static bool parents_first(const struct cpio_read_archive *a)
{
    for (int i = 0; i < a->n; i++) {
        const char *slash = strrchr(a->e[i].name, '/');
        bool found = false;

        if (!slash)
            continue;
        for (int j = 0; j < i && !found; j++)
            found = strlen(a->e[j].name) == (size_t)(slash - a->e[i].name) &&
                    !strncmp(a->e[j].name, a->e[i].name, slash - a->e[i].name) &&
                    S_ISDIR(a->e[j].mode);
        if (!found)
            return false;
    }
    return true;
}

static void initramfs_with_busybox_and_command(void)
{
    char *cmd[] = { "/bin/sh", "-c", "uname -a; echo ok" };
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    struct file_data out;
    const struct cpio_read_entry *en;
    static const char *const dirs[] = { "dev", "proc", "sys", "bin", "sbin",
                                        "tmp", "etc", "perch", "lib",
                                        "lib/modules", NULL };

    CHECK(a);
    CHECK(build(a, true, cmd, 3, &out));
    CHECK(parents_first(a));
    for (int i = 0; dirs[i]; i++) {
        en = cpio_read_find(a, dirs[i]);
        CHECK(en && S_ISDIR(en->mode));
    }
    CHECK((cpio_read_find(a, "tmp")->mode & 07777) == 01777);
    CHECK((en = cpio_read_find(a, "init")) && en->mode == (S_IFREG | 0755));
    CHECK(en->size == sizeof(fake_init) && !memcmp(en->data, fake_init, en->size));
    CHECK((en = cpio_read_find(a, "dev/console")) && S_ISCHR(en->mode));
    CHECK(en->rdev_major == 5 && en->rdev_minor == 1);
    CHECK((en = cpio_read_find(a, "bin/busybox")) && en->mode == (S_IFREG | 0755));
    CHECK(!memcmp(en->data, fake_busybox, sizeof(fake_busybox)));
    for (int i = 0; initramfs_applets[i]; i++) {
        char name[64];

        snprintf(name, sizeof(name), "bin/%s", initramfs_applets[i]);
        CHECK((en = cpio_read_find(a, name)) && S_ISLNK(en->mode));
        CHECK(en->size == 7 && !memcmp(en->data, "busybox", 7));
    }
    CHECK((en = cpio_read_find(a, "perch/cmd")) && en->mode == (S_IFREG | 0644));
    CHECK(en->size == 29 && !memcmp(en->data, "/bin/sh\0-c\0uname -a; echo ok", 29));
    /* Every entry belongs to root, at time 0, with its own inode. */
    for (int i = 0; i < a->n; i++) {
        CHECK(a->e[i].uid == 0 && a->e[i].gid == 0 && a->e[i].mtime == 0);
        for (int j = 0; j < i; j++)
            CHECK(a->e[i].ino != a->e[j].ino);
    }
    file_release(&out);
    free(a);
}

static void initramfs_without_busybox_or_command(void)
{
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    struct file_data out;

    CHECK(a);
    CHECK(build(a, false, NULL, 0, &out));
    CHECK(cpio_read_find(a, "init") && cpio_read_find(a, "bin") &&
          cpio_read_find(a, "perch"));
    CHECK(!cpio_read_find(a, "bin/busybox"));
    CHECK(!cpio_read_find(a, "bin/sh"));
    CHECK(!cpio_read_find(a, "perch/cmd"));
    CHECK(!cpio_read_find(a, "perch/root"));
    CHECK(!cpio_read_find(a, "perch/net") && !cpio_read_find(a, "perch/dhcp-event"));
    for (int i = 0; i < a->n; i++)
        CHECK(strncmp(a->e[i].name, "lib/modules/", 12));
    file_release(&out);
    free(a);
}

static const uint8_t fake_blk[] = "\177ELF blkfront";
static const uint8_t fake_net[] = "\177ELF netfront, longer";

/* The default kernel's modules, flat in /lib/modules; the --root device. */
static void initramfs_with_modules_and_root(void)
{
    const struct initramfs_module mods[] = {
        { "xen-blkfront.ko", fake_blk, sizeof(fake_blk) },
        { "xen-netfront.ko", fake_net, sizeof(fake_net) },
    };
    struct initramfs_config cfg = {
        .init = fake_init, .init_bytes = sizeof(fake_init),
        .modules = mods, .nr_modules = 2, .root = "/dev/xvda1",
    };
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    const struct cpio_read_entry *en;
    struct file_data out;
    struct error e;

    CHECK(a);
    CHECK(initramfs_build(&cfg, &out, &e) == 0);
    CHECK(cpio_read_archive(out.bytes, out.size, a));
    CHECK(parents_first(a));
    CHECK((en = cpio_read_find(a, "lib/modules/xen-blkfront.ko")));
    CHECK(en->mode == (S_IFREG | 0644));
    CHECK(en->size == sizeof(fake_blk) && !memcmp(en->data, fake_blk, en->size));
    CHECK((en = cpio_read_find(a, "lib/modules/xen-netfront.ko")));
    CHECK(en->size == sizeof(fake_net) && !memcmp(en->data, fake_net, en->size));
    CHECK((en = cpio_read_find(a, "perch/root")) && en->mode == (S_IFREG | 0644));
    CHECK(en->size == 10 && !memcmp(en->data, "/dev/xvda1", 10));
    CHECK(!cpio_read_find(a, "perch/cmd"));
    file_release(&out);
    free(a);
}

/* --net: the marker /init looks for, and udhcpc's script, /init itself. */
static void initramfs_with_net(void)
{
    struct initramfs_config cfg = {
        .init = fake_init, .init_bytes = sizeof(fake_init), .net = true,
    };
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    const struct cpio_read_entry *en;
    struct file_data out;
    struct error e;

    CHECK(a);
    CHECK(initramfs_build(&cfg, &out, &e) == 0);
    CHECK(cpio_read_archive(out.bytes, out.size, a));
    CHECK(parents_first(a));
    CHECK((en = cpio_read_find(a, "perch/net")) && en->mode == (S_IFREG | 0644));
    CHECK(en->size == 5 && !memcmp(en->data, "eth0\n", 5));
    CHECK((en = cpio_read_find(a, "perch/dhcp-event")) && S_ISLNK(en->mode));
    CHECK(en->size == 5 && !memcmp(en->data, "/init", 5));
    CHECK((en = cpio_read_find(a, "etc")) && S_ISDIR(en->mode));   /* resolv.conf's */
    file_release(&out);
    free(a);
}

/* /init loads every .ko in /lib/modules: nothing else goes there. */
static void module_names_checked(void)
{
    static const char *const bad[] = { "", ".ko", "sub/x.ko", "x.o", "x.ko.xz", NULL };
    struct file_data out;
    struct error e = { "" };

    for (int i = 0; bad[i]; i++) {
        const struct initramfs_module m = { bad[i], fake_blk, sizeof(fake_blk) };
        struct initramfs_config cfg = {
            .init = fake_init, .init_bytes = sizeof(fake_init),
            .modules = &m, .nr_modules = 1,
        };

        CHECK(initramfs_build(&cfg, &out, &e) == -1);
        CHECK_CONTAINS(e.msg, "bad module name");
    }
}

static void initramfs_same_bytes_every_time(void)
{
    char *cmd[] = { "true" };
    struct cpio_read_archive *a = calloc(1, sizeof(*a));
    struct file_data one, two;

    CHECK(a);
    CHECK(build(a, true, cmd, 1, &one));
    CHECK(build(a, true, cmd, 1, &two));
    CHECK(one.size == two.size && !memcmp(one.bytes, two.bytes, one.size));
    file_release(&one);
    file_release(&two);
    free(a);
}

static void applet_names_are_plain_and_unique(void)
{
    bool has_sh = false;

    for (int i = 0; initramfs_applets[i]; i++) {
        CHECK(initramfs_applets[i][0] && strlen(initramfs_applets[i]) < 32);
        CHECK(!strchr(initramfs_applets[i], '/'));
        has_sh |= !strcmp(initramfs_applets[i], "sh");
        for (int j = 0; j < i; j++)
            CHECK(strcmp(initramfs_applets[i], initramfs_applets[j]));
    }
    CHECK(has_sh);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(empty_archive_is_the_trailer_alone);
    RUN(file_entry_byte_for_byte);
    RUN(symlink_dir_and_device_byte_for_byte);
    RUN(odd_name_and_data_lengths_parse_back);
    RUN(large_file_parses_back);
    RUN(file_over_4gib_refused_and_archive_unusable);
    RUN(bad_names_refused);
    RUN(trailer_name_refused);
    RUN(empty_file_with_no_data_pointer);
    RUN(cmd_encoding);
    RUN(initramfs_with_busybox_and_command);
    RUN(initramfs_without_busybox_or_command);
    RUN(initramfs_with_modules_and_root);
    RUN(initramfs_with_net);
    RUN(module_names_checked);
    RUN(initramfs_same_bytes_every_time);
    RUN(applet_names_are_plain_and_unique);
    return check_exit_status();
}
