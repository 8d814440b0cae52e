/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Floating conversions from strings: strtod, strtof, atof, correctly
 * rounded (to nearest, ties to even).
 *
 * Decimal input is held as a decimal number of up to DEC_DIGITS digits
 * (any further nonzero digit only marks it inexact) and scaled by powers
 * of two, done exactly on the decimal digits, until it lies in [1/2, 1);
 * then shifting it left by the significand's width leaves the significand
 * as its integer part, and the digits after the point decide the rounding.
 * This is the classic "decimal shifting" method: exact, slower than
 * Eisel-Lemire style fast paths, and simple. Hexadecimal input is exact in
 * binary and rounded once. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Enough for every halfway point between two doubles (at most 767
 * significant digits), so rounding is decided exactly. */
#define DEC_DIGITS 800
/* The largest shift done in one step (fits the 32-bit arithmetic). */
#define MAX_SHIFT 27

/** A decimal number 0.d[0]d[1]...d[nd-1] * 10^dp, digits as values. */
struct decimal {
    unsigned char d[DEC_DIGITS + 16];
    int nd;
    int dp;
    int trunc; /* nonzero digits were dropped after d[nd-1] */
};

/** The layout of a binary floating type. */
struct layout {
    int mbits; /* explicit significand bits */
    int ebits; /* exponent bits */
    int bias;  /* minus the exponent bias */
};

static const struct layout double_layout = {52, 11, -1023};
static const struct layout float_layout = {23, 8, -127};

static void trim(struct decimal *a)
{
    while (a->nd > 0 && a->d[a->nd - 1] == 0) {
        a->nd--;
    }
    if (a->nd == 0) {
        a->dp = 0;
    }
}

/* Divides a by 2^k, k <= MAX_SHIFT. */
static void shift_right(struct decimal *a, int k)
{
    int r = 0;
    int w = 0;
    uint32_t n = 0;
    for (; (n >> k) == 0; r++) {
        if (r >= a->nd) {
            if (n == 0) {
                a->nd = 0;
                return;
            }
            while ((n >> k) == 0) {
                n *= 10;
                r++;
            }
            break;
        }
        n = n * 10 + a->d[r];
    }
    a->dp -= r - 1;
    uint32_t mask = ((uint32_t)1 << k) - 1;
    for (; r < a->nd; r++) {
        uint32_t c = a->d[r];
        a->d[w++] = (unsigned char)(n >> k);
        n = ((n & mask) * 10) + c;
    }
    while (n > 0) {
        uint32_t dig = n >> k;
        n &= mask;
        if (w < DEC_DIGITS) {
            a->d[w++] = (unsigned char)dig;
        } else if (dig > 0) {
            a->trunc = 1;
        }
        n *= 10;
    }
    a->nd = w;
    trim(a);
}

/* Multiplies a by 2^k, k <= MAX_SHIFT. */
static void shift_left(struct decimal *a, int k)
{
    /* 2^27 has 9 digits: the product has at most nd + 9 of them. */
    int grow = 9;
    int w = a->nd + grow;
    uint32_t n = 0;
    for (int r = a->nd - 1; r >= 0; r--) {
        n += (uint32_t)a->d[r] << k;
        uint32_t q = n / 10;
        a->d[--w] = (unsigned char)(n - 10 * q);
        n = q;
    }
    while (n > 0) {
        uint32_t q = n / 10;
        a->d[--w] = (unsigned char)(n - 10 * q);
        n = q;
    }
    /* The digits sit at d[w .. nd + grow): move them to the front. */
    int len = a->nd + grow - w;
    memmove(a->d, a->d + w, (size_t)len);
    a->dp += grow - w;
    a->nd = len;
    if (a->nd > DEC_DIGITS) {
        for (int i = DEC_DIGITS; i < a->nd; i++) {
            if (a->d[i] != 0) {
                a->trunc = 1;
            }
        }
        a->nd = DEC_DIGITS;
    }
    trim(a);
}

static void shift(struct decimal *a, int k)
{
    while (k > MAX_SHIFT) {
        shift_left(a, MAX_SHIFT);
        k -= MAX_SHIFT;
    }
    while (k < -MAX_SHIFT) {
        shift_right(a, MAX_SHIFT);
        k += MAX_SHIFT;
    }
    if (k > 0) {
        shift_left(a, k);
    } else if (k < 0) {
        shift_right(a, -k);
    }
}

/* The integer part of a, rounded to nearest, ties to even (a < 2^63). */
static uint64_t rounded_integer(const struct decimal *a)
{
    uint64_t n = 0;
    int i = 0;
    for (; i < a->dp && i < a->nd; i++) {
        n = n * 10 + a->d[i];
    }
    for (; i < a->dp; i++) {
        n *= 10;
    }
    int up = 0;
    if (a->dp >= 0 && a->dp < a->nd) {
        if (a->d[a->dp] == 5 && a->dp + 1 == a->nd) {
            up = a->trunc || (a->dp > 0 && (a->d[a->dp - 1] & 1));
        } else {
            up = a->d[a->dp] >= 5;
        }
    }
    return n + (uint64_t)up;
}

