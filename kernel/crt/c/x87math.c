/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* math.h: sin, cos and exp on the x87 FPU (the P54C's FSIN, FCOS, F2XM1
 * and FSCALE), computed in the 64-bit significand of the x87 registers and
 * rounded once to double on return.
 *
 * Accuracy. FSIN and FCOS take |x| < 2^63 and reduce it by pi themselves;
 * silicon uses a 66-bit pi for that, so beyond the last rounding the
 * result can be off by about |x| * 2^-66 in absolute terms (which is many
 * ulps only where the result is near 0, close to a multiple of pi). QEMU's
 * TCG computes FSIN and FCOS with the host's double sin and cos. For
 * |x| >= 2^63 the argument is first reduced by FPREM1 modulo the x87's
 * 2*pi (pi rounded to 64 bits, doubled): exact modulo that value, but not
 * modulo 2*pi, so there the result is only some value in [-1, 1], as with
 * the x87 itself. An infinite x is a domain error (EDOM, NaN).
 *
 * exp(x) = 2^n * 2^f, where t = x * log2(e) in 64 bits, n = the nearest
 * integer to t and f = t - n in [-1/2, 1/2] (exact); 2^f - 1 comes from
 * F2XM1 and the power of two from FSCALE. t's relative error is 2^-64,
 * with |t| < 1100 an absolute error below 2^-53, so the result is within
 * about one ulp. It overflows to HUGE_VAL above 709.78 and underflows to 0
 * below -745.13 (subnormal from -708.4 on), with errno ERANGE for both. */
#include <errno.h>
#include <math.h>

/* The x87's log2(e) (FLDL2E), 64 bits of it. */
static long double log2e(void)
{
    long double r;
    __asm__("fldl2e" : "=t"(r));
    return r;
}

/* x modulo the x87's 2*pi, by FPREM1 repeated until C2 says the partial
 * remainder is complete. */
static long double reduce(long double x)
{
    long double r;
    __asm__("fldpi\n\t"
            "fadd %%st(0), %%st(0)\n\t"
            "fxch %%st(1)\n"
            "1:\n\t"
            "fprem1\n\t"
            "fnstsw %%ax\n\t"
            "testw $0x400, %%ax\n\t"
            "jnz 1b\n\t"
            "fstp %%st(1)"
            : "=t"(r)
            : "0"(x)
            : "ax");
    return r;
}

/* 2^63: FSIN and FCOS leave larger arguments as they are (C2 set). */
#define X87_TRIG_LIMIT 9223372036854775808.0L

static long double trig_argument(double x)
{
    long double a = x;
    if (a >= X87_TRIG_LIMIT || a <= -X87_TRIG_LIMIT) {
        a = reduce(a);
    }
    return a;
}

/* sin or cos of an x that is not finite: a NaN stays (quieted), an
 * infinity is a domain error (EDOM, NaN). */
static double trig_not_finite(double x)
{
    if (isnan(x)) {
        return x + x;
    }
    errno = EDOM;
    return x - x;
}

double sin(double x)
{
    if (!isfinite(x)) {
        return trig_not_finite(x);
    }
    long double r;
    __asm__("fsin" : "=t"(r) : "0"(trig_argument(x)));
    return (double)r;
}

double cos(double x)
{
    if (!isfinite(x)) {
        return trig_not_finite(x);
    }
    long double r;
    __asm__("fcos" : "=t"(r) : "0"(trig_argument(x)));
    return (double)r;
}

double exp(double x)
{
    if (isnan(x)) {
        return x + x;
    }
    if (isinf(x)) {
        return x > 0 ? x : 0.0;
    }
    if (x > 709.782712893384) {
        errno = ERANGE;
        return HUGE_VAL;
    }
    if (x < -745.1332191019412) {
        errno = ERANGE;
        return 0.0;
    }
    long double t = (long double)x * log2e();
    long double n;
    __asm__("frndint" : "=t"(n) : "0"(t));
    long double f = t - n;
    __asm__("f2xm1" : "+t"(f));
    long double p = f + 1.0L;
    long double r;
    __asm__("fscale" : "=t"(r) : "0"(p), "u"(n));
    double d = (double)r;
    if (d < 2.2250738585072014e-308) {
        errno = ERANGE; /* subnormal or 0: underflow */
    }
    return d;
}
