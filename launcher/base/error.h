/*
 * One way to report failure in the Launcher: a function that cannot do its
 * job fills a struct error with one line saying what is wrong and returns -1.
 * Callers add nothing but may prefix context; main() prints it and exits.
 * fail() shows every byte outside printable ASCII as \xNN, so a message
 * may quote untrusted bytes (note strings, file names) as they are.
 */
#ifndef PERCH_ERROR_H
#define PERCH_ERROR_H

struct error {
    char msg[512];
};

/* Format the message into e and return -1, so callers can `return fail(...)`. */
int fail(struct error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
