/* Whole files read into memory (kernels, initrds) and written out, with
 * clear errors; folders removed; programs found in PATH. */
#ifndef PERCH_FILE_H
#define PERCH_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct file_data {
    uint8_t *bytes;
    size_t size;
};

int file_read_all(const char *path, struct file_data *f, struct error *e);
void file_release(struct file_data *f);

/* Create path (it must not exist) with mode and these bytes. Returns 0,
 * or -1 with e saying why, and no file left behind. */
int file_write_new(const char *path, const void *bytes, size_t size,
                   unsigned mode, struct error *e);

/* mkdir -p dir (mode 0755 for each folder made). Returns 0, or -1 with e
 * saying why (also when dir exists but is not a folder). */
int file_make_dirs(const char *dir, struct error *e);

/* rm -rf path, best effort: what cannot be removed stays. */
void file_remove_tree(const char *path);

/* Whether PATH holds an executable called name. */
bool file_in_path(const char *name);

#endif
