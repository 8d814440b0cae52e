/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* math.h: functions with exact results, done on the bits, and the FPU's
 * square root. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

/** A double and its bits. */
union dbits {
    double d;
    uint64_t u;
};

#define SIGN ((uint64_t)1 << 63)
#define FRAC_BITS 52
#define FRAC_MASK (((uint64_t)1 << FRAC_BITS) - 1)

static uint64_t bits_of(double x)
{
    union dbits b;
    b.d = x;
    return b.u;
}

static double from_bits(uint64_t u)
{
    union dbits b;
    b.u = u;
    return b.d;
}

double fabs(double x)
{
    return from_bits(bits_of(x) & ~SIGN);
}

long double fabsl(long double x)
{
    return __builtin_fabsl(x);
}

float fabsf(float x)
{
    union {
        float f;
        uint32_t u;
    } b;
    b.f = x;
    b.u &= 0x7fffffffu;
    return b.f;
}

float copysignf(float x, float y)
{
    return __builtin_copysignf(x, y);
}

long double copysignl(long double x, long double y)
{
    return __builtin_copysignl(x, y);
}

double copysign(double x, double y)
{
    return from_bits((bits_of(x) & ~SIGN) | (bits_of(y) & SIGN));
}

/* The x87 FSQRT with the precision control at 53 bits, so the root is
 * rounded once, to double (at 64 bits, the store to double would round a
 * second time); the root of a double is never subnormal, so the wider
 * exponent range does not matter. */
double sqrt(double x)
{
#if defined(__i386__)
    unsigned short cw, cw53;
    double r;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    cw53 = (unsigned short)((cw & ~0x300u) | 0x200u);
    __asm__ volatile("fldcw %0" : : "m"(cw53));
    __asm__ volatile("fsqrt" : "=t"(r) : "0"(x));
    __asm__ volatile("fldcw %0" : : "m"(cw));
    return r;
#elif defined(__x86_64__)
    double r;
    __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x));
    return r;
#else
#error "sqrt: no square root instruction for this architecture"
#endif
}

/* Rounding the double root to float is exact enough: 53 >= 2 * 24 + 2. */
float sqrtf(float x)
{
    return (float)sqrt((double)x);
}

double trunc(double x)
{
    uint64_t u = bits_of(x);
    int e = (int)((u >> FRAC_BITS) & 0x7ff) - 1023;
    if (e >= FRAC_BITS) {
        return x; /* an integer already, or inf or NaN */
    }
    if (e < 0) {
        return from_bits(u & SIGN);
    }
    return from_bits(u & ~(FRAC_MASK >> e));
}

double floor(double x)
{
    double t = trunc(x);
    return (bits_of(x) & SIGN) && t != x ? t - 1.0 : t;
}

double ceil(double x)
{
    double t = trunc(x);
    return !(bits_of(x) & SIGN) && t != x ? t + 1.0 : t;
}

/* Halfway cases away from zero. */
double round(double x)
{
    double t = trunc(x);
    double f = fabs(x - t);
    if (f >= 0.5) {
        return (bits_of(x) & SIGN) ? t - 1.0 : t + 1.0;
    }
    return t;
}

/* Splits a finite nonzero |x| into m * 2^e with m in [2^52, 2^53). */
static void split(uint64_t u, uint64_t *m, int *e)
{
    int be = (int)((u >> FRAC_BITS) & 0x7ff);
    uint64_t f = u & FRAC_MASK;
    if (be == 0) {
        *e = -1074;
        while (f < ((uint64_t)1 << FRAC_BITS)) {
            f <<= 1;
            (*e)--;
        }
        *m = f;
    } else {
        *m = f | ((uint64_t)1 << FRAC_BITS);
        *e = be - 1075;
    }
}

/* The exact remainder x - n * y, n = trunc(x / y), by long division on the
 * significands. A zero y or an infinite x is a domain error. */
double fmod(double x, double y)
{
    uint64_t ux = bits_of(x);
    uint64_t uy = bits_of(y);
    uint64_t ax = ux & ~SIGN;
    uint64_t ay = uy & ~SIGN;
    uint64_t inf = (uint64_t)0x7ff << FRAC_BITS;
    if (ax > inf || ay > inf) {
        return x + y; /* a NaN */
    }
    if (ax == inf || ay == 0) {
        errno = EDOM;
        return from_bits(inf | ((uint64_t)1 << 51));
    }
    if (ax < ay) {
        return x;
    }
    uint64_t mx, my;
    int ex, ey;
    split(ax, &mx, &ex);
    split(ay, &my, &ey);
    while (ex > ey) {
        if (mx >= my) {
            mx -= my;
        }
        mx <<= 1;
        ex--;
    }
    if (mx >= my) {
        mx -= my;
    }
    if (mx == 0) {
        return from_bits(ux & SIGN);
    }
    /* Normalise mx * 2^ey; below the normal range it is subnormal. Both
     * operands are multiples of 2^-1074, so the remainder is too, and a
     * shift back to that scale (after a subnormal y was normalised) drops
     * only zeros. */
    if (ey < -1074) {
        mx >>= -1074 - ey;
        ey = -1074;
    }
    while (mx < ((uint64_t)1 << FRAC_BITS) && ey > -1074) {
        mx <<= 1;
        ey--;
    }
    uint64_t r;
    if (mx < ((uint64_t)1 << FRAC_BITS)) {
        r = mx;
    } else {
        r = ((uint64_t)(ey + 1075) << FRAC_BITS) | (mx & FRAC_MASK);
    }
    return from_bits(r | (ux & SIGN));
}
