/*
 * Unit tests of the disk that `perch bench --qemu` gives QEMU
 * (launcher/bench/bench_qemu.c): -drive's value, with QEMU's escaping of a comma
 * in the image's path (a --out folder may have one), and a path too long
 * for the buffer refused rather than cut.
 */
#include <string.h>

#include "check.h"

#include "../../launcher/bench/bench.h"

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

int main(void)
{
    RUN(drive_names_a_raw_virtio_disk);
    RUN(drive_doubles_commas);
    RUN(drive_too_long_is_refused);
    return check_exit_status();
}
