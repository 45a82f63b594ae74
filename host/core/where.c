/* The guest's place for the Launcher's crash line (where.h). */
#include "where.h"

#include "vcpu.h"

struct where_entry where_last;

/* Word by word, so a stack that ends at an unmapped page still gives the
 * words below the gap. */
static uint32_t copy_stack(uint64_t rsp, uint64_t *out, uint32_t max)
{
    uint32_t n = 0;
    uint64_t word;

    while (n < max && !copy_from_guest(&word, rsp + 8ull * n, sizeof(word)))
        out[n++] = word;
    return n;
}

void where_report(void)
{
    __typeof__(perch_shared.request.where) *w = &perch_shared.request.where;

    w->known = where_last.known;
    w->kernel = current->in_kernel;
    w->rip = where_last.rip;
    w->rsp = where_last.rsp;
    w->nr_stack = where_last.known
        ? copy_stack(where_last.rsp, w->stack, PERCH_WHERE_STACK_WORDS) : 0;
}
