/* The control socket's server (control_server.h, control.h). */
#include "control_server.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control.h"
#include "control_client.h"

#define REQUEST_TIMEOUT_MS 2000

/* A path on the one line of the answer: control bytes shown as '?'. */
static int put_path(char *out, size_t size, const char *path)
{
    size_t n = 0;

    for (; *path && n + 1 < size; path++, n++)
        out[n] = (unsigned char)*path < 0x20 || *path == 0x7f ? '?' : *path;
    out[n] = '\0';
    return (int)n;
}

/* "info"'s answer: the disks' paths joined by commas, "-" for none. */
static void info_line(const struct control_server *s, char *out, size_t size)
{
    struct timespec now;
    int n;

    clock_gettime(CLOCK_MONOTONIC, &now);
    n = snprintf(out, size, "ok pid=%d name=%s vcpus=%u mem_mib=%lu uptime_s=%ld disks=",
                 (int)getpid(), s->guest.name ? s->guest.name : "-", s->guest.vcpus,
                 (unsigned long)s->guest.mem_mib, (long)(now.tv_sec - s->started.tv_sec));
    for (unsigned i = 0; i < s->guest.nr_disks && n > 0 && (size_t)n + 1 < size; i++) {
        n += snprintf(out + n, size - n, "%s", i ? "," : "");
        n += put_path(out + n, size - n, s->guest.disks[i].path);
    }
    if (n > 0 && (size_t)n < size && !s->guest.nr_disks)
        n += snprintf(out + n, size - n, "-");
    if (n > 0 && (size_t)n + 2 <= size)
        snprintf(out + n, size - n, "\n");
    else
        snprintf(out, size, "error the answer is too long\n");
}

uint64_t control_mem_floor_mib(uint64_t mem_mib)
{
    uint64_t floor = 96 + mem_mib / 64;

    return floor < mem_mib ? floor : mem_mib;
}

/* "mem-set MIB": checked against the guest's range, then asked. */
static void mem_set(const struct control_server *s, const char *arg, char *out, size_t size)
{
    uint64_t floor = control_mem_floor_mib(s->guest.mem_mib);
    char *end;
    unsigned long long mib;

    errno = 0;
    mib = strtoull(arg, &end, 10);
    if (end == arg || strcmp(end, "\n") || errno || arg[0] == '-')
        snprintf(out, size, "error mem-set needs a number of MiB\n");
    else if (mib < floor || mib > s->guest.mem_mib)
        snprintf(out, size, "error %llu MiB is outside this guest's range, %" PRIu64
                 " to %" PRIu64 " MiB\n", mib, floor, s->guest.mem_mib);
    else
        snprintf(out, size, "%s", s->guest.ask_memory(s->guest.arg, mib)
                                      ? "error the guest cannot be asked now\n" : "ok\n");
}

/* Read up to size bytes, and a file descriptor passed with them into
 * *passed (only the first is kept; -1: none). */
static ssize_t receive(int fd, char *buf, size_t size, int *passed)
{
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { .iov_base = buf, .iov_len = size };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                        .msg_controllen = sizeof(control) };
    ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);

    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); n >= 0 && c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && *passed < 0 &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(passed, CMSG_DATA(c), sizeof(int));
    return n;
}

/* "save [--leave-running]": into the file passed with the request. */
static void save(const struct control_server *s, const char *line, int file, char *out,
                 size_t size)
{
    bool leave = !strcmp(line, "save --leave-running\n");
    struct error e;

    if (!leave && strcmp(line, "save\n"))
        snprintf(out, size, "error save takes only --leave-running\n");
    else if (file < 0 || !s->guest.save)
        snprintf(out, size, "error save needs the file, passed with the request\n");
    else if (s->guest.save(s->guest.save_arg, file, leave, &e))
        snprintf(out, size, "error %s\n", e.msg);
    else
        snprintf(out, size, "ok\n");
}

