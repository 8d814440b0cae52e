/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Host tests only (build.rs adds this file to the host build): what the
 * Rust tests cannot do themselves. Rust has no long double and cannot
 * build a va_list, and the assert macro only exists in C. Compiled with
 * test/rename.h like the library, so printf here means crt_printf; the
 * host's snprintf is reached through an assembler name. */
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* The host C library's snprintf, which rename.h would otherwise hide. */
extern int host_snprintf(char *s, size_t n, const char *fmt, ...) __asm__("snprintf");

/* Formats (long double)v with ours. */
int crt_test_format_long_double(char *buf, size_t n, const char *fmt, double v)
{
    return snprintf(buf, n, fmt, (long double)v);
}

/* Formats (long double)v with the host's. */
int crt_test_glibc_format_long_double(char *buf, size_t n, const char *fmt, double v)
{
    return host_snprintf(buf, n, fmt, (long double)v);
}

/* vprintf with the arguments given here. */
int crt_test_vprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vprintf(fmt, ap);
    va_end(ap);
    return r;
}

/* vsprintf with the arguments given here. */
int crt_test_vsprintf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsprintf(buf, fmt, ap);
    va_end(ap);
    return r;
}

/* A failing assert when v is 0. */
void crt_test_assert(int v)
{
    assert(v != 0);
}
static const int assert_line = __LINE__ - 2;

/* The line of the assert in crt_test_assert. */
int crt_test_assert_line(void)
{
    return assert_line;
}

#define NDEBUG
#include <assert.h>

/* With NDEBUG, assert does not evaluate its argument. */
int crt_test_assert_ndebug(int v)
{
    assert(v++ == 12345);
    return v;
}

/* The inttypes.h macros for 64-bit values. */
int crt_test_int64_format(char *buf, size_t n, int64_t v, uint64_t u)
{
    return snprintf(buf, n, "%" PRId64 " %" PRIu64 " %" PRIx64 " %" PRIX64 " %" PRIi64 " %" PRIo64,
                    v, u, u, u, v, u);
}
