/* multicall: a batch of hypercalls in one entry (host/xen/multicall.c). */
#ifndef PERCH_HOST_MULTICALL_H
#define PERCH_HOST_MULTICALL_H

#include <stdint.h>

/* Multicall entries processed since boot. */
extern uint64_t multicall_stat_entries;

#endif
