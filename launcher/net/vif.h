/*
 * The --net card as a Xen virtual network interface, vif 0: the xenbus
 * side of the network back end. It writes the nodes Xen's toolstack and
 * Linux's netback write for a domU's vif (the front end's device/vif/0,
 * the back end's backend/vif/<dom>/0 with the MAC address and the
 * features) and, when xenbus_backend.h says the front end is ready, takes
 * its two ring pages and starts the data path (netif.h) between them and
 * the link (net_link.h). One event channel, one queue: perch offers
 * neither split channels nor multi-queue. Everything runs on the device
 * thread.
 */
#ifndef PERCH_LAUNCHER_VIF_H
#define PERCH_LAUNCHER_VIF_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"
#include "net_link.h"
#include "netif.h"
#include "../xenbus/xenbus_backend.h"

struct vif {
    struct xenbus_backend xb;
    struct net_link *link;       /* the caller's: opened before the VM */
    bool rx_sg;                  /* the front end's feature-sg */
    bool running;                /* netif serves the rings */
    struct netif netif;
};

/* Write the card's nodes on `line`, watch the front end and take the
 * frames the link brings. 0, or -1 with e. */
int vif_init(struct vif *v, const struct backend_env *env, unsigned line,
             struct net_link *link, struct error *e);

/* Its line was notified: the Host's answer to a connect, or packets to
 * send. -1 with e when the guest broke a ring (stop the guest). */
int vif_notified(struct vif *v, struct error *e);

/* At the end of every wake-up of the device thread: the responses of
 * both rings published, the guest told. -1 with e when the guest broke
 * its rx ring meanwhile (stop the guest). */
int vif_flush(struct vif *v, struct error *e);

/* The end of the run: the rings given back, the link no longer brings
 * frames here (it stays the caller's to close). */
void vif_close(struct vif *v);

#endif
