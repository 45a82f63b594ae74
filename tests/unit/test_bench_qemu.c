/*
 * Unit tests of QEMU's command line under `perch bench --qemu`
 * (launcher/bench/bench_qemu.c): the guest's memory and vCPUs (-smp N, on
 * MTTCG when N > 1), the disk and the network card only when asked for;
 * -drive's value, with QEMU's escaping of a comma in the image's path (a
 * --out folder may have one), and a path too long for the buffer refused
 * rather than cut.
 */
#include <string.h>

#include "check.h"

#include "../../launcher/bench/bench_set.h"

static void drive_names_a_raw_virtio_disk(void)
{
    char out[256];
    struct error e = { "" };

    CHECK(bench_qemu_drive("out/perch-bench-disk.img", out, sizeof(out), &e) == 0);
    CHECK(!strcmp(out, "file=out/perch-bench-disk.img,format=raw,if=virtio,"
                       BENCH_QEMU_DRIVE_CACHE));
}

/* QEMU reads ",," in a value as one comma; a lone one would end file=
 * and make the rest of the path options. */
static void drive_doubles_commas(void)
{
    char out[256];
    struct error e = { "" };

    CHECK(bench_qemu_drive("/r,esults,/d.img", out, sizeof(out), &e) == 0);
    CHECK(!strncmp(out, "file=/r,,esults,,/d.img,format=raw,", 35));
}

static void drive_too_long_is_refused(void)
{
    static const char fits[] = "file=x,format=raw,if=virtio," BENCH_QEMU_DRIVE_CACHE;
    char out[sizeof(fits) + 8];
    struct error e = { "" };

    CHECK(bench_qemu_drive("/a/b.img", out, 48, &e) == -1);
    CHECK_CONTAINS(e.msg, "too long for QEMU's -drive");
    CHECK(bench_qemu_drive(",,,,,,,,,,,,,,,,,,,,,,,,,,", out, 48, &e) == -1);
    /* The one that just fits, and one byte more. */
    CHECK(bench_qemu_drive("x", out, sizeof(fits), &e) == 0);
    CHECK(!strcmp(out, fits));
    CHECK(bench_qemu_drive("xy", out, sizeof(fits), &e) == -1);
    CHECK(bench_qemu_drive(",", out, sizeof(fits), &e) == -1);
}

/* The word after the first `word` in argv, or NULL. */
static const char *after(char *const *argv, const char *word)
{
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], word))
            return argv[i + 1];
    return NULL;
}

static struct bench_set set;
static struct bench_qemu_args q;
static struct options o;

static void args_one_vcpu(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    o.mem_mib = 256;
    o.cpus = 1;
    CHECK(bench_qemu_args(&q, &set, &o, "/c/vmlinuz", "/t/initrd.cpio", &e) == 0);
    CHECK(!strcmp(q.argv[0], BENCH_QEMU));
    CHECK(!strcmp(after(q.argv, "-accel"), "tcg"));
    CHECK(!strcmp(after(q.argv, "-smp"), "1") && check_count_word(q.argv, "-smp") == 1);
    CHECK(!strcmp(after(q.argv, "-m"), "256"));
    CHECK(!strcmp(after(q.argv, "-kernel"), "/c/vmlinuz"));
    CHECK(!strcmp(after(q.argv, "-initrd"), "/t/initrd.cpio"));
    CHECK(!strcmp(after(q.argv, "-append"), "console=ttyS0"));
    CHECK(!after(q.argv, "-drive") && !after(q.argv, "-netdev"));
}

/* perch's vCPUs are a host thread each: QEMU's, with MTTCG, too. */
static void args_vcpus(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    o.mem_mib = 1024;
    o.cpus = 4;
    CHECK(bench_qemu_args(&q, &set, &o, "k", "i", &e) == 0);
    CHECK(!strcmp(after(q.argv, "-smp"), "4") && check_count_word(q.argv, "-smp") == 1);
    CHECK(!strcmp(after(q.argv, "-accel"), "tcg,thread=multi"));
    CHECK(check_count_word(q.argv, "-accel") == 1);
    CHECK(!strcmp(after(q.argv, "-m"), "1024"));
    o.cpus = MAX_CPUS;
    CHECK(bench_qemu_args(&q, &set, &o, "k", "i", &e) == 0);
    CHECK(!strcmp(after(q.argv, "-smp"), "64"));
}

static void args_disk_and_net(void)
{
    struct error e = { "" };

    memset(&set, 0, sizeof(set));
    strcpy(set.disk_image, "out/perch-bench-disk.img");
    set.net_port = 40123;
    o.mem_mib = 256;
    o.cpus = 2;
    CHECK(bench_qemu_args(&q, &set, &o, "k", "i", &e) == 0);
    CHECK(!strcmp(after(q.argv, "-drive"), "file=out/perch-bench-disk.img,"
                  "format=raw,if=virtio," BENCH_QEMU_DRIVE_CACHE));
    CHECK(!strcmp(after(q.argv, "-netdev"),
                  "user,id=n0,hostfwd=tcp:127.0.0.1:40123-:5201"));
    CHECK(!strcmp(after(q.argv, "-device"), "virtio-net-pci,netdev=n0"));
    CHECK(!strcmp(after(q.argv, "-smp"), "2"));
    /* The longest path, every other byte a comma (doubled), still fits. */
    memset(set.disk_image, 'x', PATH_MAX - 1);
    set.disk_image[PATH_MAX - 1] = '\0';
    for (int i = 0; i < PATH_MAX - 1; i += 2)
        set.disk_image[i] = ',';
    CHECK(bench_qemu_args(&q, &set, &o, "k", "i", &e) == 0);   /* fits, doubled */
    CHECK(strlen(after(q.argv, "-drive")) > PATH_MAX);
}

int main(void)
{
    RUN(args_one_vcpu);
    RUN(args_vcpus);
    RUN(args_disk_and_net);
    RUN(drive_names_a_raw_virtio_disk);
    RUN(drive_doubles_commas);
    RUN(drive_too_long_is_refused);
    return check_exit_status();
}
