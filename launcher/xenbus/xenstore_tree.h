/*
 * The xenstore's data: a tree of nodes, each a path component, a value of
 * bytes (maybe empty) and children in the order they were made, with
 * Xen's permission model cut down to the two domains perch has.
 *
 * Every node has an owner, who may do anything with it, and what other
 * domains get (XS_ACCESS_*); domain 0 (the Launcher's back ends) may
 * always do anything. A node a domain creates inherits its parent's
 * permissions, and the guest becomes the owner of what it creates. So the
 * guest writes only where the toolstack gave it a node of its own (its
 * data/, device/<type>/<id>/ ...), as under Xen, and reads what it owns
 * or was given read access to (a back end's directory). For a node that
 * does not exist, the nearest existing ancestor decides between ENOENT
 * (or creating it) and EACCES, which is Xen's rule too.
 *
 * Every function takes absolute, checked paths (xs_path_canonical()) and
 * returns 0 or the errno the protocol sends back (ENOENT, EACCES, ENOSPC,
 * EINVAL, ENOMEM). The guest's nodes are bounded in count and bytes.
 */
#ifndef PERCH_XENSTORE_TREE_H
#define PERCH_XENSTORE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../abi/xen/io/xs_wire.h"

#define XS_ACCESS_READ  1u
#define XS_ACCESS_WRITE 2u

/* Xen's default quota: 1000 nodes a domain; and a bound on their bytes
 * (names and values), so the guest's nodes and every transaction's copy
 * of them stay small. */
#define XS_GUEST_NODES_MAX 1000u
#define XS_GUEST_BYTES_MAX (1024u * 1024u)

struct xs_node {
    struct xs_node *parent, *children, *next;
    char *name;                /* the path component; "" for the root */
    uint8_t *value;
    uint32_t len;
    uint64_t gen;              /* the tree's generation at its last change */
    uint16_t owner;
    uint8_t others;            /* XS_ACCESS_* for domains but the owner */
};

struct xs_tree {
    struct xs_node *root;
    uint16_t guest;            /* the one unprivileged domain */
    uint64_t generation;       /* counts changes; starts at 1 */
    unsigned guest_nodes;      /* the guest owns these ... */
    size_t guest_bytes;        /* ... and their names' and values' bytes */
    unsigned max_guest_nodes;
    size_t max_guest_bytes;
};

/* Make the absolute form of `path` (as the domain `dom` named it: a path
 * without a leading '/' is relative to /local/domain/<dom>) in out, which
 * has XENSTORE_ABS_PATH_MAX + 1 bytes. EINVAL: empty, characters outside
 * [A-Za-z0-9-/_@], "//", a trailing '/' (but "/" itself), or too long. */
int xs_path_canonical(char *out, const char *path, uint16_t dom);

/* An empty tree: the root only, domain 0's, closed to the guest. */
int xs_tree_init(struct xs_tree *t, uint16_t guest);
void xs_tree_free(struct xs_tree *t);
/* dst (uninitialized) becomes a deep copy of src. */
int xs_tree_copy(struct xs_tree *dst, const struct xs_tree *src);

/* The node's value, valid until the tree next changes. */
int xs_tree_read(const struct xs_tree *t, uint16_t dom, const char *path,
                 const uint8_t **value, uint32_t *len);
/* Create (with missing parents, empty) or replace the value. */
int xs_tree_write(struct xs_tree *t, uint16_t dom, const char *path,
                  const void *value, uint32_t len);
/* Create the node (and parents) empty; fine if it exists. */
int xs_tree_mkdir(struct xs_tree *t, uint16_t dom, const char *path);
/* Remove the node and everything below; fine if it is absent but its
 * parent exists. "/" is EINVAL. */
int xs_tree_rm(struct xs_tree *t, uint16_t dom, const char *path);

/* The children's names, each NUL-terminated, in creation order: copies
 * bytes [skip, skip + size) of that list into buf and says the whole
 * list's length and the node's generation. */
int xs_tree_children(const struct xs_tree *t, uint16_t dom, const char *path,
                     uint32_t skip, char *buf, uint32_t size,
                     uint32_t *total, uint64_t *gen);

int xs_tree_get_perms(const struct xs_tree *t, uint16_t dom, const char *path,
                      uint16_t *owner, uint8_t *others);
/* Domain 0 only (nobody else may): whose the node is, what others get. */
int xs_tree_set_perms(struct xs_tree *t, const char *path, uint16_t owner,
                      uint8_t others);

/* For a saved tree being loaded: the node at path, exactly as given,
 * under a parent that exists already; neither the tree's generation nor
 * the parent's moves, and the guest's quota counts the node but does not
 * refuse it (the caller checks the count against the maximum). "/", which
 * xs_tree_init() made, takes the fields instead. EEXIST for another node
 * that exists, ENOENT without the parent, ENOMEM. */
int xs_tree_restore_node(struct xs_tree *t, const char *path,
                         const void *value, uint32_t len, uint64_t gen,
                         uint16_t owner, uint8_t others);

/* Whether dom may read the node, or for an absent one its nearest
 * existing ancestor (whom a watch event on the path may go to). */
bool xs_tree_may_read(const struct xs_tree *t, uint16_t dom, const char *path);

#endif
