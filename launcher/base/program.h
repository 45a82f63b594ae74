/* Running another program (QEMU, perchbench natively, mmdebstrap) and
 * taking all it writes, for perch bench and perch image. */
#ifndef PERCH_LAUNCHER_PROGRAM_H
#define PERCH_LAUNCHER_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* argv[0] through PATH, stdin /dev/null, stdout and stderr into sink.
 * Returns its wait status in *status, or -1 if it could not start. */
int program_run(char *const argv[], void (*sink)(void *, const uint8_t *, size_t),
                void *arg, int *status, struct error *e);

#endif
