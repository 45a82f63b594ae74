/*
 * A very small unit-test harness. Each test binary runs its cases with RUN()
 * and prints one line per case, "PASS name" or "FAIL name: what at file:line";
 * tests/run counts those lines. A case fails at its first failed CHECK.
 */
#ifndef PERCH_CHECK_H
#define PERCH_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_case_failed;
static int check_failures;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("FAIL %s: CHECK(%s) at %s:%d\n", check_case_name, #cond,\
                   __FILE__, __LINE__);                                    \
            check_case_failed = 1;                                         \
            return;                                                        \
        }                                                                  \
    } while (0)

/* CHECK that a string contains a substring, showing the string on failure. */
#define CHECK_CONTAINS(str, sub)                                           \
    do {                                                                   \
        if (!strstr((str), (sub))) {                                       \
            printf("FAIL %s: \"%s\" lacks \"%s\" at %s:%d\n",              \
                   check_case_name, (str), (sub), __FILE__, __LINE__);     \
            check_case_failed = 1;                                         \
            return;                                                        \
        }                                                                  \
    } while (0)

static const char *check_case_name;

#define RUN(fn)                                                            \
    do {                                                                   \
        check_case_name = #fn;                                             \
        check_case_failed = 0;                                             \
        fn();                                                              \
        if (check_case_failed)                                             \
            check_failures++;                                              \
        else                                                               \
            printf("PASS %s\n", #fn);                                      \
    } while (0)

/* How many of a NULL-ended argv are word: a program's command line. */
static inline int check_count_word(char *const *argv, const char *word)
{
    int n = 0;

    for (int i = 0; argv[i]; i++)
        n += !strcmp(argv[i], word);
    return n;
}

static inline int check_exit_status(void)
{
    return check_failures ? 1 : 0;
}

#endif
