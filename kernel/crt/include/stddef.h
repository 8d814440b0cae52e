/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stddef.h: common definitions (C11 7.19). Types come from the compiler's
 * predefined macros, so they match the target ABI (i386: size_t is
 * unsigned int, ptrdiff_t is int). */
#ifndef CRT_STDDEF_H
#define CRT_STDDEF_H

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
#endif

/* The most strictly aligned scalar type, as gcc defines it (on i386 that
 * includes __float128, so it is 16-byte aligned). */
typedef struct {
    long long __crt_ll __attribute__((__aligned__(__alignof__(long long))));
    long double __crt_ld __attribute__((__aligned__(__alignof__(long double))));
#ifdef __i386__
    __float128 __crt_f128 __attribute__((__aligned__(__alignof__(__float128))));
#endif
} max_align_t;

#define NULL ((void *)0)
#define offsetof(type, member) __builtin_offsetof(type, member)

#endif
