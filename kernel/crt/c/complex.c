/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The functions of complex.h: parts, conjugates, absolute values. */
#include <complex.h>
#include <math.h>

double creal(double _Complex z) { return __real__ z; }
float crealf(float _Complex z) { return __real__ z; }
long double creall(long double _Complex z) { return __real__ z; }
double cimag(double _Complex z) { return __imag__ z; }
float cimagf(float _Complex z) { return __imag__ z; }
long double cimagl(long double _Complex z) { return __imag__ z; }
double _Complex conj(double _Complex z) { return __builtin_complex(__real__ z, -__imag__ z); }
float _Complex conjf(float _Complex z) { return __builtin_complex(__real__ z, -__imag__ z); }
long double _Complex conjl(long double _Complex z)
{
    return __builtin_complex(__real__ z, -__imag__ z);
}

/* |z| = sqrt(x^2 + y^2), scaled by the larger part so that the squares
 * neither overflow nor underflow. */
double cabs(double _Complex z)
{
    double x = fabs(__real__ z), y = fabs(__imag__ z);
    double big = x > y ? x : y, small = x > y ? y : x;
    if (big == 0.0 || isinf(big))
        return big;
    double r = small / big;
    return big * sqrt(1.0 + r * r);
}

float cabsf(float _Complex z) { return (float)cabs(__builtin_complex((double)__real__ z, (double)__imag__ z)); }

/* The helpers gcc calls for complex multiplication and division
 * (libgcc's __mulsc3 and kin): (a + bi)(c + di) and (a + bi)/(c + di),
 * with C11 Annex G's recovery of infinite results that the plain
 * formulas turn into NaN (G.5.1), and Smith's division, which scales by
 * the larger part of the divisor so that it neither overflows nor
 * underflows needlessly. */
#define COMPLEX_HELPERS(T, SUFFIX, MUL, DIV)                                        \
    T _Complex MUL(T a, T b, T c, T d)                                              \
    {                                                                               \
        T ac = a * c, bd = b * d, ad = a * d, bc = b * c;                           \
        T x = ac - bd, y = ad + bc;                                                 \
        if (isnan(x) && isnan(y)) {                                                 \
            int again = 0;                                                          \
            if (isinf(a) || isinf(b)) {                                             \
                a = copysign##SUFFIX(isinf(a) ? 1 : 0, a);                          \
                b = copysign##SUFFIX(isinf(b) ? 1 : 0, b);                          \
                if (isnan(c)) c = copysign##SUFFIX(0, c);                           \
                if (isnan(d)) d = copysign##SUFFIX(0, d);                           \
                again = 1;                                                          \
            }                                                                       \
            if (isinf(c) || isinf(d)) {                                             \
                c = copysign##SUFFIX(isinf(c) ? 1 : 0, c);                          \
                d = copysign##SUFFIX(isinf(d) ? 1 : 0, d);                          \
                if (isnan(a)) a = copysign##SUFFIX(0, a);                           \
                if (isnan(b)) b = copysign##SUFFIX(0, b);                           \
                again = 1;                                                          \
            }                                                                       \
            if (again) {                                                            \
                x = (T)INFINITY * (a * c - b * d);                                  \
                y = (T)INFINITY * (a * d + b * c);                                  \
            }                                                                       \
        }                                                                           \
        return __builtin_complex(x, y);                                             \
    }                                                                               \
    T _Complex DIV(T a, T b, T c, T d)                                              \
    {                                                                               \
        T x, y;                                                                     \
        if (fabs##SUFFIX(c) >= fabs##SUFFIX(d)) {                                   \
            T r = d / c, den = c + d * r;                                           \
            x = (a + b * r) / den;                                                  \
            y = (b - a * r) / den;                                                  \
        } else {                                                                    \
            T r = c / d, den = c * r + d;                                           \
            x = (a * r + b) / den;                                                  \
            y = (b * r - a) / den;                                                  \
        }                                                                           \
        if (isnan(x) && isnan(y) && c == 0 && d == 0 && (!isnan(a) || !isnan(b))) { \
            x = copysign##SUFFIX((T)INFINITY, c) * a;                               \
            y = copysign##SUFFIX((T)INFINITY, c) * b;                               \
        }                                                                           \
        return __builtin_complex(x, y);                                             \
    }

COMPLEX_HELPERS(float, f, __mulsc3, __divsc3)
COMPLEX_HELPERS(double, , __muldc3, __divdc3)
COMPLEX_HELPERS(long double, l, __mulxc3, __divxc3)
