/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* math.h: the mathematics this library has (C11 7.12, a small subset):
 * the exact functions (fabs, floor, ceil, trunc, round, fmod, copysign),
 * sqrt (the FPU's correctly rounded square root), and sin, cos and exp
 * on the x87 (c/x87math.c says how accurate). No other transcendental
 * functions (log, pow, tan, ...): they are not declared. */
#ifndef CRT_MATH_H
#define CRT_MATH_H

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
double sqrt(double x);
float sqrtf(float x);
double floor(double x);
double ceil(double x);
double trunc(double x);
double round(double x);
double fmod(double x, double y);
double copysign(double x, double y);
/* On the x87 (c/x87math.c says how accurate they are). */
double sin(double x);
double cos(double x);
double exp(double x);

#endif
