/*
 * The blk guest's own minimal block front end: xenbus (the vbd's nodes,
 * the handshake to state 4) and one ring page, with requests built by
 * hand so that the tests can also build wrong ones.
 */
#ifndef BLK_FRONTEND_H
#define BLK_FRONTEND_H

#include "../../abi/xen/io/blkif.h"
#include "events.h"
#include "gnttab.h"
#include "ring.h"
#include "rt.h"
#include "xs.h"

/* xvda: major 202, minor 0. */
#define BLK_DEVID 51712u
#define BLK_FE    "device/vbd/51712"

#define BLK_RING_SLOTS  32u
#define BLK_DATA_PAGES  40u
/* Grant references: the ring, the indirect page, the data pages. */
#define BLK_GREF_RING      8u
#define BLK_GREF_INDIRECT  9u
#define BLK_GREF_DATA(i)   (16u + (i))

/* blk_do()'s answers that are not a status. */
#define BLK_NO_RESPONSE 1000
#define BLK_WRONG_ID    1001

struct blk_disk {
    char be[128];              /* the back end's directory */
    uint64_t sectors;
    unsigned info, max_indirect;
    bool discard, flush;
    uint32_t port;             /* ours, allocated for domain 0 */
};
extern struct blk_disk disk;

extern uint8_t blk_data[BLK_DATA_PAGES][4096];
extern uint8_t blk_indirect_page[4096];

/* Read the back end's directory and features; watch its state. */
bool blk_probe(void);

/* Ring, port, keys and state 3; write `port_to_write` as event-channel
 * instead of ours if nonzero. Returns the back end's state at the end
 * (4: connected) or -1. */
int blk_connect(uint32_t port_to_write);

/* The front end's state back to 1 (Initialising), to connect again. */
bool blk_restart(void);

/* Grant every data page writable and the indirect page read-only. */
void blk_grant_data(void);

/* A request with the operation and sector, no segments yet. */
void blk_rw(union blkif_sring_entry *e, uint8_t op, uint64_t sector);
void blk_seg(union blkif_sring_entry *e, grant_ref_t gref, unsigned first, unsigned last);

/* Into the next slot (an id of its own), not yet published. */
uint64_t blk_queue(union blkif_sring_entry *e);
/* req_prod, and the event if the back end asked for it. */
void blk_publish(void);
/* The next response, waiting up to `ms`. */
bool blk_response(struct blkif_response *out, uint64_t ms);
/* One request, its status (or BLK_NO_RESPONSE, BLK_WRONG_ID). */
int blk_do(union blkif_sring_entry *e, uint8_t *rsp_op);

volatile struct xen_sring_header *blk_sring(void);

/* The sectors' pattern into buf, and whether buf holds it. */
void blk_pattern(uint8_t *buf, uint64_t sector, unsigned nsect);
bool blk_holds(const uint8_t *buf, uint64_t sector, unsigned nsect);

#endif
