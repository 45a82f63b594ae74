/* `perch bench --uml`: the guest perch runs, as User-Mode Linux instead:
 * Debian's linux.uml (Linux 6.1 built as a host program, each guest
 * process a host process it drives by ptrace), booting perch's initramfs
 * for the same command, with the same memory, so that the same /init and
 * perchbench print the same lines and marks. UML has no SMP: one CPU,
 * whatever --cpus says. Its devices are its own, not Xen's or virtio's,
 * so the initramfs carries no modules. For the disk group, the same image
 * as ubd0 (the guest's /dev/ubda), which UML reads and writes through the
 * host's page cache; the net group is not run (UML has no user-mode
 * network of its own: its slirp and VDE transports drive an outside
 * program, so there is no port to forward to perchbench's listener).
 *
 * The console: con0 is UML's stdout (con0=null,fd:1: nothing read, so no
 * terminal is touched) and every other console null, so the guest's
 * console is a byte stream on a pipe, as QEMU's serial port is. UML keeps
 * the guest's memory in a file it maps, in TMPDIR: tmpfs (/dev/shm) when
 * it can be written, as UML itself prefers, else the run's own folder.
 * /init's poweroff ends UML; its helper processes, which outlive it when
 * it is killed, end with it (program_run_watched).
 *
 * UML 6.1 cannot restore a process's FPU state on a host whose XSAVE area
 * outgrew its buffer (AMX: it panics at its first process), so it runs
 * with the small library of launcher/bench/preload/uml_xstate.c, carried
 * inside build/perch and written to the run's folder. */
#include "bench_set.h"

#include <string.h>
#include <unistd.h>

#include "../boot/images.h"

#define UML_TMPFS "/dev/shm"

int bench_uml_args(struct bench_uml_args *u, const struct bench_set *set,
                   const struct options *o, const char *initrd,
                   const char *tmpdir, const char *preload, struct error *e)
{
    int a = 0;

    snprintf(u->mem, sizeof(u->mem), "mem=%luM", (unsigned long)o->mem_mib);
    snprintf(u->initrd, sizeof(u->initrd), "initrd=%s", initrd);
    snprintf(u->tmpdir, sizeof(u->tmpdir), "TMPDIR=%s", tmpdir);
    snprintf(u->preload, sizeof(u->preload), "LD_PRELOAD=%s", preload);
    u->argv[a++] = BENCH_UML;
    u->argv[a++] = u->mem;
    u->argv[a++] = u->initrd;
    /* Every console and serial line null but con0, which is stdout. */
    u->argv[a++] = "con=null";
    u->argv[a++] = "ssl=null";
    u->argv[a++] = "con0=null,fd:1";
    if (set->disk_image[0]) {
        /* ubd0=FILE,COW or FILE:COW: a ',' or ':' starts a second file. */
        if (strpbrk(set->disk_image, ",:"))
            return fail(e, "UML cannot take the disk image %s: ubd0= reads a "
                           "',' or ':' in its path as the start of another "
                           "file", set->disk_image);
        snprintf(u->ubd, sizeof(u->ubd), "ubd0=%s", set->disk_image);
        u->argv[a++] = u->ubd;
    }
    u->argv[a] = NULL;
    u->env[0] = u->tmpdir;
    u->env[1] = u->preload;
    u->env[2] = NULL;
    return 0;
}

int bench_uml_run(struct bench_set *set, const struct bench_dir *d,
                  const struct options *o, struct error *e)
{
    static struct bench_uml_args u;  /* large: three paths */
    struct program_watch watch = { u.env, BENCH_UML_QUIET_S, false };
    struct bench_machine m = { "UML run", &set->uml, u.argv, &watch, false };
    const char *tmpdir = access(UML_TMPFS, W_OK | X_OK) ? d->path : UML_TMPFS;
    char initrd[PATH_MAX], preload[PATH_MAX];
    const uint8_t *bytes;
    size_t len;

    images_uml_preload(&bytes, &len);
    if (!bytes || !len)
        return fail(e, "this perch carries no library for UML");
    if (bench_dir_file(d, "uml-xstate.so", bytes, len, preload, e) ||
        bench_machine_initrd(d, "initrd-uml.cpio", o, NULL, initrd, e) ||
        bench_uml_args(&u, set, o, initrd, tmpdir, preload, e))
        return -1;
    return bench_machine_run(set, d, &m, e);
}
