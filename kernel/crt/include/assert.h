/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* assert.h: diagnostics (C11 7.2). A failed assertion writes
 * "Assertion failed: EXPR, function FUNC, file FILE, line LINE." to stderr
 * and calls abort(). Deliberately without an include guard: the meaning of
 * assert follows NDEBUG at each inclusion. */
#undef assert
#ifdef NDEBUG
#define assert(expr) ((void)0)
#else
/* Reports a failed assertion on stderr and aborts. */
__attribute__((__noreturn__)) void __crt_assert_fail(const char *expr, const char *file,
                                                     int line, const char *func);
#define assert(expr) ((expr) ? (void)0 : __crt_assert_fail(#expr, __FILE__, __LINE__, __func__))
#endif

#if !defined(__cplusplus) && !defined(static_assert) && __STDC_VERSION__ >= 201112L
#define static_assert _Static_assert
#endif
