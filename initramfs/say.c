/* perch's /init speaks in one-line messages (say.h). */
#include "say.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The Launcher's console parses this and strips it from the output. */
#define EXIT_REPORT "\033]perch-exit;%d\007"

void say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("perch init: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void say_to_kernel_log(const char *what)
{
    int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

    if (fd >= 0) {
        dprintf(fd, "perch init: %s: %s\n", what, strerror(errno));
        close(fd);
    }
}

void report_exit(int code)
{
    char msg[32];
    int n = snprintf(msg, sizeof(msg), EXIT_REPORT, code);

    if (write(STDOUT_FILENO, msg, n) != n)
        say_to_kernel_log("cannot report the exit status");
}