/* The bits of a in the given layout (sign not included); sets *range when
 * the result overflowed, or underflowed (the exact value is below the
 * normal range and the result inexact). */
static uint64_t decimal_bits(struct decimal *a, const struct layout *f, int *range)
{
    /* Powers of two whose digit count is the index's, so each shift moves
     * the decimal point by about one place per bit group. */
    static const int powtab[] = {1, 3, 6, 9, 13, 16, 19, 23, 26};
    uint64_t emax = ((uint64_t)1 << f->ebits) - 1;
    int exp = 0;
    *range = 0;
    if (a->nd == 0) {
        return 0;
    }
    if (a->dp > 310) {
        goto overflow;
    }
    if (a->dp < -330) {
        *range = 1;
        return 0;
    }
    while (a->dp > 0) {
        int n = a->dp >= 9 ? MAX_SHIFT : powtab[a->dp];
        shift(a, -n);
        exp += n;
    }
    while (a->dp < 0 || (a->dp == 0 && a->d[0] < 5)) {
        int n = -a->dp >= 9 ? MAX_SHIFT : powtab[-a->dp];
        shift(a, n);
        exp -= n;
    }
    /* a is in [1/2, 1): as 2a * 2^(exp - 1), 2a in [1, 2). */
    exp--;
    /* Below the normal range before rounding: an inexact result underflows
     * (ERANGE) even if rounding then reaches the smallest normal. */
    int tiny = exp < f->bias + 1;
    if (tiny) {
        int n = f->bias + 1 - exp;
        shift(a, -n);
        exp += n;
    }
    if (exp - f->bias >= (int)emax) {
        goto overflow;
    }
    shift(a, 1 + f->mbits);
    int inexact = a->trunc || a->nd > a->dp;
    uint64_t mant = rounded_integer(a);
    if (mant == (uint64_t)2 << f->mbits) {
        mant >>= 1;
        exp++;
        if (exp - f->bias >= (int)emax) {
            goto overflow;
        }
    }
    if ((mant & ((uint64_t)1 << f->mbits)) == 0) {
        exp = f->bias;
    }
    if (tiny && inexact) {
        *range = 1;
    }
    return (mant & (((uint64_t)1 << f->mbits) - 1)) | ((uint64_t)(exp - f->bias) & emax)
                                                           << f->mbits;
overflow:
    *range = 1;
    return emax << f->mbits;
}

/* If *sp starts an exponent, `mark` in either case then an optional sign
 * and at least one digit: sets *value to it (its magnitude saturated at
 * 100000), moves *sp past it and returns 1; else returns 0. */
static int read_exponent(const char **sp, char mark, long *value)
{
    const char *s = *sp;
    if ((*s != mark && *s != mark - 'a' + 'A') ||
        !(isdigit((unsigned char)s[1]) ||
          ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2])))) {
        return 0;
    }
    int negative = 0;
    long v = 0;
    s++;
    if (*s == '+' || *s == '-') {
        negative = *s == '-';
        s++;
    }
    while (isdigit((unsigned char)*s)) {
        if (v < 100000) {
            v = v * 10 + (*s - '0');
        }
        s++;
    }
    *sp = s;
    *value = negative ? -v : v;
    return 1;
}

/* The bits of m * 2^e2 (plus something below m's last bit when sticky),
 * rounded to the layout; sets *range as decimal_bits does. */
static uint64_t binary_bits(uint64_t m, long e2, int sticky, const struct layout *f, int *range)
{
    long emin = f->bias + 1;
    long emaxv = -f->bias;
    *range = 0;
    if (m == 0) {
        return 0;
    }
    int msb = 63;
    while (((m >> msb) & 1) == 0) {
        msb--;
    }
    long e = msb + e2; /* the value is in [2^e, 2^(e+1)) */
    if (e > emaxv) {
        *range = 1;
        return (((uint64_t)1 << f->ebits) - 1) << f->mbits;
    }
    long keep = f->mbits + 1;
    if (e < emin) {
        keep -= emin - e;
    }
    if (keep < 0) {
        *range = 1;
        return 0;
    }
    long drop = msb + 1 - keep;
    int inexact = sticky;
    if (drop > 0) {
        uint64_t rem = drop >= 64 ? m : m & (((uint64_t)1 << drop) - 1);
        uint64_t half = (uint64_t)1 << (drop - 1);
        m = drop >= 64 ? 0 : m >> drop;
        if (rem != 0) {
            inexact = 1;
        }
        if (rem > half || (rem == half && (sticky || (m & 1)))) {
            m++;
        }
    } else {
        m <<= -drop;
    }
    if (e < emin) {
        /* Subnormal: the significand is the whole encoding (a carry into
         * bit mbits makes it the smallest normal, correctly). */
        if (inexact) {
            *range = 1;
        }
        return m;
    }
    if (m >> (f->mbits + 1)) {
        m >>= 1;
        e++;
        if (e > emaxv) {
            *range = 1;
            return (((uint64_t)1 << f->ebits) - 1) << f->mbits;
        }
    }
    return (m & (((uint64_t)1 << f->mbits) - 1)) | ((uint64_t)(e - f->bias) << f->mbits);
}

