/*
 * What lies outside the Host's C code: the Switcher's gates, the Launcher's
 * doorbell, the alias of guest memory. host/vm/env.c provides them inside the
 * VM; tests/unit/host_env.c stands in for them in the unit tests.
 */
#ifndef PERCH_HOST_ENV_H
#define PERCH_HOST_ENV_H

#include <stdint.h>

/* Pointer through which machine address 0 is reached (the writable alias). */
uint8_t *env_alias_base(void);

/* Leave the VM through the Switcher's EXIT gate; returns when the Launcher
 * resumes the vCPU. */
void env_call_launcher(void);

/* Visit ring 0 and come straight back through the RESUME gate. */
void env_switcher_roundtrip(void);

/* Tell the Launcher there is console output, without an exit (ioeventfd). */
void env_ring_doorbell(void);

#endif
