/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Integer conversions from strings: strtol and its family, ato*. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>

#include "internal.h"

/* Parses the subject sequence of C11 7.22.1.4: spaces, a sign, a 0x prefix
 * (base 16 or 0), digits. Returns the magnitude, sets *negative, and sets
 * *overflow when it exceeds unsigned long long. With no digits, *endptr
 * is nptr and the result 0. An invalid base sets errno to EINVAL. */
static unsigned long long parse(const char *nptr, char **endptr, int base, int *negative,
                                int *overflow)
{
    const char *s = nptr;
    unsigned long long v = 0;
    int any = 0;
    *negative = 0;
    *overflow = 0;
    if (base < 0 || base == 1 || base > 36) {
        errno = EINVAL;
        if (endptr != NULL) {
            *endptr = (char *)(uintptr_t)nptr;
        }
        return 0;
    }
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (*s == '+' || *s == '-') {
        *negative = *s == '-';
        s++;
    }
    if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
        __crt_digit_value(s[2]) < 16) {
        s += 2;
        base = 16;
    } else if (base == 0) {
        base = s[0] == '0' ? 8 : 10;
    }
    unsigned long long cutoff = ULLONG_MAX / (unsigned)base;
    unsigned cutlim = (unsigned)(ULLONG_MAX % (unsigned)base);
    for (;; s++) {
        int d = __crt_digit_value(*s);
        if (d >= base) {
            break;
        }
        any = 1;
        if (v > cutoff || (v == cutoff && (unsigned)d > cutlim)) {
            *overflow = 1;
        } else {
            v = v * (unsigned)base + (unsigned)d;
        }
    }
    if (endptr != NULL) {
        *endptr = (char *)(uintptr_t)(any ? s : nptr);
    }
    return v;
}

/* The signed conversions: the magnitude clamped to [-max - 1, max]. */
static long long to_signed(unsigned long long v, int negative, int overflow, long long max)
{
    unsigned long long limit = (unsigned long long)max + (negative ? 1 : 0);
    if (overflow || v > limit) {
        errno = ERANGE;
        return negative ? -max - 1 : max;
    }
    if (negative) {
        return v == (unsigned long long)max + 1 ? -max - 1 : -(long long)v;
    }
    return (long long)v;
}

/* The unsigned conversions: a negative subject is negated in the type. */
static unsigned long long to_unsigned(unsigned long long v, int negative, int overflow,
                                      unsigned long long max)
{
    if (overflow || v > max) {
        errno = ERANGE;
        return max;
    }
    return negative ? (max - v + 1) & max : v;
}

long strtol(const char *restrict nptr, char **restrict endptr, int base)
{
    int negative, overflow;
    unsigned long long v = parse(nptr, endptr, base, &negative, &overflow);
    return (long)to_signed(v, negative, overflow, LONG_MAX);
}

long long strtoll(const char *restrict nptr, char **restrict endptr, int base)
{
    int negative, overflow;
    unsigned long long v = parse(nptr, endptr, base, &negative, &overflow);
    return to_signed(v, negative, overflow, LLONG_MAX);
}

unsigned long strtoul(const char *restrict nptr, char **restrict endptr, int base)
{
    int negative, overflow;
    unsigned long long v = parse(nptr, endptr, base, &negative, &overflow);
    return (unsigned long)to_unsigned(v, negative, overflow, ULONG_MAX);
}

unsigned long long strtoull(const char *restrict nptr, char **restrict endptr, int base)
{
    int negative, overflow;
    unsigned long long v = parse(nptr, endptr, base, &negative, &overflow);
    return to_unsigned(v, negative, overflow, ULLONG_MAX);
}

intmax_t strtoimax(const char *restrict nptr, char **restrict endptr, int base)
{
    return strtoll(nptr, endptr, base);
}

uintmax_t strtoumax(const char *restrict nptr, char **restrict endptr, int base)
{
    return strtoull(nptr, endptr, base);
}

int atoi(const char *nptr)
{
    return (int)strtol(nptr, NULL, 10);
}

long atol(const char *nptr)
{
    return strtol(nptr, NULL, 10);
}

long long atoll(const char *nptr)
{
    return strtoll(nptr, NULL, 10);
}
