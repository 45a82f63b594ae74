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
#include "bench_set.h"

#include <string.h>

#include "../boot/default_guest.h"

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
    bool devices = set->disk_image[0] || set->net_port;
    struct bench_machine m = { "TCG run", &set->tcg, q.argv, NULL, true };
    char initrd[PATH_MAX];

    if (default_guest_open(&g, e) || default_guest_kernel(&g, e) ||
        bench_machine_initrd(d, "initrd-tcg.cpio", o,
                             devices ? &default_guest_virtio_modules : NULL,
                             initrd, e) ||
        bench_qemu_args(&q, set, o, g.kernel, initrd, e))
        return -1;
    return bench_machine_run(set, d, &m, e);
}
