/*
 * The string and memory functions of perch's freestanding code (lib/string.c),
 * for the Host and the test guests; the compiler also emits calls to the
 * mem* ones on its own.
 */
#ifndef PERCH_STR_H
#define PERCH_STR_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

#endif