/* Case-insensitive match of the lower-case word at s. */
static int match(const char *s, const char *word)
{
    for (; *word != '\0'; s++, word++) {
        if (tolower((unsigned char)*s) != *word) {
            return 0;
        }
    }
    return 1;
}

/* Parses a floating constant (C11 7.22.1.3) into the bits of the layout,
 * without the sign bit, which goes to *negative. */
static uint64_t parse(const char *nptr, char **endptr, const struct layout *f, int *negative)
{
    const char *s = nptr;
    uint64_t inf = (((uint64_t)1 << f->ebits) - 1) << f->mbits;
    int range = 0;
    uint64_t bits = 0;
    *negative = 0;
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (*s == '+' || *s == '-') {
        *negative = *s == '-';
        s++;
    }
    if (match(s, "inf")) {
        s += match(s, "infinity") ? 8 : 3;
        bits = inf;
        goto done;
    }
    if (match(s, "nan")) {
        s += 3;
        if (*s == '(') {
            const char *t = s + 1;
            while (isalnum((unsigned char)*t) || *t == '_') {
                t++;
            }
            if (*t == ')') {
                s = t + 1;
            }
        }
        /* A quiet NaN. */
        bits = inf | ((uint64_t)1 << (f->mbits - 1));
        goto done;
    }
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
        (__crt_digit_value(s[2]) < 16 || (s[2] == '.' && __crt_digit_value(s[3]) < 16))) {
        uint64_t m = 0;
        long e2 = 0;
        int sticky = 0;
        int seen_point = 0;
        s += 2;
        for (;; s++) {
            int v;
            if (*s == '.' && !seen_point) {
                seen_point = 1;
                continue;
            }
            v = __crt_digit_value(*s);
            if (v >= 16) {
                break;
            }
            if ((m >> 60) == 0) {
                m = (m << 4) | (uint64_t)v;
                if (seen_point) {
                    e2 -= 4;
                }
            } else {
                if (v != 0) {
                    sticky = 1;
                }
                if (!seen_point) {
                    e2 += 4;
                }
            }
        }
        long ev;
        if (read_exponent(&s, 'p', &ev)) {
            e2 += ev;
        }
        bits = binary_bits(m, e2, sticky, f, &range);
        goto done;
    }
    {
        static struct decimal a;
        int any = 0;
        int seen_point = 0;
        a.nd = 0;
        a.dp = 0;
        a.trunc = 0;
        for (;; s++) {
            if (*s == '.' && !seen_point) {
                seen_point = 1;
                continue;
            }
            if (!isdigit((unsigned char)*s)) {
                break;
            }
            any = 1;
            if (*s == '0' && a.nd == 0) {
                /* A leading zero: only moves the point. */
                if (seen_point) {
                    a.dp--;
                }
                continue;
            }
            if (!seen_point) {
                a.dp++;
            }
            if (a.nd < DEC_DIGITS) {
                a.d[a.nd++] = (unsigned char)(*s - '0');
            } else if (*s != '0') {
                a.trunc = 1;
            }
        }
        if (!any) {
            /* No conversion: +0, the whole string unread. */
            s = nptr;
            *negative = 0;
            goto done;
        }
        long ev;
        if (read_exponent(&s, 'e', &ev)) {
            a.dp += (int)ev;
        }
        trim(&a);
        bits = decimal_bits(&a, f, &range);
    }
done:
    if (range) {
        errno = ERANGE;
    }
    if (endptr != NULL) {
        *endptr = (char *)(uintptr_t)s;
    }
    return bits;
}

double strtod(const char *restrict nptr, char **restrict endptr)
{
    int negative;
    union {
        uint64_t u;
        double d;
    } v;
    v.u = parse(nptr, endptr, &double_layout, &negative) | ((uint64_t)negative << 63);
    return v.d;
}

float strtof(const char *restrict nptr, char **restrict endptr)
{
    int negative;
    union {
        uint32_t u;
        float f;
    } v;
    v.u = (uint32_t)parse(nptr, endptr, &float_layout, &negative) | ((uint32_t)negative << 31);
    return v.f;
}

double atof(const char *nptr)
{
    return strtod(nptr, NULL);
}