/* One request: a line in (bounded in length and time), a line out. */
static void answer(const struct control_server *s, int fd)
{
    char line[CONTROL_LINE_MAX + 1], out[CONTROL_LINE_MAX];
    struct ucred peer;
    socklen_t len = sizeof(peer);
    size_t got = 0;
    int file = -1;
    struct pollfd pfd = { .fd = fd, .events = POLLIN };

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) || peer.uid != getuid())
        return;
    while (got < sizeof(line) - 1 && !memchr(line, '\n', got) &&
           poll(&pfd, 1, REQUEST_TIMEOUT_MS) > 0) {
        ssize_t n = receive(fd, line + got, sizeof(line) - 1 - got, &file);

        if (n <= 0)
            break;
        got += (size_t)n;
    }
    line[got] = '\0';
    if (!strncmp(line, "save", 4))
        save(s, line, file, out, sizeof(out));
    else if (!strcmp(line, "info\n"))
        info_line(s, out, sizeof(out));
    else if (!strcmp(line, "shutdown\n"))
        snprintf(out, sizeof(out), "%s", s->guest.ask_poweroff(s->guest.arg)
                                             ? "error the guest cannot be asked now\n"
                                             : "ok\n");
    else if (!strncmp(line, "mem-set ", 8))
        mem_set(s, line + 8, out, sizeof(out));
    else
        snprintf(out, sizeof(out), "error no such request (info, shutdown, mem-set, save)\n");
    if (file >= 0)
        close(file);
    if (write(fd, out, strlen(out)) < 0)
        return;                         /* the asker left: nothing to tell */
}

static void *serve(void *arg)
{
    struct control_server *s = arg;
    struct pollfd fds[2] = { { .fd = s->listen_fd, .events = POLLIN },
                             { .fd = s->stop_fd, .events = POLLIN } };

    while (poll(fds, 2, -1) >= 0 || errno == EINTR) {
        int fd;

        if (fds[1].revents)
            break;
        if (!fds[0].revents)
            continue;
        fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            answer(s, fd);
            close(fd);
        }
    }
    /* This thread takes its socket away: the one that stops it may be a
     * vCPU thread, whose sandbox has no unlink. */
    unlink(s->path);
    return NULL;
}

static int listen_at(struct control_server *s, const char *dir, struct error *e)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };

    if (snprintf(s->path, sizeof(s->path), "%s/%d.sock", dir, (int)getpid()) >=
        (int)sizeof(s->path))
        return fail(e, "the control socket's path under %s is too long", dir);
    memcpy(a.sun_path, s->path, sizeof(s->path));
    unlink(s->path);                    /* a pid's old socket: that perch is gone */
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0 || bind(s->listen_fd, (struct sockaddr *)&a, sizeof(a)) ||
        listen(s->listen_fd, 8))
        return fail(e, "cannot listen at %s: %s", s->path, strerror(errno));
    return 0;
}

int control_server_start(struct control_server *s, const struct control_guest *g,
                         struct error *e)
{
    char dir[PATH_MAX];

    memset(s, 0, sizeof(*s));
    s->guest = *g;
    s->listen_fd = s->stop_fd = -1;
    clock_gettime(CLOCK_MONOTONIC, &s->started);
    if (control_dir(dir, true, e) < 0)
        return -1;
    if (g->name && control_find(g->name, NULL, e) == 0)
        return fail(e, "--name %s: a running guest has that name already", g->name);
    if (listen_at(s, dir, e))
        return -1;
    s->stop_fd = eventfd(0, EFD_CLOEXEC);
    if (s->stop_fd < 0 || pthread_create(&s->thread, NULL, serve, s))
        return fail(e, "cannot start the control socket's thread");
    s->running = true;
    return 0;
}

void control_server_stop(struct control_server *s)
{
    uint64_t one = 1;

    if (s->running && write(s->stop_fd, &one, sizeof(one)) == sizeof(one))
        pthread_join(s->thread, NULL);
    else if (s->listen_fd >= 0)
        unlink(s->path);                /* never served: before any sandbox */
    s->running = false;
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->stop_fd >= 0)
        close(s->stop_fd);
    s->listen_fd = s->stop_fd = -1;
}
