/*
 * Test reporting. Every result is one console line, written with one
 * console_io call, which the project's test runner counts:
 *
 *   PASS <guest>/<name>
 *   FAIL <guest>/<name>: <reason>
 *
 * <guest> is the guest_name[] each guest defines.
 */
#ifndef PERCH_RT_TEST_H
#define PERCH_RT_TEST_H

#include <stdbool.h>
#include "lib.h"

extern const char guest_name[];

void test_pass(const char *name);
void test_fail(const char *name, const char *fmt, ...) RT_PRINTF(2, 3);

/* PASS when cond holds, else FAIL with the formatted reason. Returns cond. */
bool check(const char *name, bool cond, const char *fmt, ...) RT_PRINTF(3, 4);

/* PASS when got == want, else "FAIL guest/name: got G (0xG), want W (0xW)". */
bool check_eq(const char *name, long got, long want);

/* For several conditions under one name: return true if got == want, else
 * report "FAIL guest/name: what: got G, want W" and return false. The caller
 * reports test_pass(name) once if every step held. */
bool expect_eq(const char *name, const char *what, long got, long want);

/* The same for a condition: true if it holds, else FAIL guest/name with
 * the formatted reason and false. */
bool expect(const char *name, bool cond, const char *fmt, ...) RT_PRINTF(3, 4);

/* Results reported so far. */
extern unsigned int tests_passed, tests_failed;

#endif
