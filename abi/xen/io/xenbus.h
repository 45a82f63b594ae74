/*
 * xenbus (Xen 4.17's public/io/xenbus.h): the state each end of a split
 * device writes to its "state" node in xenstore as they connect.
 */
#ifndef PERCH_ABI_XEN_IO_XENBUS_H
#define PERCH_ABI_XEN_IO_XENBUS_H

enum xenbus_state {
    XenbusStateUnknown = 0,
    XenbusStateInitialising = 1,
    XenbusStateInitWait = 2,      /* back end: features written, waiting */
    XenbusStateInitialised = 3,   /* front end: rings and port written */
    XenbusStateConnected = 4,
    XenbusStateClosing = 5,
    XenbusStateClosed = 6,
    XenbusStateReconfiguring = 7,
    XenbusStateReconfigured = 8,
};

#endif
