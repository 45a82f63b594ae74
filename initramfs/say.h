/* How perch's /init speaks: one console line, or the kernel log when
 * there is no console, and the exit status the Launcher turns into its
 * own (the OSC sequence launcher/console/osc_filter.h takes out). */
#ifndef PERCH_INIT_SAY_H
#define PERCH_INIT_SAY_H

/* One line on the console, "perch init: ...". */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* With no console there is nowhere to print; the kernel log (which perch
 * may still show through the early console) is the last resort: what
 * failed, with errno's words. */
void say_to_kernel_log(const char *what);

/* The one line the Launcher turns into perch's own exit status. */
void report_exit(int code);

#endif
