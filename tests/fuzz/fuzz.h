/*
 * What the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share: the entry point
 * libFuzzer calls, an invariant check that crashes (so that libFuzzer keeps
 * the input that broke it), and a cursor that cuts the input into the
 * numbers and byte runs a harness needs, giving zeros once it is used up.
 */
#ifndef PERCH_TESTS_FUZZ_H
#define PERCH_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant of the code under test: if it does not hold, say which (on
 * fd 2 itself, as the sanitizers do, whatever stdio's stderr is) and
 * abort, which libFuzzer reports as a crash with the input. */
#define FUZZ_ASSERT(cond)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            dprintf(STDERR_FILENO, "fuzz: invariant %s broken at %s:%d\n", \
                    #cond, __FILE__, __LINE__);                            \
            abort();                                                       \
        }                                                                  \
    } while (0)

struct fuzz_in {
    const uint8_t *p;
    size_t n;
};

/* Up to `want` bytes from the input (fewer at its end): where they are. */
static inline const uint8_t *fuzz_bytes(struct fuzz_in *in, size_t want,
                                        size_t *got)
{
    const uint8_t *p = in->p;

    *got = want < in->n ? want : in->n;
    in->p += *got;
    in->n -= *got;
    return p;
}

/* An unsigned number of `bytes` bytes (1-8), little-endian; missing bytes
 * are zeros. */
static inline uint64_t fuzz_uint(struct fuzz_in *in, unsigned bytes)
{
    uint64_t v = 0;
    size_t got;
    const uint8_t *p = fuzz_bytes(in, bytes, &got);

    for (size_t i = 0; i < got; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A printable one-line message (fail()'s promise): no byte outside
 * printable ASCII, not empty. */
static inline bool fuzz_one_line(const char *msg)
{
    for (const char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            return false;
    return msg[0] != '\0';
}

#endif
