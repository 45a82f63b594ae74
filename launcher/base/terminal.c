/* The terminal: raw mode while the guest runs, restored however perch ends. */
#include "terminal.h"

#include <signal.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static volatile sig_atomic_t raw_fd = -1;   /* -1: nothing to restore */

void terminal_restore(void)
{
    int fd = raw_fd;

    if (fd < 0)
        return;
    raw_fd = -1;
    tcsetattr(fd, TCSANOW, &saved);
}

/* A signal that kills perch: restore, then die of it as before (the
 * handler is reset and the signal stays blocked until we return). */
static void on_fatal(int sig)
{
    terminal_restore();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    static const int fatal[] = { SIGHUP, SIGQUIT, SIGPIPE, SIGSEGV, SIGBUS,
                                 SIGILL, SIGFPE, SIGABRT };
    static int done;
    struct sigaction old, sa = { .sa_handler = on_fatal };

    if (done)
        return;
    done = 1;
    atexit(terminal_restore);
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
        /* A signal someone chose to ignore (nohup, SIGPIPE) stays so. */
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(fatal[i], &sa, NULL);
    }
}

/* Raw input: no line editing, echo, signals, flow control or CR/NL
 * mapping; one byte is enough for a read. */
static struct termios raw_input(const struct termios *t)
{
    struct termios r = *t;

    r.c_iflag &= ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR |
                   ICRNL | IXON);
    r.c_lflag &= ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    r.c_cc[VMIN] = 1;
    r.c_cc[VTIME] = 0;
    return r;
}

int terminal_raw(int fd)
{
    struct termios r;

    if (!isatty(fd))
        return 0;
    if (tcgetpgrp(fd) != getpgrp() || tcgetattr(fd, &saved))
        return -1;
    install_handlers();
    r = raw_input(&saved);
    raw_fd = fd;   /* before the change: a signal in between restores */
    /* TCSANOW: keys typed before perch started are the guest's too. */
    if (tcsetattr(fd, TCSANOW, &r)) {
        raw_fd = -1;
        return -1;
    }
    return 1;
}
