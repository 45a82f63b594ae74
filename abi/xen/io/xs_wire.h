/*
 * The xenstore wire protocol (Xen 4.17's public/io/xs_wire.h): every
 * message is a 16-byte header and up to XENSTORE_PAYLOAD_MAX bytes of
 * payload, mostly NUL-terminated strings. A domU speaks it through one
 * shared page holding two byte rings, req[] (the guest produces) and rsp[]
 * (the server produces). Indices run free; a byte's slot is the index
 * modulo the ring size. A message may be larger than a ring, so both sides
 * move it in pieces.
 */
#ifndef PERCH_ABI_XEN_IO_XS_WIRE_H
#define PERCH_ABI_XEN_IO_XS_WIRE_H

#include "../xen.h"

/* Message types; the numbers are the protocol (20 was XS_RESTRICT, gone). */
#define XS_CONTROL               0
#define XS_DEBUG                 XS_CONTROL
#define XS_DIRECTORY             1
#define XS_READ                  2
#define XS_GET_PERMS             3
#define XS_WATCH                 4
#define XS_UNWATCH               5
#define XS_TRANSACTION_START     6
#define XS_TRANSACTION_END       7
#define XS_INTRODUCE             8
#define XS_RELEASE               9
#define XS_GET_DOMAIN_PATH      10
#define XS_WRITE                11
#define XS_MKDIR                12
#define XS_RM                   13
#define XS_SET_PERMS            14
#define XS_WATCH_EVENT          15
#define XS_ERROR                16
#define XS_IS_DOMAIN_INTRODUCED 17
#define XS_RESUME               18
#define XS_SET_TARGET           19
#define XS_RESET_WATCHES        21
#define XS_DIRECTORY_PART       22

/* An XS_ERROR reply's payload is the errno's name, NUL-terminated. These
 * are the names the protocol has (Xen 4.17 adds EPERM after E2BIG). */
#define XSD_ERROR_NAMES(X) \
    X(EINVAL) X(EACCES) X(EEXIST) X(EISDIR) X(ENOENT) X(ENOMEM) X(ENOSPC) \
    X(EIO) X(ENOTEMPTY) X(ENOSYS) X(EROFS) X(EBUSY) X(EAGAIN) X(EISCONN) \
    X(E2BIG) X(EPERM)

/* A watch event's payload: the path that changed, then the token. */
#define XS_WATCH_PATH  0
#define XS_WATCH_TOKEN 1

#define XENSTORE_RING_SIZE     1024u
#define MASK_XENSTORE_IDX(idx) ((idx) & (XENSTORE_RING_SIZE - 1))

/* A longer payload is a broken connection, not an error reply. */
#define XENSTORE_PAYLOAD_MAX   4096u
/* Longer paths get an error reply (EINVAL). */
#define XENSTORE_ABS_PATH_MAX  3072u
#define XENSTORE_REL_PATH_MAX  2048u

/* server_features bits. */
#define XENSTORE_SERVER_FEATURE_RECONNECTION 1u
#define XENSTORE_SERVER_FEATURE_ERROR        2u

/* connection values. */
#define XENSTORE_CONNECTED 0u
#define XENSTORE_RECONNECT 1u

/* error values (meaningful once the server sets FEATURE_ERROR). */
#define XENSTORE_ERROR_NONE    0u
#define XENSTORE_ERROR_COMM    1u
#define XENSTORE_ERROR_RINGIDX 2u
#define XENSTORE_ERROR_PROTO   3u

#ifndef __ASSEMBLER__
typedef uint32_t XENSTORE_RING_IDX;

struct xsd_sockmsg {
    uint32_t type;             /* XS_* */
    uint32_t req_id;           /* the client's; echoed in the reply */
    uint32_t tx_id;            /* transaction, 0 for none */
    uint32_t len;              /* payload bytes that follow */
};
_Static_assert(sizeof(struct xsd_sockmsg) == 16, "xsd_sockmsg");
_Static_assert(offsetof(struct xsd_sockmsg, tx_id) == 8, "xsd_sockmsg.tx_id");

/* The page start_info.store_mfn names. The last three fields came after
 * the rings (older servers leave them 0); later Xen appends evtchn_port,
 * which Linux 6.1 does not read. */
struct xenstore_domain_interface {
    char req[XENSTORE_RING_SIZE];
    char rsp[XENSTORE_RING_SIZE];
    XENSTORE_RING_IDX req_cons, req_prod;
    XENSTORE_RING_IDX rsp_cons, rsp_prod;
    uint32_t server_features;
    uint32_t connection;
    uint32_t error;
};
_Static_assert(sizeof(struct xenstore_domain_interface) == 2076, "xenstore_domain_interface");
_Static_assert(offsetof(struct xenstore_domain_interface, rsp) == 1024, "xs rsp");
_Static_assert(offsetof(struct xenstore_domain_interface, req_cons) == 2048, "xs req_cons");
_Static_assert(offsetof(struct xenstore_domain_interface, rsp_prod) == 2060, "xs rsp_prod");
_Static_assert(offsetof(struct xenstore_domain_interface, server_features) == 2064,
               "xs server_features");
_Static_assert(offsetof(struct xenstore_domain_interface, error) == 2072, "xs error");
#endif /* !__ASSEMBLER__ */

#endif
