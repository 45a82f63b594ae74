#include "host.h"

/* Page-aligned so the Launcher can find it from the image header and map
 * nothing else of the Host's data by accident when it reads it. */
struct perch_shared perch_shared __attribute__((aligned(4096)));
