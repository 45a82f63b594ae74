/* What perch's /init (init.c) and its disk boot (root.c) share. */
#ifndef PERCH_INIT_H
#define PERCH_INIT_H

#define CMD_FILE "/perch/cmd"
#define ROOT_FILE "/perch/root"
#define NET_FILE "/perch/net"
#define PARAMS_DIR "/perch/params"   /* NAME.ko: that module's parameters */
/* /init under this name is udhcpc's script (net.c). */
#define DHCP_EVENT "/perch/dhcp-event"

/* One line on the console, "perch init: ...". */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one line the Launcher turns into perch's own exit status. */
void report_exit(int code);

/* Boot the disk ROOT_FILE names: mount it and exec its /sbin/init as
 * PID 1. Returns only if that failed, having said why in one line. */
void boot_root(void);

/* --net: bring eth0 up by DHCP, or say in one line why not. */
void bring_up_network(void);

/* As udhcpc's script: apply its event ("bound", ...) from the
 * environment it set. Returns the script's exit status. */
int dhcp_event(const char *event);

#endif
