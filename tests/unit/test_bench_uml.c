/*
 * Unit tests of UML's command line under `perch bench --uml`
 * (launcher/bench/bench_uml.c): the guest's memory, perch's initramfs,
 * every console null but con0 on stdout, TMPDIR for UML's memory file in
 * its environment, and the disk image as ubd0 only when asked for; an
 * image path with what ubd0= would split it at is refused, not cut.
 */
#include <string.h>

#include "check.h"

#include "../../launcher/bench/bench_set.h"

/* The word in argv that starts with prefix, or NULL. */
static const char *starting(char *const *argv, const char *prefix)
{
    for (int i = 0; argv[i]; i++)
        if (!strncmp(argv[i], prefix, strlen(prefix)))
            return argv[i];
    return NULL;
}

static struct bench_set set;
static struct bench_uml_args u;
static struct options o;

static void args_memory_initrd_consoles(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    o.mem_mib = 512;
    o.cpus = 4;   /* UML's one CPU whatever the guest's */
    CHECK(bench_uml_args(&u, &set, &o, "/t/initrd-uml.cpio", "/dev/shm", "/t/uml-xstate.so", &e) == 0);
    CHECK(!strcmp(u.argv[0], BENCH_UML));
    CHECK(check_count_word(u.argv, "mem=512M") == 1);
    CHECK(check_count_word(u.argv, "initrd=/t/initrd-uml.cpio") == 1);
    CHECK(check_count_word(u.argv, "con=null") == 1 && check_count_word(u.argv, "ssl=null") == 1);
    CHECK(check_count_word(u.argv, "con0=null,fd:1") == 1);
    /* con0 after con=, which would otherwise make it null too */
    for (int i = 0; u.argv[i]; i++)
        if (!strcmp(u.argv[i], "con=null"))
            CHECK(check_count_word(u.argv + i, "con0=null,fd:1") == 1);
    CHECK(!starting(u.argv, "ubd"));
    CHECK(!starting(u.argv, "eth"));
    CHECK(!strcmp(u.env[0], "TMPDIR=/dev/shm"));
    CHECK(!strcmp(u.env[1], "LD_PRELOAD=/t/uml-xstate.so") && !u.env[2]);
}

static void args_disk_is_ubd0(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    strcpy(set.disk_image, "out/perch-bench-disk.img");
    o.mem_mib = 256;
    CHECK(bench_uml_args(&u, &set, &o, "i", "/tmp/perch-bench-x", "p", &e) == 0);
    CHECK(!strcmp(starting(u.argv, "ubd"), "ubd0=out/perch-bench-disk.img"));
    CHECK(check_count_word(u.argv, "mem=256M") == 1);
    CHECK(!strcmp(u.env[0], "TMPDIR=/tmp/perch-bench-x"));
    /* The longest path fits. */
    memset(set.disk_image, 'x', PATH_MAX - 1);
    set.disk_image[PATH_MAX - 1] = '\0';
    CHECK(bench_uml_args(&u, &set, &o, "i", "t", "p", &e) == 0);
    CHECK(strlen(starting(u.argv, "ubd0=")) == PATH_MAX - 1 + 5);
}

/* ubd0=FILE,COW and ubd0=FILE:COW: the rest would be taken for a COW file. */
static void args_disk_path_ubd_would_split(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    o.mem_mib = 256;
    strcpy(set.disk_image, "/r,esults/perch-bench-disk.img");
    CHECK(bench_uml_args(&u, &set, &o, "i", "t", "p", &e) == -1);
    CHECK_CONTAINS(e.msg, "UML cannot take the disk image /r,esults/");
    strcpy(set.disk_image, "/r:esults/perch-bench-disk.img");
    CHECK(bench_uml_args(&u, &set, &o, "i", "t", "p", &e) == -1);
    CHECK_CONTAINS(e.msg, "',' or ':'");
}

int main(void)
{
    RUN(args_memory_initrd_consoles);
    RUN(args_disk_is_ubd0);
    RUN(args_disk_path_ubd_would_split);
    return check_exit_status();
}
