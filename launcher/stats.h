/* --stats: what the guest cost, printed when it ends. */
#ifndef PERCH_STATS_H
#define PERCH_STATS_H

#include <stdio.h>

#include "../abi/layout.h"
#include "run.h"

void stats_print(FILE *out, const struct perch_shared *shared,
                 const struct run_stats *run);

/* Name of hypercall nr, or NULL when Xen defines none. */
const char *hypercall_name(unsigned nr);

#endif
