/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* strings.h: case-insensitive comparison (POSIX), ASCII only. */
#ifndef CRT_STRINGS_H
#define CRT_STRINGS_H

#include <stddef.h>

int strcasecmp(const char *s1, const char *s2);
int strncasecmp(const char *s1, const char *s2, size_t n);

#endif
