/* The asking end of the control socket (control_client.h, control.h). */
#include "control_client.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "../base/status.h"

#define REPLY_TIMEOUT_MS 5000
/* A save writes the guest's memory: a few GiB take a while. */
#define SAVE_TIMEOUT_MS (10 * 60 * 1000)

/* The request line, with file descriptor pass (-1: none) beside it. */
static int send_request(int fd, const char *request, int pass)
{
    char control[CMSG_SPACE(sizeof(int))] = { 0 };
    struct iovec iov = { .iov_base = (void *)request, .iov_len = strlen(request) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    struct cmsghdr *c;

    if (pass >= 0) {
        m.msg_control = control;
        m.msg_controllen = sizeof(control);
        c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pass, sizeof(int));
    }
    return sendmsg(fd, &m, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -1;
}

/* One request to the socket at path (with file descriptor pass, -1:
 * none), its one-line reply into reply (without the newline) within
 * timeout_ms. -1 with e when nobody answers there (errno ECONNREFUSED:
 * nobody listens any more). */
static int ask_with(const char *path, const char *request, int pass, int timeout_ms,
                    char reply[CONTROL_LINE_MAX], struct error *e)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    struct pollfd pfd = { .events = POLLIN };
    size_t got = 0;
    int fd;

    if (strlen(path) >= sizeof(a.sun_path))
        return fail(e, "%s: path too long", path);
    strcpy(a.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
        send_request(fd, request, pass)) {
        int err = errno;                /* each_guest tells a dead perch by it */

        fail(e, "%s: %s", path, strerror(err));
        if (fd >= 0)
            close(fd);
        errno = err;
        return -1;
    }
    pfd.fd = fd;
    while (got < CONTROL_LINE_MAX - 1 && poll(&pfd, 1, timeout_ms) > 0) {
        ssize_t n = read(fd, reply + got, CONTROL_LINE_MAX - 1 - got);

        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    reply[got] = '\0';
    if (!got || reply[got - 1] != '\n')
        return fail(e, "%s: no answer", path);
    reply[got - 1] = '\0';
    return 0;
}

static int ask(const char *path, const char *request, char reply[CONTROL_LINE_MAX],
               struct error *e)
{
    return ask_with(path, request, -1, REPLY_TIMEOUT_MS, reply, e);
}

/* The value of key in an "info" reply (disks: the rest of the line). */
static const char *field(const char *reply, const char *key, char *out, size_t size)
{
    const char *p = strstr(reply, key);
    size_t n;

    if (!p)
        return "?";
    p += strlen(key);
    n = strcmp(key, " disks=") ? strcspn(p, " ") : strlen(p);
    snprintf(out, size, "%.*s", (int)n, p);
    return out;
}

/* Call fn on every live socket's info reply; sockets nobody answers
 * (a perch that was killed) are taken away. */
static int each_guest(int (*fn)(void *arg, const char *path, const char *info), void *arg,
                      struct error *e)
{
    char dir[PATH_MAX], path[PATH_MAX], reply[CONTROL_LINE_MAX];
    struct dirent *d;
    DIR *dp;
    int rc = control_dir(dir, false, e);

    if (rc)
        return rc;
    rc = 1;
    dp = opendir(dir);
    if (!dp)
        return fail(e, "%s: %s", dir, strerror(errno));
    while (rc == 1 && (d = readdir(dp))) {
        size_t n = strlen(d->d_name);
        struct error ignored;

        if (n < 6 || strcmp(d->d_name + n - 5, ".sock") ||
            snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >= (int)sizeof(path))
            continue;
        if (ask(path, "info\n", reply, &ignored)) {
            if (errno == ECONNREFUSED)
                unlink(path);
            continue;
        }
        if (!strncmp(reply, "ok ", 3))
            rc = fn(arg, path, reply);
    }
    closedir(dp);
    return rc;
}

struct finding {
    const char *guest;
    char *path;
};

static int match(void *arg, const char *path, const char *info)
{
    struct finding *f = arg;
    char value[CONTROL_LINE_MAX];
    bool by_pid = strspn(f->guest, "0123456789") == strlen(f->guest);

    if (strcmp(field(info, by_pid ? "ok pid=" : " name=", value, sizeof(value)), f->guest))
        return 1;
    if (f->path)
        snprintf(f->path, PATH_MAX, "%s", path);
    return 0;
}

int control_find(const char *guest, char *path, struct error *e)
{
    struct finding f = { guest, path };
    int rc = each_guest(match, &f, e);

    if (rc == 1)
        return fail(e, "no running guest is %s (perch list shows them)", guest);
    return rc;
}

static int print_row(void *arg, const char *path, const char *info)
{
    char v[6][CONTROL_LINE_MAX];

    (void)path;
    fprintf(arg, "%-8s %-16s %5s %9s MiB %8s s  %s\n", field(info, "ok pid=", v[0], sizeof(v[0])),
            field(info, " name=", v[1], sizeof(v[1])), field(info, " vcpus=", v[2], sizeof(v[2])),
            field(info, " mem_mib=", v[3], sizeof(v[3])),
            field(info, " uptime_s=", v[4], sizeof(v[4])),
            field(info, " disks=", v[5], sizeof(v[5])));
    return 1;
}

int control_list(FILE *out, struct error *e)
{
    fprintf(out, "%-8s %-16s %5s %13s %10s  %s\n", "PID", "NAME", "VCPUS", "MEMORY", "UPTIME",
            "DISKS");
    return each_guest(print_row, out, e) < 0 ? -1 : 0;
}

/* Until the perch behind the socket at path (DIR/PID.sock) has ended: its
 * socket gone (it takes it away as it ends) and then its process, which
 * still tears the VM down after that. */
static int wait_gone(const char *guest, const char *path, struct error *e)
{
    struct timespec tick = { 0, 100 * 1000 * 1000 };
    const char *name = strrchr(path, '/');
    pid_t pid = (pid_t)strtol(name ? name + 1 : path, NULL, 10);

    for (unsigned i = 0; i < CONTROL_WAIT_S * 10; i++) {
        if (access(path, F_OK) && (pid <= 0 || (kill(pid, 0) && errno == ESRCH)))
            return 0;
        nanosleep(&tick, NULL);
    }
    return fail(e, "%s was asked to power off but still runs after %d s", guest,
                CONTROL_WAIT_S);
}

int control_shutdown(const char *guest, bool wait, struct error *e)
{
    char path[PATH_MAX], reply[CONTROL_LINE_MAX];

    if (control_find(guest, path, e) || ask(path, "shutdown\n", reply, e))
        return -1;
    if (strcmp(reply, "ok"))
        return fail(e, "%s: %s", guest, strncmp(reply, "error ", 6) ? reply : reply + 6);
    return wait ? wait_gone(guest, path, e) : 0;
}

int control_mem_set(const char *guest, uint64_t mib, struct error *e)
{
    char path[PATH_MAX], request[64], reply[CONTROL_LINE_MAX];

    snprintf(request, sizeof(request), "mem-set %" PRIu64 "\n", mib);
    if (control_find(guest, path, e) || ask(path, request, reply, e))
        return STATUS_ERROR;
    if (!strcmp(reply, "ok"))
        return 0;
    fail(e, "%s: %s", guest, strncmp(reply, "error ", 6) ? reply : reply + 6);
    /* A size outside the guest's range is a bad command line, as a bad
     * number is; anything else, a guest that could not be asked. */
    return strstr(reply, " MiB") ? STATUS_USAGE : STATUS_ERROR;
}

/* The file is the client's to open, with the user's rights and in the
 * user's folder, and to take away if the save failed; the guest's perch
 * writes into it. */
int control_save(const char *guest, const char *file, bool leave_running, struct error *e)
{
    char path[PATH_MAX], reply[CONTROL_LINE_MAX];
    struct stat st;
    int fd, rc;

    if (control_find(guest, path, e))
        return STATUS_ERROR;
    fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(e, "cannot write %s: %s", file, strerror(errno)), STATUS_ERROR;
    rc = ask_with(path, leave_running ? "save --leave-running\n" : "save\n", fd,
                  SAVE_TIMEOUT_MS, reply, e);
    if (!rc && strcmp(reply, "ok"))
        rc = fail(e, "%s: %s", guest, strncmp(reply, "error ", 6) ? reply : reply + 6);
    if (fstat(fd, &st))
        st.st_mode = 0;
    if (!rc)
        printf("perch: %s saved to %s (%.1f MiB)%s\n", guest, file, st.st_size / 1048576.0,
               leave_running ? "; it runs on" : "");
    close(fd);
    /* Half a snapshot is no snapshot; but only a file is taken away
     * (FILE may be a device, /dev/full, say). */
    if (rc && S_ISREG(st.st_mode))
        unlink(file);
    return rc ? STATUS_ERROR : 0;
}
