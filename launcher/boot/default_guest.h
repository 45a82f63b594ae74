/*
 * The guest perch boots when given no KERNEL: Debian's cloud kernel, its
 * Xen disk and network front ends (modules, for the initramfs to load),
 * and busybox-static for a shell, all fetched once with apt into perch's
 * cache folder ($XDG_CACHE_HOME/perch, else ~/.cache/perch) and reused:
 *
 *     <cache>/vmlinuz -> vmlinuz-6.1.0-NN-cloud-amd64   (from the .deb)
 *     <cache>/modules-6.1.0-NN-cloud-amd64/xen-blkfront.ko, xen-netfront.ko
 *                                  (lib/modules/<version>/kernel/drivers/)
 *     <cache>/virtio-6.1.0-NN-cloud-amd64/virtio_blk.ko, ...
 *                                  (QEMU's drivers, for `perch bench --qemu`)
 *     <cache>/busybox                                   (bin/busybox)
 *
 * The modules come from the package of the cached kernel's version, as a
 * module loads only into the kernel it was built with; a cache made before
 * perch kept them gets them on the next run (from linux-image-<version>).
 *
 * A fetch works in <cache>/.fetch-<pid> and moves the file into place last,
 * so an interrupted fetch leaves no half file behind (and the next fetch
 * removes its folder). Delete the cache folder to fetch anew.
 */
#ifndef PERCH_DEFAULT_GUEST_H
#define PERCH_DEFAULT_GUEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"

#define DEFAULT_GUEST_META_PACKAGE "linux-image-cloud-amd64"
#define DEFAULT_GUEST_BUSYBOX_PACKAGE "busybox-static"

struct default_guest {
    char dir[PATH_MAX];           /* the cache folder, created */
    char shown_dir[PATH_MAX];     /* the same for messages: ~/.cache/perch */
    char kernel[PATH_MAX];        /* <dir>/vmlinuz */
    char busybox[PATH_MAX];       /* <dir>/busybox */
    char modules[PATH_MAX];       /* <dir>/<folder>-<version> of the set
                                     default_guest_modules() made sure of */
    bool apt_updated;             /* apt-get update runs at most once */
};

/* Find (and create) the cache folder and name the files in it. */
int default_guest_open(struct default_guest *g, struct error *e);

/* Make sure g->kernel exists, fetching Debian's cloud kernel if the cache
 * lacks it (one line on stderr says so). Returns 0, or -1 with e saying
 * why not (apt-get missing, no network, package not found, ...). */
int default_guest_kernel(struct default_guest *g, struct error *e);

/* Likewise for g->busybox; a failure is for the caller to report as a
 * note, since a guest runs without busybox (with /init only). */
int default_guest_busybox(struct default_guest *g, struct error *e);

/* A set of the kernel's modules perch keeps: the Xen front ends perch's
 * guests load, or the virtio drivers the same guest needs under QEMU. */
struct default_guest_module_set {
    const char *folder;           /* <cache>/<folder>-<version> */
    const char *what;             /* for messages */
    const char *const *paths;     /* under lib/modules/<version>/kernel/ in
                                     the package, NULL-ended, a module after
                                     those it needs; in the folder each has
                                     its file name (xen-blkfront.ko) */
};

extern const struct default_guest_module_set default_guest_xen_modules;
extern const struct default_guest_module_set default_guest_virtio_modules;

/* Make sure g->modules holds set's modules for the cached kernel g->kernel
 * (after default_guest_kernel), fetching them from linux-image-<version>
 * if the cache lacks them (one line on stderr says so; the kernel's own
 * fetch keeps the Xen set). Returns 0, or -1 with e saying why not: for
 * the caller to report as a note, since the guest boots without them
 * (with no disk or network). */
int default_guest_modules(struct default_guest *g,
                          const struct default_guest_module_set *set,
                          struct error *e);

/* The version of the cached kernel (what g->kernel points
 * at, vmlinuz-VERSION), e.g. "6.1.0-57-cloud-amd64". */
int default_guest_kernel_version(const struct default_guest *g, char *out,
                                 size_t size, struct error *e);

/* A fresh work folder <cache>/.fetch-<pid>-<tag> into out (PATH_MAX), which
 * a later perch removes if this one dies before removing it itself. */
int default_guest_work_dir(const struct default_guest *g, const char *tag,
                           char *out, struct error *e);

/* apt-get download package into work (an empty folder) and unpack it into
 * dir, with one apt-get update if apt's lists lack it. Returns 0 or -1. */
int default_guest_unpack(struct default_guest *g, const char *package,
                         const char *work, const char *dir, struct error *e);

/* apt-get install -y package (as root), with one apt-get update if apt's
 * lists lack it. Returns 0 or -1. */
int default_guest_apt_install(struct default_guest *g, const char *package,
                              struct error *e);

/* The pieces above, exposed for the unit tests. */

/* $XDG_CACHE_HOME/perch when that is an absolute path (the XDG spec says to
 * ignore a relative one), else $HOME/.cache/perch. Either may be NULL. */
int default_guest_cache_dir(const char *xdg_cache_home, const char *home,
                            char *out, size_t size, struct error *e);

/* path with a leading $HOME/ shown as ~/, for messages. */
void default_guest_shown_path(const char *path, const char *home, char *out,
                              size_t size);

/* The package named on the Depends line of `apt-cache depends PKG` output
 * (the first plain "Depends:", not an alternative "|Depends:" nor a virtual
 * "<package>"). Returns 0, or -1 if there is none. */
int default_guest_parse_depends(const char *text, char *pkg, size_t size);

/* The last "E: " line of apt's output, without the "E: " (or the last
 * non-empty line, or ""). */
void default_guest_apt_error(const char *text, char *out, size_t size);

#endif
