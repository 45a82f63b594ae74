/* Where the Launcher puts what /init needs in the initramfs. */
#ifndef PERCH_INIT_PATHS_H
#define PERCH_INIT_PATHS_H

#define CMD_FILE "/perch/cmd"
#define ROOT_FILE "/perch/root"
#define NET_FILE "/perch/net"
#define PARAMS_DIR "/perch/params"   /* NAME.ko: that module's parameters */
/* /init under this name is udhcpc's script (net.c). */
#define DHCP_EVENT "/perch/dhcp-event"

#endif
