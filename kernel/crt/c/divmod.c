/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The 64-bit division helpers gcc calls on i386 that Rust's
 * compiler_builtins (which provides the rest of them to the kernel image)
 * does not export: quotient and remainder at once. Built on the ones it
 * does export, called by name so gcc cannot fold them back into these.
 * Weak, so a definition elsewhere wins. */
#include <stdint.h>

#ifdef __i386__
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
int64_t __divmoddi4(int64_t n, int64_t d, int64_t *rem);

__attribute__((weak)) uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
    uint64_t q = __udivdi3(n, d);
    if (rem != 0) {
        *rem = n - q * d;
    }
    return q;
}

/* Truncating division: the remainder takes the dividend's sign. */
__attribute__((weak)) int64_t __divmoddi4(int64_t n, int64_t d, int64_t *rem)
{
    uint64_t un = n < 0 ? -(uint64_t)n : (uint64_t)n;
    uint64_t ud = d < 0 ? -(uint64_t)d : (uint64_t)d;
    uint64_t q = __udivdi3(un, ud);
    if (rem != 0) {
        uint64_t r = un - q * ud;
        *rem = n < 0 ? (int64_t)-r : (int64_t)r;
    }
    return (n < 0) != (d < 0) ? (int64_t)-q : (int64_t)q;
}
#else
/* Keeps the translation unit non-empty on other targets. */
extern const int __crt_divmod_unused;
const int __crt_divmod_unused = 0;
#endif
