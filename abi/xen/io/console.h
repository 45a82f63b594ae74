/*
 * The ring console (Xen 4.17's public/io/console.h): the page that
 * start_info's console.domU.mfn names. Indices run free; a byte's slot is
 * the index modulo the ring's size. The guest produces out[] and consumes
 * in[]; the back end does the opposite.
 */
#ifndef PERCH_ABI_XEN_IO_CONSOLE_H
#define PERCH_ABI_XEN_IO_CONSOLE_H

#include "../xen.h"

#define XENCONS_IN_BYTES  1024u
#define XENCONS_OUT_BYTES 2048u

#ifndef __ASSEMBLER__
struct xencons_interface {
    char in[XENCONS_IN_BYTES];
    char out[XENCONS_OUT_BYTES];
    uint32_t in_cons, in_prod;
    uint32_t out_cons, out_prod;
};
_Static_assert(sizeof(struct xencons_interface) == 3088, "xencons_interface");
_Static_assert(offsetof(struct xencons_interface, out) == 1024, "out");
_Static_assert(offsetof(struct xencons_interface, in_cons) == 3072, "in_cons");
_Static_assert(offsetof(struct xencons_interface, out_prod) == 3084, "out_prod");
#endif

#endif
