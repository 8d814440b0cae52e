/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* string.h: string handling (C11 7.24, plus strnlen, strdup, strndup,
 * strtok_r). memcpy, memmove, memset and memcmp are defined by the kernel
 * (kernel/src/mem.rs), not by this library. */
#ifndef CRT_STRING_H
#define CRT_STRING_H

#include <stddef.h>

void *memcpy(void *restrict s1, const void *restrict s2, size_t n);
void *memmove(void *s1, const void *s2, size_t n);
void *memset(void *s, int c, size_t n);
int memcmp(const void *s1, const void *s2, size_t n);
void *memchr(const void *s, int c, size_t n);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t maxlen);
int strcmp(const char *s1, const char *s2);
int strncmp(const char *s1, const char *s2, size_t n);
int strcoll(const char *s1, const char *s2);
char *strcpy(char *restrict s1, const char *restrict s2);
char *strncpy(char *restrict s1, const char *restrict s2, size_t n);
char *strcat(char *restrict s1, const char *restrict s2);
char *strncat(char *restrict s1, const char *restrict s2, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *s1, const char *s2);
size_t strspn(const char *s1, const char *s2);
size_t strcspn(const char *s1, const char *s2);
char *strpbrk(const char *s1, const char *s2);
char *strtok(char *restrict s1, const char *restrict s2);
char *strtok_r(char *restrict s, const char *restrict delim, char **restrict saveptr);
char *strdup(const char *s);
char *strndup(const char *s, size_t n);
char *strerror(int errnum);

#include <strings.h>

#endif
