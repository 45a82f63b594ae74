/*
 * callback_op (Xen 4.17's public/callback.h): where the guest kernel wants
 * events, failsafe returns and system calls delivered.
 */
#ifndef PERCH_ABI_XEN_CALLBACK_H
#define PERCH_ABI_XEN_CALLBACK_H

#include "xen.h"

#define CALLBACKOP_register   0
#define CALLBACKOP_unregister 1

#define CALLBACKTYPE_event            0
#define CALLBACKTYPE_failsafe         1
#define CALLBACKTYPE_syscall          2   /* 64-bit syscall */
#define CALLBACKTYPE_syscall32        3
#define CALLBACKTYPE_nmi              4
#define CALLBACKTYPE_sysenter         5
#define CALLBACKTYPE_syscall32_compat 7

/* Enter the callback with events masked (the upcall mask set). */
#define CALLBACKF_mask_events (1u << 0)

#ifndef __ASSEMBLER__

struct callback_register {
    uint16_t type;             /* CALLBACKTYPE_* */
    uint16_t flags;            /* CALLBACKF_* */
    uint32_t pad;
    uint64_t address;
};
_Static_assert(sizeof(struct callback_register) == 16, "callback_register");
_Static_assert(offsetof(struct callback_register, flags) == 2, "callback.flags");
_Static_assert(offsetof(struct callback_register, address) == 8, "callback.address");

/* CALLBACKOP_unregister's argument: only the type counts. */
struct callback_unregister {
    uint16_t type;
    uint16_t pad;
};
_Static_assert(sizeof(struct callback_unregister) == 4, "callback_unregister");

#endif /* !__ASSEMBLER__ */

#endif
