/* `perch run`: build the domain, start the VM, run the guest to its end. */
#ifndef PERCH_LAUNCH_H
#define PERCH_LAUNCH_H

#include "cli.h"
#include "error.h"

/* Returns perch's exit status (status.h); e says why when it is not 0. */
int launch(const struct options *o, struct error *e);

#endif
