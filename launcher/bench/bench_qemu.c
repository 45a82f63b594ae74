/* `perch bench --qemu`: the guest perch runs, booted by QEMU with TCG
 * instead: Debian's cloud kernel from perch's cache (QEMU boots the bzImage
 * itself), perch's initramfs for the same command written to a file, the
 * same vCPUs (-smp N: with N > 1 on MTTCG, a host thread each, as
 * perch's) and memory, the console on the first serial port, so that the
 * same /init and perchbench print the same lines and marks. For the disk
 * group, the same image as a virtio disk; for the net group, QEMU's own
 * user networking with the same forwarded port on a virtio network card
 * (the initramfs's /init brings it up by DHCP, as it does perch's); and
 * in the initramfs the kernel package's virtio drivers, which Debian's
 * cloud kernel builds as modules. */
#include "bench.h"

#include "../base/program.h"

#include <string.h>
#include <sys/wait.h>

#include "../boot/default_guest.h"
#include "../base/file.h"
#include "../run/launch.h"

static int write_initrd(const struct bench_dir *d, const struct options *o,
                        const struct default_guest_module_set *modules,
                        char *path, struct error *e)
{
    struct file_data cpio;
    int rc;

    if (launch_initramfs(o, modules, &cpio, e))
        return -1;
    rc = bench_dir_file(d, "initrd.cpio", cpio.bytes, cpio.size, path, e);
    file_release(&cpio);
    return rc;
}

/* QEMU's own status, then the guest's (/init reports perchbench's), then
 * every chosen benchmark's line. */
static int check_run(struct bench_set *set, const struct bench_serial *s,
                     int status, struct error *e)
{
    const char *last = s->capture->last, *missing;

    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return fail(e, "TCG run: %s failed (%s %d): %s", BENCH_QEMU,
                    WIFEXITED(status) ? "status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                    last);
    if (s->said.exit_status != 0)
        return fail(e, "TCG run: the guest's perchbench %s (last line: %s)",
                    s->said.exit_status < 0 ? "reported no exit status"
                                       : "failed", last);
    missing = bench_missing(set, s->capture->res, false);
    if (missing)
        return fail(e, "TCG run: no result for %s (last line: %s)", missing,
                    last);
    set->tcg.runs = 1;
    return 0;
}

int bench_qemu_drive(const char *image, char *out, size_t size,
                     struct error *e)
{
    size_t n = snprintf(out, size, "file=");

    for (const char *p = image; *p; p++) {
        if (n + 3 > size)
            return fail(e, "the path %s is too long for QEMU's -drive", image);
        out[n++] = *p;
        if (*p == ',')
            out[n++] = ',';
    }
    if (snprintf(out + n, size - n, ",format=raw,if=virtio,"
                 BENCH_QEMU_DRIVE_CACHE) >= (int)(size - n))
        return fail(e, "the path %s is too long for QEMU's -drive", image);
    return 0;
}

int bench_qemu_args(struct bench_qemu_args *q, const struct bench_set *set,
                    const struct options *o, const char *kernel,
                    const char *initrd, struct error *e)
{
    int a = 0;

    snprintf(q->mem, sizeof(q->mem), "%lu", (unsigned long)o->mem_mib);
    snprintf(q->smp, sizeof(q->smp), "%u", o->cpus);
    q->argv[a++] = BENCH_QEMU;
    q->argv[a++] = "-accel";
    /* MTTCG is x86-on-x86's default, but said: a QEMU that cannot would
     * otherwise run the vCPUs round-robin on one thread, unseen. */
    q->argv[a++] = o->cpus > 1 ? "tcg,thread=multi" : "tcg";
    q->argv[a++] = "-m";
    q->argv[a++] = q->mem;
    q->argv[a++] = "-smp";
    q->argv[a++] = q->smp;
    q->argv[a++] = "-nodefaults";
    q->argv[a++] = "-display";
    q->argv[a++] = "none";
    q->argv[a++] = "-no-reboot";
    q->argv[a++] = "-serial";
    q->argv[a++] = "stdio";
    q->argv[a++] = "-kernel";
    q->argv[a++] = (char *)kernel;
    q->argv[a++] = "-initrd";
    q->argv[a++] = (char *)initrd;
    q->argv[a++] = "-append";
    q->argv[a++] = "console=ttyS0";
    if (set->disk_image[0]) {
        if (bench_qemu_drive(set->disk_image, q->drive, sizeof(q->drive), e))
            return -1;
        q->argv[a++] = "-drive";
        q->argv[a++] = q->drive;
    }
    if (set->net_port) {
        /* The forwarded port as perch's --net user forwards it: on 127.0.0.1. */
        snprintf(q->netdev, sizeof(q->netdev),
                 "user,id=n0,hostfwd=tcp:127.0.0.1:%u-:%u", set->net_port,
                 BENCH_NET_GUEST_PORT);
        q->argv[a++] = "-netdev";
        q->argv[a++] = q->netdev;
        q->argv[a++] = "-device";
        q->argv[a++] = "virtio-net-pci,netdev=n0";
    }
    q->argv[a] = NULL;
    return 0;
}

int bench_qemu_run(struct bench_set *set, const struct bench_dir *d,
                   const struct options *o, struct error *e)
{
    static struct default_guest g;   /* large: four paths */
    static struct bench_qemu_args q; /* large: the drive's path */
    bool disk = set->disk_image[0], net = set->net_port;
    char initrd[PATH_MAX];
    struct bench_capture c;
    struct bench_serial s;
    struct error peer_e;
    int status, rc;
    pid_t peer;

    if (default_guest_open(&g, e) || default_guest_kernel(&g, e) ||
        write_initrd(d, o, disk || net ? &default_guest_virtio_modules : NULL,
                     initrd, e) ||
        bench_qemu_args(&q, set, o, g.kernel, initrd, e) ||
        (disk && bench_disk_fresh(set, e)))
        return -1;
    bench_capture_start(&c, set, set->tcg.r[0], "TCG run");
    bench_serial_start(&s, &c);
    bench_progress(c.progress, "booting");
    if (bench_net_peer_start(set, d, &peer, e))
        return -1;
    rc = program_run(q.argv, bench_serial_bytes, &s, &status, e);
    bench_serial_end(&s);
    if (!rc)
        rc = check_run(set, &s, status, e);
    if (bench_net_peer_end(peer, !rc, &peer_e) && !rc)
        return fail(e, "TCG run: %s", peer_e.msg);
    return rc;
}
