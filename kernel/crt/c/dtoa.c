/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The exact decimal expansion of a binary floating-point value, the base
 * of correctly rounded formatting: printf rounds this digit string, so
 * every precision is rounded exactly once, from the exact value.
 *
 * m * 2^e2 is an integer times a power of two. For e2 >= 0 the integer
 * m << e2 is built in base 10^9 limbs by doubling steps; for e2 < 0,
 * m / 2^k = m * 5^k / 10^k, so the digits are those of m * 5^k and the
 * decimal point sits k places from the right. */
#include "internal.h"

#define LIMB_BASE 1000000000u
/* 767 digits in limbs of 9, with room to spare. */
#define LIMBS 90

/* Multiplies the little-endian limb number l (of *n limbs) by f, where
 * f * LIMB_BASE fits in 64 bits. */
static void mul_small(uint32_t *l, int *n, uint32_t f)
{
    uint64_t carry = 0;
    for (int i = 0; i < *n; i++) {
        uint64_t t = (uint64_t)l[i] * f + carry;
        carry = t / LIMB_BASE;
        l[i] = (uint32_t)(t - carry * LIMB_BASE);
    }
    while (carry != 0 && *n < LIMBS) {
        uint64_t next = carry / LIMB_BASE;
        l[(*n)++] = (uint32_t)(carry - next * LIMB_BASE);
        carry = next;
    }
}

int __crt_exact_digits(uint64_t m, int e2, char *out, int *point)
{
    uint32_t l[LIMBS];
    int n = 0;
    int e10 = 0;
    if (m == 0) {
        *point = 0;
        return 0;
    }
    while ((m & 1) == 0) {
        m >>= 1;
        e2++;
    }
    while (m != 0) {
        uint64_t next = m / LIMB_BASE;
        l[n++] = (uint32_t)(m - next * LIMB_BASE);
        m = next;
    }
    if (e2 > 0) {
        while (e2 > 0) {
            int k = e2 < 29 ? e2 : 29;
            mul_small(l, &n, (uint32_t)1 << k);
            e2 -= k;
        }
    } else if (e2 < 0) {
        /* 5^13 is the largest power of five below 2^31. */
        static const uint32_t pow5[13] = {1,       5,        25,        125,      625,
                                          3125,    15625,    78125,     390625,   1953125,
                                          9765625, 48828125, 244140625};
        int k = -e2;
        e10 = e2;
        while (k >= 13) {
            mul_small(l, &n, 1220703125u);
            k -= 13;
        }
        if (k > 0) {
            mul_small(l, &n, pow5[k]);
        }
    }
    /* Most significant limb without leading zeros, then 9 digits each. */
    int len = 0;
    char tmp[10];
    int t = 0;
    uint32_t top = l[n - 1];
    while (top != 0) {
        tmp[t++] = (char)('0' + top % 10);
        top /= 10;
    }
    while (t > 0) {
        out[len++] = tmp[--t];
    }
    for (int i = n - 2; i >= 0; i--) {
        uint32_t v = l[i];
        for (int j = 8; j >= 0; j--) {
            out[len + j] = (char)('0' + v % 10);
            v /= 10;
        }
        len += 9;
    }
    *point = len + e10;
    while (len > 0 && out[len - 1] == '0') {
        len--;
    }
    return len;
}
