/*
 * The Launcher's end of the ring console (Xen's struct xencons_interface,
 * the guest's console page; hvc0 in Linux): it consumes out[] and produces
 * in[].
 *
 * The page is guest memory: the guest may write anything there at any
 * moment. So the Launcher keeps its own copy of the two indices it owns
 * (out_cons, in_prod), only ever stores them to the page, and checks the
 * two the guest owns (out_prod, in_cons) against them at every use: a
 * producer more than a ring ahead, or a consumer ahead of the producer, is
 * a corrupted ring and stops the guest. The data is copied out of the
 * page once, so what the guest changes afterwards cannot matter.
 */
#ifndef PERCH_HVC_RING_H
#define PERCH_HVC_RING_H

#include <stddef.h>
#include <stdint.h>

#include "../../abi/xen/io/console.h"

struct hvc_ring {
    volatile struct xencons_interface *page;
    uint32_t out_cons;        /* ours: the guest cannot move it */
    uint32_t in_prod;         /* ours */
};

/* Serve the page at `page` (zeroed by the domain builder: both rings empty,
 * indices 0). */
void hvc_ring_init(struct hvc_ring *r, void *page);

/* Serve a saved guest's page: our indices are the ones we last stored
 * there (checked, as ever, at each use). */
void hvc_ring_resume(struct hvc_ring *r, void *page);

/* Copy what out[] holds into buf (room for XENCONS_OUT_BYTES) and give the
 * slots back to the guest. Returns the bytes copied, or -1 with `problem`
 * filled when out_prod is more than a ring ahead of our out_cons. */
int hvc_ring_read(struct hvc_ring *r, uint8_t *buf, char *problem,
                  size_t problem_size);

/* Put as many of the n bytes into in[] as there is room for. Returns how
 * many (0 when it is full), or -1 with `problem` filled when in_cons is not
 * within one ring behind our in_prod. */
long hvc_ring_write(struct hvc_ring *r, const uint8_t *bytes, size_t n,
                    char *problem, size_t problem_size);

/* Bytes of in[] the guest has yet to take, as far as it says (0 if its
 * in_cons is corrupted: the next write finds out). */
uint32_t hvc_ring_input_queued(const struct hvc_ring *r);

#endif
