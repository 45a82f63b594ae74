/* Whole files read into memory (kernels, initrds), with clear errors. */
#ifndef PERCH_FILE_H
#define PERCH_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct file_data {
    uint8_t *bytes;
    size_t size;
};

int file_read_all(const char *path, struct file_data *f, struct error *e);
void file_release(struct file_data *f);

#endif
