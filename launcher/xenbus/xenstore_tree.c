/* The xenstore's tree of nodes, its permissions and its limits (see xenstore_tree.h). */
#include "xenstore_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xs_path_canonical(char *out, const char *path, uint16_t dom)
{
    const size_t size = XENSTORE_ABS_PATH_MAX + 1;
    int n = path[0] == '/' ? snprintf(out, size, "%s", path)
                           : snprintf(out, size, "/local/domain/%u/%s", dom, path);

    if (n <= 0 || (size_t)n >= size)
        return EINVAL;
    if (n > 1 && out[n - 1] == '/')
        return EINVAL;
    if (strstr(out, "//"))
        return EINVAL;
    if (strspn(out, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789-/_@") != (size_t)n)
        return EINVAL;
    return 0;
}

static bool allowed(const struct xs_node *n, uint16_t dom, uint8_t want)
{
    return dom == 0 || n->owner == dom || (n->others & want) == want;
}

/* What a node costs the guest's quota, if it is the guest's. */
static size_t node_bytes(const struct xs_node *n)
{
    return strlen(n->name) + n->len;
}

static void account(struct xs_tree *t, const struct xs_node *n, int sign)
{
    if (n->owner != t->guest)
        return;
    t->guest_nodes += sign;
    t->guest_bytes += sign * (long)node_bytes(n);
}

static void changed(struct xs_tree *t, struct xs_node *n)
{
    n->gen = ++t->generation;
}

/* The node at path, or NULL with *nearest its deepest existing ancestor;
 * *rest (if asked) is where the missing part of the path begins. */
static struct xs_node *lookup(const struct xs_tree *t, const char *path,
                              struct xs_node **nearest, const char **rest)
{
    struct xs_node *n = t->root;
    const char *p = path + 1;

    while (*p) {
        const char *end = strchrnul(p, '/');
        size_t len = end - p;
        struct xs_node *c = n->children;

        while (c && !(strncmp(c->name, p, len) == 0 && c->name[len] == '\0'))
            c = c->next;
        if (!c) {
            *nearest = n;
            if (rest)
                *rest = p;
            return NULL;
        }
        n = c;
        p = *end ? end + 1 : end;
    }
    *nearest = n;
    return n;
}

/* An existing node dom may use as `want`, or why not: EACCES where the
 * node (or, if absent, its nearest ancestor) says no, else ENOENT. */
static int find(const struct xs_tree *t, uint16_t dom, const char *path,
                uint8_t want, struct xs_node **out)
{
    struct xs_node *nearest;

    *out = lookup(t, path, &nearest, NULL);
    if (!allowed(nearest, dom, want))
        return EACCES;
    return *out ? 0 : ENOENT;
}

static struct xs_node *new_node(const char *name, size_t len)
{
    struct xs_node *n = calloc(1, sizeof(*n));

    if (n && !(n->name = strndup(name, len))) {
        free(n);
        n = NULL;
    }
    return n;
}

static void free_subtree(struct xs_tree *t, struct xs_node *n)
{
    while (n->children) {
        struct xs_node *c = n->children;

        n->children = c->next;
        free_subtree(t, c);
    }
    if (t)
        account(t, n, -1);
    free(n->name);
    free(n->value);
    free(n);
}

static void append_child(struct xs_node *parent, struct xs_node *c)
{
    struct xs_node **tail = &parent->children;

    while (*tail)
        tail = &(*tail)->next;
    *tail = c;
    c->parent = parent;
}

/* Would the guest's quota hold `nodes` more nodes and `bytes` more bytes?
 * Domain 0 is not held to it: its writes are the Launcher's own. */
static bool within_quota(const struct xs_tree *t, uint16_t dom, uint16_t owner,
                         unsigned nodes, long bytes)
{
    if (dom == 0 || owner != t->guest)
        return true;
    return t->guest_nodes + nodes <= t->max_guest_nodes &&
           (long)t->guest_bytes + bytes <= (long)t->max_guest_bytes;
}

/* The node at path, created with its missing parents if need be (which
 * needs write access to the nearest existing one); value_len is what the
 * caller will store, counted against the quota up front so that a refusal
 * leaves the tree as it was. */
static int make_path(struct xs_tree *t, uint16_t dom, const char *path,
                     uint32_t value_len, struct xs_node **out)
{
    struct xs_node *nearest, *n;
    const char *rest, *p;
    unsigned count = 0;
    long bytes = value_len;
    uint16_t owner;

    *out = lookup(t, path, &nearest, &rest);
    if (!allowed(nearest, dom, XS_ACCESS_WRITE))
        return EACCES;
    if (*out)
        return within_quota(t, dom, (*out)->owner, 0,
                            (long)value_len - (*out)->len) ? 0 : ENOSPC;
    owner = dom ? dom : nearest->owner;
    for (p = rest; *p; p = *p ? p + 1 : p) {
        const char *end = strchrnul(p, '/');

        count++;
        bytes += end - p;
        p = end;
    }
    if (!within_quota(t, dom, owner, count, bytes))
        return ENOSPC;
    for (n = nearest, p = rest; *p; p = *p ? p + 1 : p) {
        const char *end = strchrnul(p, '/');
        struct xs_node *c = new_node(p, end - p);

        if (!c)
            return ENOMEM;     /* what was made stays, empty: harmless */
        c->owner = owner;
        c->others = n->others;
        append_child(n, c);
        account(t, c, 1);
        changed(t, n);
        changed(t, c);
        n = c;
        p = end;
    }
    *out = n;
    return 0;
}

int xs_tree_init(struct xs_tree *t, uint16_t guest)
{
    memset(t, 0, sizeof(*t));
    t->root = new_node("", 0);
    if (!t->root)
        return ENOMEM;
    t->guest = guest;
    t->generation = 1;
    t->root->gen = 1;
    t->max_guest_nodes = XS_GUEST_NODES_MAX;
    t->max_guest_bytes = XS_GUEST_BYTES_MAX;
    return 0;
}

void xs_tree_free(struct xs_tree *t)
{
    if (t->root)
        free_subtree(NULL, t->root);
    t->root = NULL;
}

static struct xs_node *copy_subtree(const struct xs_node *src)
{
    struct xs_node *n = new_node(src->name, strlen(src->name));

    if (!n)
        return NULL;
    n->len = src->len;
    n->gen = src->gen;
    n->owner = src->owner;
    n->others = src->others;
    if (src->len && !(n->value = malloc(src->len)))
        goto fail;
    if (src->len)
        memcpy(n->value, src->value, src->len);
    for (const struct xs_node *c = src->children; c; c = c->next) {
        struct xs_node *cc = copy_subtree(c);

        if (!cc)
            goto fail;
        append_child(n, cc);
    }
    return n;
fail:
    free_subtree(NULL, n);
    return NULL;
}

int xs_tree_copy(struct xs_tree *dst, const struct xs_tree *src)
{
    *dst = *src;
    dst->root = copy_subtree(src->root);
    return dst->root ? 0 : ENOMEM;
}

int xs_tree_read(const struct xs_tree *t, uint16_t dom, const char *path,
                 const uint8_t **value, uint32_t *len)
{
    struct xs_node *n;
    int rc = find(t, dom, path, XS_ACCESS_READ, &n);

    if (rc)
        return rc;
    *value = n->value;
    *len = n->len;
    return 0;
}

int xs_tree_write(struct xs_tree *t, uint16_t dom, const char *path,
                  const void *value, uint32_t len)
{
    struct xs_node *n;
    uint8_t *copy = NULL;
    int rc;

    if (len && !(copy = malloc(len)))
        return ENOMEM;
    rc = make_path(t, dom, path, len, &n);
    if (rc) {
        free(copy);
        return rc;
    }
    if (len)
        memcpy(copy, value, len);
    account(t, n, -1);
    free(n->value);
    n->value = copy;
    n->len = len;
    account(t, n, 1);
    changed(t, n);
    return 0;
}

int xs_tree_mkdir(struct xs_tree *t, uint16_t dom, const char *path)
{
    struct xs_node *n;

    return make_path(t, dom, path, 0, &n);
}

int xs_tree_rm(struct xs_tree *t, uint16_t dom, const char *path)
{
    struct xs_node *nearest, *n, **link;
    const char *rest;

    if (strcmp(path, "/") == 0)
        return EINVAL;
    n = lookup(t, path, &nearest, &rest);
    if (!allowed(n ? n : nearest, dom, XS_ACCESS_WRITE))
        return EACCES;
    if (!n)                    /* absent is fine where the parent is there */
        return strchr(rest, '/') ? ENOENT : 0;
    for (link = &n->parent->children; *link != n; link = &(*link)->next)
        ;
    *link = n->next;
    changed(t, n->parent);
    free_subtree(t, n);
    return 0;
}

int xs_tree_children(const struct xs_tree *t, uint16_t dom, const char *path,
                     uint32_t skip, char *buf, uint32_t size,
                     uint32_t *total, uint64_t *gen)
{
    struct xs_node *n;
    uint32_t at = 0, got = 0;
    int rc = find(t, dom, path, XS_ACCESS_READ, &n);

    if (rc)
        return rc;
    for (const struct xs_node *c = n->children; c; c = c->next) {
        uint32_t len = strlen(c->name) + 1;

        for (uint32_t i = 0; i < len; i++, at++)
            if (at >= skip && got < size)
                buf[got++] = c->name[i];
    }
    *total = at;
    *gen = n->gen;
    return 0;
}

int xs_tree_get_perms(const struct xs_tree *t, uint16_t dom, const char *path,
                      uint16_t *owner, uint8_t *others)
{
    struct xs_node *n;
    int rc = find(t, dom, path, XS_ACCESS_READ, &n);

    if (rc)
        return rc;
    *owner = n->owner;
    *others = n->others;
    return 0;
}

int xs_tree_set_perms(struct xs_tree *t, const char *path, uint16_t owner,
                      uint8_t others)
{
    struct xs_node *n;
    int rc = find(t, 0, path, 0, &n);

    if (rc)
        return rc;
    account(t, n, -1);
    n->owner = owner;
    n->others = others & (XS_ACCESS_READ | XS_ACCESS_WRITE);
    account(t, n, 1);
    changed(t, n);
    return 0;
}

bool xs_tree_may_read(const struct xs_tree *t, uint16_t dom, const char *path)
{
    struct xs_node *nearest;

    lookup(t, path, &nearest, NULL);
    return allowed(nearest, dom, XS_ACCESS_READ);
}

int xs_tree_restore_node(struct xs_tree *t, const char *path,
                         const void *value, uint32_t len, uint64_t gen,
                         uint16_t owner, uint8_t others)
{
    struct xs_node *nearest, *n;
    const char *rest;
    uint8_t *copy = NULL;

    n = lookup(t, path, &nearest, &rest);
    if (n && n != t->root)
        return EEXIST;
    if (!n && strchr(rest, '/'))
        return ENOENT;
    if (len && !(copy = malloc(len)))
        return ENOMEM;
    if (!n && !(n = new_node(rest, strlen(rest)))) {
        free(copy);
        return ENOMEM;
    }
    if (len)
        memcpy(copy, value, len);
    if (n == t->root)
        account(t, n, -1);     /* the root's old fields leave the count */
    else
        append_child(nearest, n);
    free(n->value);
    n->value = copy;
    n->len = len;
    n->gen = gen;
    n->owner = owner;
    n->others = others & (XS_ACCESS_READ | XS_ACCESS_WRITE);
    account(t, n, 1);
    return 0;
}
