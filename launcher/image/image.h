/*
 * `perch image debian FILE [--size SIZE] [--force]`: a Debian 12 root file
 * system image that boots with `perch run --disk FILE --root /dev/xvda`,
 * made with Debian's own tools:
 *
 *   1. the root tree, built once with mmdebstrap (image_recipe.c says what
 *      goes in) and kept as <cache>/debian-bookworm-root-RECIPE-KVER.tar;
 *   2. the ext4 image, written from that tree with mke2fs -d (no loop
 *      device, no mount).
 *
 * image.c parses the command line and runs the steps; image_recipe.c is
 * the recipe: mmdebstrap's arguments and the files perch adds to the tree.
 */
#ifndef PERCH_IMAGE_H
#define PERCH_IMAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "../boot/default_guest.h"
#include "../base/error.h"

/* A change to the recipe changes this, so the cached tree is built anew. */
#define IMAGE_RECIPE          "r1"
#define IMAGE_ROOT_PREFIX     "debian-bookworm-root-"
#define IMAGE_DEFAULT_SIZE    "4G"
#define IMAGE_MIN_BYTES       (256ull << 20)
#define IMAGE_MAX_BYTES       (16ull << 40)     /* ext4 with 4 KiB blocks */

struct image_options {
    const char *distro;        /* "debian", the only one */
    const char *file;
    const char *size_text;     /* as given, for messages */
    uint64_t size;             /* bytes */
    bool force;                /* overwrite FILE */
    bool help;
};

/* The subcommand: args are the words after "image". Returns perch's exit
 * status; e says why when it is not 0. */
int image_main(int argc, char **argv, struct error *e);

/* The command line into o: 0, or -1 with e saying what is wrong. */
int image_parse(int argc, char **argv, struct image_options *o,
                struct error *e);

/* "4G", "512M", "1T", "300000K" (binary units; a unit is needed) into
 * bytes, between IMAGE_MIN_BYTES and IMAGE_MAX_BYTES. */
int image_parse_size(const char *s, uint64_t *bytes, struct error *e);

/* ---- image_recipe.c ---------------------------------------------------- */

/* The files perch adds to the tree (fstab, hostname, the perch-cmd unit
 * and script, ...) and the kernel's Xen modules, written under dir. */
int image_recipe_stage(struct default_guest *g, const char *kver,
                       const char *work, const char *dir, struct error *e);

/* mmdebstrap's argv (NULL-ended, into argv[] of at least IMAGE_ARGV_MAX)
 * for a tree with the files of dir, written as the tarball out. The
 * strings live in buf. */
#define IMAGE_ARGV_MAX 24
int image_recipe_argv(const char *dir, const char *kver, const char *out,
                      char *argv[], char *buf, size_t size, struct error *e);

#endif
