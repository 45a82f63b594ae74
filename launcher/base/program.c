/* Running a program and taking its output (see program.h). */
#include "program.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int program_run(char *const argv[],
                void (*sink)(void *, const uint8_t *, size_t),
                void *arg, int *status, struct error *e)
{
    int fds[2];
    uint8_t buf[4096];
    ssize_t n;
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) < 0)
        return fail(e, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0)
        return fail(e, "fork: %s", strerror(errno));
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

        /* Not the terminal: QEMU's -serial stdio would make it raw. */
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
        if (n > 0)
            sink(arg, buf, n);
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}
