/*
 * perch's terminal. While the guest runs, a terminal on stdin is put into
 * raw input mode, so every key reaches the guest as typed (Ctrl-C, Ctrl-Z
 * and Ctrl-\ included: the guest's own tty turns them into signals) and
 * perch sees Ctrl-A commands (keys.h). Output processing is left as it was,
 * so the early console's bare newlines still begin a new line.
 *
 * The saved settings come back however perch ends: terminal_restore() on
 * the normal path (guest ended, guest stopped, Ctrl-A x, SIGINT/SIGTERM,
 * Launcher errors), an atexit handler for any exit(), and handlers for the
 * signals that would kill perch (SIGHUP, SIGQUIT, SIGPIPE, SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGABRT), which restore and then die of the signal as
 * before. Only SIGKILL cannot be caught (then `stty sane` or `reset`).
 */
#ifndef PERCH_TERMINAL_H
#define PERCH_TERMINAL_H

/* Put fd into raw input mode if it is the terminal of the foreground job.
 * Returns 1 if it did (read fd, Ctrl-A commands on), 0 if fd is no
 * terminal (read it as plain data), -1 if it is a terminal perch must not
 * read or change (a background job would be stopped by SIGTTIN/SIGTTOU). */
int terminal_raw(int fd);

/* Put the saved settings back; does nothing if none are changed. Safe in a
 * signal handler, and to call more than once. */
void terminal_restore(void);

#endif
