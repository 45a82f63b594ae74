/*
 * `perch bench`'s net group, the host's side: one free port on 127.0.0.1
 * for the whole run, and around each side's run the peer, `perchbench
 * netpeer 127.0.0.1:PORT` (the embedded perchbench again), which connects
 * to the benchmark through that port: natively perchbench listens there
 * itself, in perch and QEMU the port is forwarded to the guest's.
 */
#include "bench_set.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PEER_END_MS 5000    /* for the peer to see the end of the run */
#define POLL_MS     20

/* The kernel's choice of a free port, given back at once: perch or QEMU
 * binds it again for the forwarding (the gap is a race, a small one). */
int bench_net_pick_port(struct bench_set *set, struct error *e)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;

    if (fd < 0)
        return fail(e, "socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        rc = fail(e, "cannot find a free port on 127.0.0.1: %s", strerror(errno));
    else
        set->net_port = ntohs(a.sin_port);
    close(fd);
    return rc;
}

int bench_net_peer_start(const struct bench_set *set, const struct bench_dir *d,
                         pid_t *pid, struct error *e)
{
    char where[32];

    *pid = 0;
    if (!set->net_port)
        return 0;
    snprintf(where, sizeof(where), "127.0.0.1:%u", set->net_port);
    *pid = fork();
    if (*pid < 0)
        return fail(e, "fork: %s", strerror(errno));
    if (*pid == 0) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);

        /* stderr stays: a peer that fails says why, in one line. */
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
        }
        execl(d->exe, d->exe, "netpeer", where, (char *)NULL);
        dprintf(STDERR_FILENO, "perch bench: cannot run %s: %s\n", d->exe,
                strerror(errno));
        _exit(127);
    }
    return 0;
}

int bench_net_peer_end(pid_t pid, bool ok, struct error *e)
{
    int status = 0;
    pid_t got = 0;

    if (pid <= 0)
        return 0;
    for (int ms = 0; ok && ms < PEER_END_MS && !got; ms += POLL_MS) {
        got = waitpid(pid, &status, WNOHANG);
        if (!got)
            usleep(POLL_MS * 1000);
    }
    if (got <= 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (ok)
            return fail(e, "the net group's peer did not end with the run");
        return 0;
    }
    if (ok && (!WIFEXITED(status) || WEXITSTATUS(status)))
        return fail(e, "the net group's peer failed (%s %d)",
                    WIFEXITED(status) ? "status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    return 0;
}
