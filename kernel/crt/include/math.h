/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* math.h: the mathematics this library has (C11 7.12, a small subset):
 * the exact functions (fabs, floor, ceil, trunc, round, fmod, copysign),
 * sqrt (the FPU's correctly rounded square root), and sin, cos and exp
 * on the x87 (c/x87math.c says how accurate). No other transcendental
 * functions (log, pow, tan, ...): they are not declared. */
#ifndef CRT_MATH_H
#define CRT_MATH_H

/* POSIX's constants (XSI), as doubles. */
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))

#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)

double fabs(double x);
float fabsf(float x);
long double fabsl(long double x);
double sqrt(double x);
float sqrtf(float x);
double floor(double x);
double ceil(double x);
double trunc(double x);
double round(double x);
double fmod(double x, double y);
double copysign(double x, double y);
float copysignf(float x, float y);
long double copysignl(long double x, long double y);
/* On the x87 (c/x87math.c says how accurate they are). */
double sin(double x);
double cos(double x);
double exp(double x);

#endif
