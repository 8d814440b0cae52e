/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Declarations shared by the library's own sources; not for programs. */
#ifndef CRT_INTERNAL_H
#define CRT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Room for every significant decimal digit of a double: the longest exact
 * expansion (of the smallest subnormal times an odd 53-bit mantissa) has
 * 767 digits. */
#define CRT_DIGITS_MAX 800

/* The exact decimal expansion of m * 2^e2 (m < 2^64): writes its digits
 * ('0'..'9', no leading or trailing zeros) to out, which has room for
 * CRT_DIGITS_MAX, returns how many, and sets *point so that the value is
 * 0.DIGITS * 10^point. Returns 0 for m == 0. m must be below 2^54 when e2
 * is negative (a double's significand). */
int __crt_exact_digits(uint64_t m, int e2, char *out, int *point);

/* Writes len bytes to stream fd 1 (through the line buffer) or fd 2
 * (directly, after flushing stdout). */
void __crt_stream_write(int fd, const char *buf, size_t len);

/* The value of c as a digit of base 36 ('0'-'9', then 'a'-'z' or 'A'-'Z'
 * from 10), or 99 if it is none: below a base means a digit of it. */
static inline int __crt_digit_value(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'Z') {
        return c - 'A' + 10;
    }
    return 99;
}

#endif
