/* perch's exit statuses, as --help and the README list them. */
#ifndef PERCH_STATUS_H
#define PERCH_STATUS_H

enum perch_status {
    STATUS_POWEROFF = 0,       /* the guest powered off */
    STATUS_ERROR = 1,          /* perch could not start or run the guest,
                                * or write its output (stdout closed/full) */
    STATUS_USAGE = 2,          /* bad command line */
    STATUS_REBOOT = 3,         /* the guest asked to reboot */
    STATUS_CRASH = 4,          /* the guest reported a crash */
    STATUS_GUEST_STOPPED = 5,  /* the guest broke a rule and was stopped */
    STATUS_WATCHDOG = 6,       /* the guest's watchdog fired */
    STATUS_SANDBOX = 7,        /* perch made a system call its sandbox
                                * forbids (sandbox.h): a bug in perch */
    STATUS_INTERRUPTED = 130,  /* SIGINT or SIGTERM */
};

#endif
