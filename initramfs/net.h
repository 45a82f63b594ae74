/* --net: eth0 up by DHCP (net.c). */
#ifndef PERCH_INIT_NET_H
#define PERCH_INIT_NET_H

/* Bring eth0 up by DHCP, or say in one line why not. */
void bring_up_network(void);

/* As udhcpc's script: apply its event ("bound", ...) from the
 * environment it set. Returns the script's exit status. */
int dhcp_event(const char *event);

#endif
