/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* complex.h: complex arithmetic (C11 7.3, a subset). The types and the
 * operators are the compiler's (_Complex); the library gives the parts,
 * the conjugate and the absolute value. */
#ifndef CRT_COMPLEX_H
#define CRT_COMPLEX_H

#define complex _Complex
#define _Complex_I (__extension__ 1.0iF)
#define I _Complex_I
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#define CMPLXL(x, y) __builtin_complex((long double)(x), (long double)(y))

double creal(double _Complex z);
float crealf(float _Complex z);
long double creall(long double _Complex z);
double cimag(double _Complex z);
float cimagf(float _Complex z);
long double cimagl(long double _Complex z);
double _Complex conj(double _Complex z);
float _Complex conjf(float _Complex z);
long double _Complex conjl(long double _Complex z);
double cabs(double _Complex z);
float cabsf(float _Complex z);

#endif
