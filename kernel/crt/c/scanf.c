/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* sscanf and vsscanf (C11 7.21.6.2 and 7.21.6.12) over a string: the
 * conversions d, i, u, o, x, X, f, e, g, E, G, a, s, c, [...], p, n and
 * %%, with '*' (assignment suppressed), a field width and the length
 * modifiers hh, h, l, ll, j, z, t and L. Numbers are read with the
 * strto* functions of this library, on at most the field width's
 * characters. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest numeric field read at once; a longer width reads this much. */
#define FIELD 128

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_BIG_L };

/* Stores the integer `v` through the next argument, as `len` says. */
static void store_int(va_list *ap, enum length len, unsigned long long v)
{
    switch (len) {
    case LEN_HH: *va_arg(*ap, signed char *) = (signed char)v; break;
    case LEN_H: *va_arg(*ap, short *) = (short)v; break;
    case LEN_L: *va_arg(*ap, long *) = (long)v; break;
    case LEN_LL: *va_arg(*ap, long long *) = (long long)v; break;
    case LEN_J: *va_arg(*ap, intmax_t *) = (intmax_t)v; break;
    case LEN_Z: *va_arg(*ap, size_t *) = (size_t)v; break;
    case LEN_T: *va_arg(*ap, ptrdiff_t *) = (ptrdiff_t)v; break;
    default: *va_arg(*ap, int *) = (int)v; break;
    }
}

/* Whether `c` is in the scan set `set` (the characters between '[' and
 * the closing ']', `negated` if it began with '^'), of `n` characters. */
static int in_set(const char *set, size_t n, int negated, unsigned char c)
{
    int found = 0;
    for (size_t i = 0; i < n && !found; i++) {
        if (i > 0 && i + 1 < n && set[i] == '-') {
            found = (unsigned char)set[i - 1] <= c && c <= (unsigned char)set[i + 1];
        } else {
            found = (unsigned char)set[i] == c;
        }
    }
    return found != negated;
}

int vsscanf(const char *restrict s, const char *restrict format, va_list args)
{
    va_list ap;
    va_copy(ap, args);
    const char *in = s;
    const char *f = format;
    int assigned = 0;
    int converted = 0;
    while (*f) {
        if (isspace((unsigned char)*f)) {
            while (isspace((unsigned char)*f))
                f++;
            while (isspace((unsigned char)*in))
                in++;
            continue;
        }
        if (*f != '%' || f[1] == '%') {
            if (*f == '%') {
                f++;
                while (isspace((unsigned char)*in))
                    in++;
            }
            if (*in != *f) {
                if (*in == '\0' && converted == 0) {
                    va_end(ap);
                    return EOF;
                }
                break;
            }
            in++;
            f++;
            continue;
        }
        f++;
        int suppress = 0;
        if (*f == '*') {
            suppress = 1;
            f++;
        }
        size_t width = 0;
        while (isdigit((unsigned char)*f))
            width = width * 10 + (size_t)(*f++ - '0');
        enum length len = LEN_NONE;
        switch (*f) {
        case 'h':
            len = f[1] == 'h' ? LEN_HH : LEN_H;
            f += len == LEN_HH ? 2 : 1;
            break;
        case 'l':
            len = f[1] == 'l' ? LEN_LL : LEN_L;
            f += len == LEN_LL ? 2 : 1;
            break;
        case 'j': len = LEN_J; f++; break;
        case 'z': len = LEN_Z; f++; break;
        case 't': len = LEN_T; f++; break;
        case 'L': len = LEN_BIG_L; f++; break;
        default: break;
        }
        char conv = *f++;
        if (conv == '\0')
            break;
        if (conv == 'n') {
            if (!suppress)
                store_int(&ap, len, (unsigned long long)(in - s));
            continue;
        }
        if (conv != 'c' && conv != '[') {
            while (isspace((unsigned char)*in))
                in++;
        }
        if (*in == '\0') {
            va_end(ap);
            return converted == 0 && assigned == 0 ? EOF : assigned;
        }
        if (conv == 'c' || conv == 's' || conv == '[') {
            const char *set = NULL;
            size_t set_len = 0;
            int negated = 0;
            if (conv == '[') {
                if (*f == '^') {
                    negated = 1;
                    f++;
                }
                set = f;
                if (*f == ']')
                    f++;
                while (*f && *f != ']')
                    f++;
                set_len = (size_t)(f - set);
                if (*f == ']')
                    f++;
            }
            size_t max = width ? width : (conv == 'c' ? 1 : (size_t)-1);
            char *out = suppress ? NULL : va_arg(ap, char *);
            size_t n = 0;
            while (n < max && in[n]) {
                unsigned char c = (unsigned char)in[n];
                if (conv == 's' && isspace(c))
                    break;
                if (conv == '[' && !in_set(set, set_len, negated, c))
                    break;
                if (out)
                    out[n] = (char)c;
                n++;
            }
            if (n == 0 || (conv == 'c' && n < max))
                break;
            if (out && conv != 'c')
                out[n] = '\0';
            in += n;
            converted++;
            if (out)
                assigned++;
            continue;
        }
        /* A number: at most `width` characters of it. */
        char field[FIELD];
        size_t take = width && width < FIELD - 1 ? width : FIELD - 1;
        size_t n = 0;
        while (n < take && in[n])
            n++;
        memcpy(field, in, n);
        field[n] = '\0';
        char *end = field;
        if (conv == 'f' || conv == 'e' || conv == 'g' || conv == 'E' || conv == 'G'
            || conv == 'a' || conv == 'F' || conv == 'A') {
            double v = strtod(field, &end);
            if (end == field)
                break;
            if (!suppress) {
                if (len == LEN_L)
                    *va_arg(ap, double *) = v;
                else if (len == LEN_BIG_L)
                    *va_arg(ap, long double *) = v;
                else
                    *va_arg(ap, float *) = (float)v;
            }
        } else {
            int base;
            switch (conv) {
            case 'd': case 'u': base = 10; break;
            case 'i': base = 0; break;
            case 'o': base = 8; break;
            case 'x': case 'X': case 'p': base = 16; break;
            default:
                va_end(ap);
                return converted == 0 && assigned == 0 ? EOF : assigned;
            }
            unsigned long long v;
            if (conv == 'u' || conv == 'o' || conv == 'x' || conv == 'X' || conv == 'p')
                v = strtoull(field, &end, base);
            else
                v = (unsigned long long)strtoll(field, &end, base);
            if (end == field)
                break;
            if (!suppress) {
                if (conv == 'p')
                    *va_arg(ap, void **) = (void *)(uintptr_t)v;
                else
                    store_int(&ap, len, v);
            }
        }
        in += end - field;
        converted++;
        if (!suppress)
            assigned++;
    }
    va_end(ap);
    return assigned;
}

int sscanf(const char *restrict s, const char *restrict format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsscanf(s, format, ap);
    va_end(ap);
    return n;
}
