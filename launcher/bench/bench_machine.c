/* A run of the guest on another machine than perch: QEMU TCG
 * (bench_qemu.c), UML (bench_uml.c). Either boots perch's initramfs,
 * written to a file, and prints the guest's console on its stdout, which
 * is read as a serial console (the guest's exit status and marks taken
 * out as perch's console does); the run's checks and messages are the
 * same for both, named after the side. */
#include "bench_set.h"

#include <sys/wait.h>

#include "../base/file.h"
#include "../base/program.h"
#include "../run/launch.h"

int bench_machine_initrd(const struct bench_dir *d, const char *name,
                         const struct options *o,
                         const struct default_guest_module_set *modules,
                         char *path, struct error *e)
{
    struct file_data cpio;
    int rc;

    if (launch_initramfs(o, modules, &cpio, e))
        return -1;
    rc = bench_dir_file(d, name, cpio.bytes, cpio.size, path, e);
    file_release(&cpio);
    return rc;
}

/* The machine's own status, then the guest's (/init reports
 * perchbench's), then every chosen benchmark's line. */
static int check_run(struct bench_set *set, const struct bench_machine *m,
                     const struct bench_serial *s, int status,
                     struct error *e)
{
    const char *last = s->capture->last, *missing;

    if (m->watch && m->watch->timed_out)
        return fail(e, "%s: %s printed nothing for %u s and was killed "
                       "(last line: %s)", m->what, m->argv[0],
                    m->watch->quiet_limit_s, last);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        return fail(e, "%s: %s failed (%s %d): %s", m->what, m->argv[0],
                    WIFEXITED(status) ? "status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                    last);
    if (s->said.exit_status != 0)
        return fail(e, "%s: the guest's perchbench %s (last line: %s)",
                    m->what, s->said.exit_status < 0 ? "reported no exit status"
                                                     : "failed", last);
    missing = bench_missing(set, s->capture->res, false, m->with_net);
    if (missing)
        return fail(e, "%s: no result for %s (last line: %s)", m->what,
                    missing, last);
    m->side->runs = 1;
    return 0;
}

int bench_machine_run(struct bench_set *set, const struct bench_dir *d,
                      const struct bench_machine *m, struct error *e)
{
    struct bench_capture c;
    struct bench_serial s;
    struct error peer_e;
    int status, rc;
    pid_t peer = 0;

    if (set->disk_image[0] && bench_disk_fresh(set, e))
        return -1;
    bench_capture_start(&c, set, m->side->r[0], m->what);
    bench_serial_start(&s, &c);
    bench_progress(c.progress, "booting");
    if (m->with_net && bench_net_peer_start(set, d, &peer, e))
        return -1;
    rc = m->watch ? program_run_watched(m->argv, m->watch, bench_serial_bytes,
                                        &s, &status, e)
                  : program_run(m->argv, bench_serial_bytes, &s, &status, e);
    bench_serial_end(&s);
    if (!rc)
        rc = check_run(set, m, &s, status, e);
    if (bench_net_peer_end(peer, !rc, &peer_e) && !rc)
        return fail(e, "%s: %s", m->what, peer_e.msg);
    return rc;
}
