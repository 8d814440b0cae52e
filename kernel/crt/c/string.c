/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* string.h and strings.h, except the memory functions the kernel defines
 * (memcpy, memmove, memset, memcmp). Comparisons compare bytes as unsigned
 * char; case-insensitive ones fold ASCII only. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Drops const from a pointer into the caller's string, as the standard
 * signatures require. */
static char *unconst(const char *s)
{
    return (char *)(uintptr_t)s;
}

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    for (; n > 0; n--, p++) {
        if (*p == (unsigned char)c) {
            return (void *)(uintptr_t)p;
        }
    }
    return NULL;
}

size_t strlen(const char *s)
{
    const char *p = s;
    while (*p != '\0') {
        p++;
    }
    return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t maxlen)
{
    size_t n = 0;
    while (n < maxlen && s[n] != '\0') {
        n++;
    }
    return n;
}

int strcmp(const char *s1, const char *s2)
{
    const unsigned char *a = (const unsigned char *)s1;
    const unsigned char *b = (const unsigned char *)s2;
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a - *b;
}

int strncmp(const char *s1, const char *s2, size_t n)
{
    const unsigned char *a = (const unsigned char *)s1;
    const unsigned char *b = (const unsigned char *)s2;
    for (; n > 0; n--, a++, b++) {
        if (*a != *b || *a == '\0') {
            return *a - *b;
        }
    }
    return 0;
}

/* The "C" locale collates by byte value. */
int strcoll(const char *s1, const char *s2)
{
    return strcmp(s1, s2);
}

int strcasecmp(const char *s1, const char *s2)
{
    const unsigned char *a = (const unsigned char *)s1;
    const unsigned char *b = (const unsigned char *)s2;
    while (*a != '\0' && tolower(*a) == tolower(*b)) {
        a++;
        b++;
    }
    return tolower(*a) - tolower(*b);
}

int strncasecmp(const char *s1, const char *s2, size_t n)
{
    const unsigned char *a = (const unsigned char *)s1;
    const unsigned char *b = (const unsigned char *)s2;
    for (; n > 0; n--, a++, b++) {
        if (tolower(*a) != tolower(*b) || *a == '\0') {
            return tolower(*a) - tolower(*b);
        }
    }
    return 0;
}

char *strcpy(char *restrict s1, const char *restrict s2)
{
    char *d = s1;
    while ((*d++ = *s2++) != '\0') {
    }
    return s1;
}

char *strncpy(char *restrict s1, const char *restrict s2, size_t n)
{
    size_t i = 0;
    for (; i < n && s2[i] != '\0'; i++) {
        s1[i] = s2[i];
    }
    for (; i < n; i++) {
        s1[i] = '\0';
    }
    return s1;
}

char *strcat(char *restrict s1, const char *restrict s2)
{
    strcpy(s1 + strlen(s1), s2);
    return s1;
}

char *strncat(char *restrict s1, const char *restrict s2, size_t n)
{
    char *d = s1 + strlen(s1);
    size_t i = 0;
    for (; i < n && s2[i] != '\0'; i++) {
        d[i] = s2[i];
    }
    d[i] = '\0';
    return s1;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c) {
            return unconst(s);
        }
        if (*s == '\0') {
            return NULL;
        }
    }
}

char *strrchr(const char *s, int c)
{
    const char *last = NULL;
    for (;; s++) {
        if (*s == (char)c) {
            last = s;
        }
        if (*s == '\0') {
            return unconst(last);
        }
    }
}

char *strstr(const char *s1, const char *s2)
{
    size_t n = strlen(s2);
    if (n == 0) {
        return unconst(s1);
    }
    for (; *s1 != '\0'; s1++) {
        if (*s1 == *s2 && strncmp(s1, s2, n) == 0) {
            return unconst(s1);
        }
    }
    return NULL;
}

size_t strspn(const char *s1, const char *s2)
{
    size_t n = 0;
    while (s1[n] != '\0' && strchr(s2, s1[n]) != NULL) {
        n++;
    }
    return n;
}

size_t strcspn(const char *s1, const char *s2)
{
    size_t n = 0;
    while (s1[n] != '\0' && strchr(s2, s1[n]) == NULL) {
        n++;
    }
    return n;
}

char *strpbrk(const char *s1, const char *s2)
{
    s1 += strcspn(s1, s2);
    return *s1 != '\0' ? unconst(s1) : NULL;
}

char *strtok_r(char *restrict s, const char *restrict delim, char **restrict saveptr)
{
    if (s == NULL) {
        s = *saveptr;
        if (s == NULL) {
            return NULL;
        }
    }
    s += strspn(s, delim);
    if (*s == '\0') {
        *saveptr = NULL;
        return NULL;
    }
    char *end = s + strcspn(s, delim);
    if (*end != '\0') {
        *end = '\0';
        *saveptr = end + 1;
    } else {
        *saveptr = NULL;
    }
    return s;
}

char *strtok(char *restrict s1, const char *restrict s2)
{
    static char *save;
    return strtok_r(s1, s2, &save);
}

char *strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL) {
        memcpy(d, s, n);
    }
    return d;
}

char *strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = malloc(len + 1);
    if (d != NULL) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

char *strerror(int errnum)
{
    switch (errnum) {
    case 0:
        return "Success";
    case EPERM:
        return "Operation not permitted";
    case ENOENT:
        return "No such file or directory";
    case EINTR:
        return "Interrupted system call";
    case EIO:
        return "Input/output error";
    case EBADF:
        return "Bad file descriptor";
    case EAGAIN:
        return "Resource temporarily unavailable";
    case ENOMEM:
        return "Cannot allocate memory";
    case EACCES:
        return "Permission denied";
    case EFAULT:
        return "Bad address";
    case EBUSY:
        return "Device or resource busy";
    case EEXIST:
        return "File exists";
    case EINVAL:
        return "Invalid argument";
    case ENOSPC:
        return "No space left on device";
    case EDOM:
        return "Numerical argument out of domain";
    case ERANGE:
        return "Numerical result out of range";
    case ENOSYS:
        return "Function not implemented";
    case EOVERFLOW:
        return "Value too large for defined data type";
    case EILSEQ:
        return "Invalid or incomplete multibyte or wide character";
    case ENOTSUP:
        return "Operation not supported";
    case ETIMEDOUT:
        return "Connection timed out";
    default:
        return "Unknown error";
    }
}
