/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Compile-time checks that the headers' types are i386 gcc's (the guest
 * build fails otherwise); on other targets, only what holds everywhere. */
#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SAME_TYPE(a, b) _Generic((a)0, b: 1, default: 0)

#ifdef __i386__
_Static_assert(SAME_TYPE(size_t, unsigned int), "size_t is unsigned int on i386");
_Static_assert(SAME_TYPE(ptrdiff_t, int), "ptrdiff_t is int on i386");
_Static_assert(SAME_TYPE(int64_t, long long), "int64_t is long long on i386");
_Static_assert(SAME_TYPE(uint64_t, unsigned long long), "uint64_t is unsigned long long");
_Static_assert(SAME_TYPE(int32_t, int), "int32_t is int on i386");
_Static_assert(SAME_TYPE(intptr_t, int), "intptr_t is int on i386");
_Static_assert(SAME_TYPE(intmax_t, long long), "intmax_t is long long on i386");
_Static_assert(sizeof(long) == 4 && LONG_MAX == 2147483647L, "long is 32 bits on i386");
_Static_assert(sizeof(void *) == 4, "pointers are 32 bits");
_Static_assert(sizeof(wchar_t) == 4, "wchar_t is 32 bits");
_Static_assert(_Alignof(max_align_t) == 16, "max_align_t is 16-byte aligned (malloc's alignment)");
_Static_assert(sizeof(long double) == 12 && LDBL_MANT_DIG == 64, "x87 long double");
_Static_assert(FLT_EVAL_METHOD == 2, "x87 arithmetic evaluates in long double");
_Static_assert(sizeof(time_t) == 4 && sizeof(clock_t) == 4, "time_t and clock_t are long");
#endif

_Static_assert(sizeof(int8_t) == 1 && sizeof(int16_t) == 2 && sizeof(int32_t) == 4 && sizeof(int64_t) == 8,
               "exact-width types");
_Static_assert(SIZE_MAX == (size_t)-1, "SIZE_MAX");
_Static_assert(INT64_MIN == -INT64_MAX - 1 && UINT32_MAX == 4294967295u, "limits");
_Static_assert(CHAR_BIT == 8 && DBL_MANT_DIG == 53 && FLT_MANT_DIG == 24, "IEEE formats");
_Static_assert(_Alignof(max_align_t) <= 16, "malloc's alignment (16) covers max_align_t");

/* Keeps the translation unit non-empty. */
extern const int __crt_abi_checked;
const int __crt_abi_checked = 1;
