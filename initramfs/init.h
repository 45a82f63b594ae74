/* What the parts of perch's /init share. */
#ifndef PERCH_INIT_H
#define PERCH_INIT_H

#define CMD_FILE "/perch/cmd"

/* One line on the console, "perch init: ...". */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one line the Launcher turns into perch's own exit status. */
void report_exit(int code);

#endif
